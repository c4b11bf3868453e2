package store

import (
	"context"
	"database/sql"
	"fmt"
	"smriti/internal/textutil"
	"strings"

	"smriti"
	"smriti/store/internal/dbx"
)

// ForkSession implements contract.SessionService. The space row is locked
// while the branch name is chosen, so two forks at once never share a
// default name.
func (s *Store) ForkSession(ctx context.Context, in smriti.ForkCreate) (*smriti.Session, error) {
	if err := smriti.ValidateBranchName(strings.TrimSpace(in.BranchName)); err != nil {
		return nil, err
	}
	var se *smriti.Session
	err := s.tx(ctx, func(tx *sql.Tx) error {
		now := s.Now()
		if err := s.lockSpace(ctx, tx, in.SpaceID, now); err != nil {
			return err
		}
		src, err := s.checkpoint(ctx, tx, in.CheckpointID)
		if err != nil {
			return err
		}
		if src.SpaceID != in.SpaceID {
			return smriti.Errorf(smriti.EINVALID, "Checkpoint does not belong to this space")
		}
		branch := strings.TrimSpace(in.BranchName)
		if branch == "" {
			if branch, err = s.freeBranchName(ctx, tx, in.SpaceID, "fork-"+textutil.ShortHash(src.Hash)); err != nil {
				return err
			}
		} else {
			if branch == smriti.MainBranch {
				return smriti.Errorf(smriti.ECONFLICT, "Branch name %q is reserved; choose another name or leave it empty for a default", branch)
			}
			used, err := s.branchInUse(ctx, tx, in.SpaceID, branch)
			if err != nil {
				return err
			}
			if used {
				return smriti.Errorf(smriti.ECONFLICT, "Branch %q already exists in this space; choose another name or leave it empty for a default", branch)
			}
		}
		se = &smriti.Session{
			ID: smriti.NewID(), SpaceID: &in.SpaceID, OwnerID: smriti.UserFromContext(ctx),
			Title: textutil.ForkTitle(branch, src.Message, smriti.GeneratedTitleChars), ActiveProvider: in.Provider, ActiveModel: in.Model,
			SeededCheckpointID: &src.ID, ForkedFromCheckpointID: &src.ID, BranchName: branch,
			BranchDisposition: smriti.DispositionActive, LastSeq: -1, Metadata: map[string]any{}, CreatedAt: now, UpdatedAt: now,
		}
		return s.insertSession(ctx, tx, se)
	})
	return se, err
}

func (s *Store) branchInUse(ctx context.Context, q dbx.Querier, spaceID smriti.ID, branch string) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, s.d.Rebind(`SELECT
		(SELECT COUNT(*) FROM sessions WHERE space_id = ? AND branch_name = ?) +
		(SELECT COUNT(*) FROM checkpoints WHERE space_id = ? AND branch_name = ?)`), spaceID, branch, spaceID, branch).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("check branch name: %w", err)
	}
	return n > 0, nil
}

// freeBranchName returns base, or base-2, base-3 … whichever is unused.
func (s *Store) freeBranchName(ctx context.Context, q dbx.Querier, spaceID smriti.ID, base string) (string, error) {
	name := base
	for i := 2; ; i++ {
		used, err := s.branchInUse(ctx, q, spaceID, name)
		if err != nil || !used {
			return name, err
		}
		name = fmt.Sprintf("%s-%d", base, i)
	}
}

// SetBranchDisposition implements contract.SessionService.
func (s *Store) SetBranchDisposition(ctx context.Context, spaceID smriti.ID, branch, disposition string) (int, error) {
	if branch == "" {
		return 0, smriti.Errorf(smriti.EUNPROCESSABLE, "branch_name is required")
	}
	if err := smriti.ValidateBranchName(branch); err != nil {
		return 0, err
	}
	var n int64
	err := s.tx(ctx, func(tx *sql.Tx) error {
		now := s.Now()
		if err := s.lockSpace(ctx, tx, spaceID, now); err != nil {
			return err
		}
		if err := smriti.ValidateDisposition(disposition); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE sessions SET branch_disposition = ?, updated_at = ? WHERE space_id = ? AND branch_name = ?`),
			disposition, s.d.T(now), spaceID, branch)
		if err != nil {
			return fmt.Errorf("set disposition: %w", err)
		}
		n, _ = res.RowsAffected()
		if n == 0 {
			return smriti.Errorf(smriti.ENOTFOUND, "No sessions found on branch '%s' in this space.", branch)
		}
		return nil
	})
	return int(n), err
}
