package store

import (
	"context"
	"database/sql"
	"fmt"
	"smriti/coord"
	"smriti/internal/textutil"
	"time"

	"smriti"
	"smriti/store/internal/dbx"
)

var _ coord.ReadyService = (*Store)(nil)

// ReadyTasks implements coord.ReadyService. One read transaction: the
// tasks of main's head and of every active branch's head, the live holds,
// and the tasks whose claims finished done.
func (s *Store) ReadyTasks(ctx context.Context, spaceID smriti.ID, q coord.ReadyQuery) ([]coord.ReadyTask, error) {
	var out []coord.ReadyTask
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		var err error
		out, err = s.readyTasks(ctx, tx, spaceID)
		return err
	})
	if err != nil {
		return nil, err
	}
	if limit := dbx.ClampLimit(q.Limit, smriti.ListCap, smriti.ListCap); len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

func (s *Store) readyTasks(ctx context.Context, q dbx.Querier, spaceID smriti.ID) ([]coord.ReadyTask, error) {
	if _, err := s.space(ctx, q, spaceID); err != nil {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, s.d.Rebind(`SELECT c.branch_name, c.id, c.commit_hash, c.created_at, c.tasks
		FROM (SELECT ? AS branch_name UNION SELECT DISTINCT branch_name FROM sessions
			WHERE space_id = ? AND branch_name <> ? AND branch_disposition = ?) b
		JOIN checkpoints c ON c.id = (SELECT h.id FROM checkpoints h WHERE h.space_id = ? AND h.branch_name = b.branch_name
			ORDER BY h.log_pos DESC LIMIT 1)
		ORDER BY CASE WHEN c.branch_name = ? THEN 0 ELSE 1 END, c.log_pos DESC LIMIT ?`),
		smriti.MainBranch, spaceID, smriti.MainBranch, smriti.DispositionActive, spaceID, smriti.MainBranch, maxBranchHeads)
	if err != nil {
		return nil, fmt.Errorf("ready heads: %w", err)
	}
	defer rows.Close()
	var heads []coord.TaskSource
	for rows.Next() {
		var h coord.TaskSource
		var created dbx.Time
		if err := rows.Scan(&h.Branch, &h.CheckpointID, &h.Hash, &created, dbx.JSONCol{Dst: &h.Tasks}); err != nil {
			return nil, fmt.Errorf("ready heads: %w", err)
		}
		h.CreatedAt = created.Time
		heads = append(heads, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("ready heads: %w", err)
	}
	now := s.d.T(s.Now())
	held, err := s.taskSet(ctx, q, `SELECT task_id FROM task_holds WHERE space_id = ? AND expires_at > ?`, spaceID, now)
	if err != nil {
		return nil, err
	}
	done, err := s.taskSet(ctx, q, `SELECT DISTINCT task_id FROM claims WHERE space_id = ? AND status = ? AND task_id IS NOT NULL`,
		spaceID, coord.ClaimDone)
	if err != nil {
		return nil, err
	}
	return coord.RankReady(heads, held, done), nil
}

func (s *Store) taskSet(ctx context.Context, q dbx.Querier, query string, args ...any) (map[string]bool, error) {
	rows, err := q.QueryContext(ctx, s.d.Rebind(query), args...)
	if err != nil {
		return nil, fmt.Errorf("ready: %w", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, fmt.Errorf("ready: %w", err)
		}
		out[k] = true
	}
	return out, rows.Err()
}

// ClaimReady implements coord.ReadyService: it tries the ready tasks in
// rank order, each with CreateClaim's atomic hold, and stops at the first
// it wins; a task another claimer took in between is passed over.
func (s *Store) ClaimReady(ctx context.Context, in coord.ClaimCreate) (*coord.Claim, *coord.ReadyTask, error) {
	for round := 0; round < 3; round++ {
		ready, err := s.ReadyTasks(ctx, in.SpaceID, coord.ReadyQuery{})
		if err != nil {
			return nil, nil, err
		}
		if len(ready) == 0 {
			break
		}
		for i := range ready {
			try := in
			try.TaskID, try.Scope = ready[i].Key, textutil.Truncate(ready[i].Task.Text, 2000)
			if try.Intent == "" && ready[i].Task.IntentHint != "" {
				try.Intent = ready[i].Task.IntentHint
			}
			c, _, err := s.CreateClaim(ctx, try)
			if smriti.ErrorCode(err) == smriti.ECONFLICT {
				continue
			}
			if err != nil {
				return nil, nil, err
			}
			return c, &ready[i], nil
		}
	}
	return nil, nil, smriti.Errorf(smriti.ENOTFOUND, "No ready task: every open task is blocked or claimed")
}

// HeartbeatClaim implements coord.ReadyService.
func (s *Store) HeartbeatClaim(ctx context.Context, id smriti.ID, ttl *time.Duration) (*coord.Claim, error) {
	var out *coord.Claim
	err := s.tx(ctx, func(tx *sql.Tx) error {
		c, err := s.lockClaim(ctx, tx, id)
		if err != nil {
			return err
		}
		now := s.Now()
		if c.Status != coord.ClaimActive {
			return smriti.Errorf(smriti.ECONFLICT, "Claim is already '%s' — cannot renew.", c.Status)
		}
		if !c.ExpiresAt.After(now) {
			return smriti.Errorf(smriti.ECONFLICT, "Claim expired at %s — claim the work again.", c.ExpiresAt.Format(time.RFC3339))
		}
		d, err := s.leaseOf(ctx, tx, c)
		if err != nil {
			return err
		}
		if ttl != nil {
			d = *ttl
		}
		if d < coord.MinClaimTTL || d > coord.MaxClaimTTL {
			return smriti.Errorf(smriti.EUNPROCESSABLE, "ttl must be between 1m and 168h, got %s", d)
		}
		c.ExpiresAt = now.Add(d)
		if _, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE claims SET expires_at = ? WHERE id = ?`), s.d.T(c.ExpiresAt), id); err != nil {
			return fmt.Errorf("renew claim: %w", err)
		}
		if _, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE task_holds SET expires_at = ? WHERE claim_id = ?`), s.d.T(c.ExpiresAt), id); err != nil {
			return fmt.Errorf("renew task hold: %w", err)
		}
		out = c
		return nil
	})
	return out, err
}
