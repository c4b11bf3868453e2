package store

import (
	"context"
	"database/sql"
	"fmt"
	"smriti/coord"
	"time"

	"smriti"
	"smriti/store/internal/dbx"
)

// leaseOf is a claim's lease length: the one it was made with, or, for a
// claim made before lease_seconds was recorded, expires_at - claimed_at.
func (s *Store) leaseOf(ctx context.Context, q dbx.Querier, c *coord.Claim) (time.Duration, error) {
	var secs sql.NullInt64
	if err := q.QueryRowContext(ctx, s.d.Rebind(`SELECT lease_seconds FROM claims WHERE id = ?`), c.ID).Scan(&secs); err != nil {
		return 0, fmt.Errorf("claim lease: %w", err)
	}
	if secs.Valid && secs.Int64 > 0 {
		return time.Duration(secs.Int64) * time.Second, nil
	}
	return c.ExpiresAt.Sub(c.ClaimedAt), nil
}

// renewHolderClaims is the lease renewal by a write of the holder: every
// live claim of the space made from the writing session, or by the writing
// agent, runs its lease again from now (never shortening it), its task
// hold with it.
func (s *Store) renewHolderClaims(ctx context.Context, tx *sql.Tx, space, session smriti.ID, agent *string, now time.Time) error {
	var sessionArg any
	if session != smriti.NilID {
		sessionArg = session
	}
	agentArg := ""
	if agent != nil {
		agentArg = *agent
	}
	if sessionArg == nil && agentArg == "" {
		return nil
	}
	rows, err := s.stmts.WriteStmt(ctx, tx, `SELECT id, claimed_at, expires_at, lease_seconds FROM claims
		WHERE space_id = ? AND status = 'active' AND expires_at > ? AND (session_id = ? OR (agent = ? AND agent <> ''))`).QueryContext(ctx,
		space, s.d.T(now), sessionArg, agentArg)
	if err != nil {
		return fmt.Errorf("holder claims: %w", err)
	}
	type renewal struct {
		id      smriti.ID
		expires time.Time
	}
	var due []renewal
	for rows.Next() {
		var id smriti.ID
		var claimed, expires dbx.Time
		var secs sql.NullInt64
		if err := rows.Scan(&id, &claimed, &expires, &secs); err != nil {
			rows.Close()
			return fmt.Errorf("holder claims: %w", err)
		}
		lease := expires.Time.Sub(claimed.Time)
		if secs.Valid && secs.Int64 > 0 {
			lease = time.Duration(secs.Int64) * time.Second
		}
		if next := now.Add(lease); next.After(expires.Time) {
			due = append(due, renewal{id, next})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("holder claims: %w", err)
	}
	for _, r := range due {
		if _, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE claims SET expires_at = ? WHERE id = ?`), s.d.T(r.expires), r.id); err != nil {
			return fmt.Errorf("renew claim: %w", err)
		}
		if _, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE task_holds SET expires_at = ? WHERE claim_id = ?`), s.d.T(r.expires), r.id); err != nil {
			return fmt.Errorf("renew task hold: %w", err)
		}
	}
	return nil
}
