package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"smriti/account"
	"smriti/coord"
	"smriti/internal/textutil"
	"time"

	"github.com/google/uuid"

	"smriti"
	"smriti/store/internal/dbx"
)

var _ coord.ClaimService = (*Store)(nil)

const claimCols = `cl.id, cl.space_id, cl.session_id, cl.agent, cl.branch_name, cl.base_checkpoint_id, cl.worktree_id,
	cl.scope, cl.task_id, cl.intent, cl.status, cl.claimed_at, cl.expires_at`

// visibleClaim scopes claims to the caller through their space.
const visibleClaim = ` FROM claims cl JOIN spaces sp ON sp.id = cl.space_id WHERE sp.id` + memberSpace

var errClaimNotFound = smriti.Errorf(smriti.ENOTFOUND, "Claim not found")

func scanClaim(row interface{ Scan(...any) error }, extra ...any) (*coord.Claim, error) {
	var c coord.Claim
	var session, base, wt uuid.NullUUID
	var task sql.NullString
	var claimed, expires dbx.Time
	dst := append([]any{&c.ID, &c.SpaceID, &session, &c.Agent, &c.BranchName, &base, &wt, &c.Scope, &task,
		&c.Intent, &c.Status, &claimed, &expires}, extra...)
	if err := row.Scan(dst...); err != nil {
		return nil, err
	}
	c.SessionID, c.BaseCheckpointID, c.WorktreeID = dbx.NullID(session), dbx.NullID(base), dbx.NullID(wt)
	if task.Valid {
		c.TaskID = &task.String
	}
	c.ClaimedAt, c.ExpiresAt = claimed.Time, expires.Time
	return &c, nil
}

// CreateClaim implements coord.ClaimService.
func (s *Store) CreateClaim(ctx context.Context, in coord.ClaimCreate) (*coord.Claim, []*coord.Claim, error) {
	if err := in.Normalize(); err != nil {
		return nil, nil, err
	}
	var out *coord.Claim
	var collisions []*coord.Claim
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.requireRole(ctx, tx, in.SpaceID, account.NeedWrite); err != nil {
			return err
		}
		if err := s.checkClaimRefs(ctx, tx, &in); err != nil {
			return err
		}
		now := s.Now()
		c := &coord.Claim{ID: smriti.NewID(), SpaceID: in.SpaceID, SessionID: in.SessionID, Agent: in.Agent,
			BranchName: in.BranchName, BaseCheckpointID: in.BaseCheckpointID, WorktreeID: in.WorktreeID, Scope: in.Scope,
			Intent: in.Intent, Status: coord.ClaimActive, ClaimedAt: now, ExpiresAt: now.Add(*in.TTL)}
		if in.TaskID != "" {
			task := in.TaskID
			c.TaskID = &task
		}
		live, err := s.queryClaims(ctx, tx, `SELECT `+claimCols+visibleClaim+` AND cl.space_id = ? AND cl.status = 'active'
			AND cl.expires_at > ? ORDER BY cl.claimed_at DESC, cl.id DESC LIMIT ?`,
			smriti.UserFromContext(ctx), in.SpaceID, s.d.T(now), smriti.ListCap)
		if err != nil {
			return err
		}
		collisions = []*coord.Claim{}
		for _, o := range live {
			if c.Collides(o) {
				collisions = append(collisions, o)
			}
		}
		_, err = tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO claims (id, space_id, session_id, agent, branch_name,
			base_checkpoint_id, worktree_id, scope, task_id, intent, status, claimed_at, expires_at, lease_seconds)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
			c.ID, c.SpaceID, dbx.IDArg(c.SessionID), c.Agent, c.BranchName, dbx.IDArg(c.BaseCheckpointID), dbx.IDArg(c.WorktreeID),
			c.Scope, c.TaskID, c.Intent, c.Status, s.d.T(c.ClaimedAt), s.d.T(c.ExpiresAt), int64(*in.TTL/time.Second))
		if err != nil {
			return fmt.Errorf("insert claim: %w", err)
		}
		if c.TaskID != nil {
			if err := s.holdTask(ctx, tx, c, now); err != nil {
				return err
			}
		}
		out = c
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return out, collisions, nil
}

// holdTask gives the claim the task's hold, in one statement: the row is
// inserted, or taken over only when its holder's lease has run out (a
// finished claim's hold is released when it finishes). Two claimers racing
// for a task serialise on the row; the loser's WHERE sees the winner's
// lease and takes nothing. ECONFLICT names the holder and its expiry.
func (s *Store) holdTask(ctx context.Context, tx *sql.Tx, c *coord.Claim, now time.Time) error {
	var got smriti.ID
	err := tx.QueryRowContext(ctx, s.d.Rebind(`INSERT INTO task_holds (space_id, task_id, claim_id, expires_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (space_id, task_id) DO UPDATE SET claim_id = excluded.claim_id, expires_at = excluded.expires_at
		WHERE task_holds.expires_at <= ? RETURNING claim_id`),
		c.SpaceID, *c.TaskID, c.ID, s.d.T(c.ExpiresAt), s.d.T(now)).Scan(&got)
	if err == nil {
		return nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("hold task: %w", err)
	}
	var holder, agent string
	var until dbx.Time
	err = tx.QueryRowContext(ctx, s.d.Rebind(`SELECT h.claim_id, cl.agent, h.expires_at FROM task_holds h JOIN claims cl ON cl.id = h.claim_id
		WHERE h.space_id = ? AND h.task_id = ?`), c.SpaceID, *c.TaskID).Scan(&holder, &agent, &until)
	if err != nil {
		return smriti.Errorf(smriti.ECONFLICT, "Task '%s' is already claimed", textutil.Truncate(*c.TaskID, 40))
	}
	who := ""
	if agent != "" {
		who = " by " + agent
	}
	return smriti.Errorf(smriti.ECONFLICT, "Task '%s' is already claimed%s (claim %s) until %s",
		textutil.Truncate(*c.TaskID, 40), who, holder[:8], until.UTC().Format(time.RFC3339))
}

// releaseHold ends the hold a claim has on its task.
func (s *Store) releaseHold(ctx context.Context, tx *sql.Tx, claimID smriti.ID, now time.Time) error {
	if _, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE task_holds SET expires_at = ? WHERE claim_id = ?`), s.d.T(now), claimID); err != nil {
		return fmt.Errorf("release task: %w", err)
	}
	return nil
}

// checkClaimRefs checks that the claim's base checkpoint, session and
// worktree exist in its space (and the worktree is still open).
func (s *Store) checkClaimRefs(ctx context.Context, q dbx.Querier, in *coord.ClaimCreate) error {
	if in.BaseCheckpointID != nil {
		ref, err := s.refInSpace(ctx, q, in.SpaceID, *in.BaseCheckpointID)
		if err != nil {
			return err
		}
		if ref == nil {
			return smriti.Errorf(smriti.EINVALID, "base_commit_id: no such checkpoint in this space")
		}
	}
	if in.SessionID != nil {
		var space uuid.NullUUID
		err := q.QueryRowContext(ctx, s.d.Rebind(`SELECT space_id FROM sessions WHERE id = ? AND `+sessionVisible),
			*in.SessionID, smriti.UserFromContext(ctx), smriti.UserFromContext(ctx)).Scan(&space)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("look up session: %w", err)
		}
		if err != nil || !space.Valid || space.UUID != in.SpaceID {
			return smriti.Errorf(smriti.EINVALID, "session_id: no such session in this space")
		}
	}
	if in.WorktreeID != nil {
		var space smriti.ID
		var status string
		err := q.QueryRowContext(ctx, s.d.Rebind(`SELECT space_id, status FROM worktrees WHERE id = ?`), *in.WorktreeID).Scan(&space, &status)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("look up worktree: %w", err)
		}
		switch {
		case err != nil:
			return smriti.Errorf(smriti.ENOTFOUND, "Worktree not found")
		case space != in.SpaceID:
			return smriti.Errorf(smriti.EINVALID, "Worktree belongs to a different space")
		case status != coord.WorktreeActive:
			return smriti.Errorf(smriti.EINVALID, "Worktree is not active")
		}
	}
	return nil
}

func (s *Store) queryClaims(ctx context.Context, q dbx.Querier, query string, args ...any) ([]*coord.Claim, error) {
	return dbx.QueryAll(ctx, s.d, q, "list claims", func(r interface{ Scan(...any) error }) (*coord.Claim, error) { return scanClaim(r) }, query, args...)
}

// Claims implements coord.ClaimService.
func (s *Store) Claims(ctx context.Context, spaceID smriti.ID, q coord.ClaimQuery) ([]*coord.Claim, string, error) {
	if _, err := s.space(ctx, s.read, spaceID); err != nil {
		return nil, "", err
	}
	query := `SELECT ` + claimCols + visibleClaim + ` AND cl.space_id = ?`
	args := []any{smriti.UserFromContext(ctx), spaceID}
	if !q.IncludeExpired {
		query += ` AND cl.status = 'active' AND cl.expires_at > ?`
		args = append(args, s.d.T(s.Now()))
	}
	k := dbx.TimeKeyset(q.Page, "cl.claimed_at", "cl.id")
	query, args, err := k.Apply(s.d, query, args)
	if err != nil {
		return nil, "", err
	}
	out, err := s.queryClaims(ctx, s.read, query, args...)
	if err != nil {
		return nil, "", err
	}
	out, next := dbx.PageOf(k, out, func(c *coord.Claim) string { return dbx.TimeCursor(c.ClaimedAt, c.ID) })
	return out, next, nil
}

// FinishClaim implements coord.ClaimService.
func (s *Store) FinishClaim(ctx context.Context, id smriti.ID, status string) (*coord.Claim, error) {
	var out *coord.Claim
	err := s.tx(ctx, func(tx *sql.Tx) error {
		c, err := s.lockClaim(ctx, tx, id)
		if err != nil {
			return err
		}
		now := s.Now()
		if err := c.CheckFinish(status, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE claims SET status = ?, finished_at = ? WHERE id = ?`),
			status, s.d.T(now), id); err != nil {
			return fmt.Errorf("finish claim: %w", err)
		}
		if err := s.releaseHold(ctx, tx, id, now); err != nil {
			return err
		}
		c.Status = status
		out = c
		return nil
	})
	return out, err
}

// lockClaim reads a claim the caller may change and locks its row for the
// transaction: ENOTFOUND for a claim missing or not the caller's to see,
// EFORBIDDEN for a viewer of its space.
func (s *Store) lockClaim(ctx context.Context, tx *sql.Tx, id smriti.ID) (*coord.Claim, error) {
	c, err := scanClaim(tx.QueryRowContext(ctx, s.d.Rebind(`SELECT `+claimCols+visibleClaim+` AND cl.id = ?`+forUpdateOf(s.d, "cl")),
		smriti.UserFromContext(ctx), id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errClaimNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("get claim: %w", err)
	}
	if err := s.requireRole(ctx, tx, c.SpaceID, account.NeedWrite); err != nil {
		return nil, err
	}
	return c, nil
}

// forUpdateOf locks only the rows of one table of a join.
func forUpdateOf(d dbx.Dialect, table string) string {
	if d.ForUpdate == "" {
		return ""
	}
	return d.ForUpdate + " OF " + table
}
