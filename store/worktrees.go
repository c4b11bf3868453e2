package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"smriti/account"
	"smriti/coord"
	"strings"
	"time"

	"smriti"
	"smriti/store/internal/dbx"
)

var _ coord.WorktreeStore = (*Store)(nil)

const worktreeCols = `w.id, w.space_id, w.agent, w.path, w.branch_name, w.base_commit_sha, w.status, w.created_at, w.closed_at`

// visibleWorktree scopes worktrees to the caller through their space.
const visibleWorktree = ` FROM worktrees w JOIN spaces sp ON sp.id = w.space_id WHERE sp.id` + memberSpace

func scanWorktree(row interface{ Scan(...any) error }) (*coord.Worktree, error) {
	var w coord.Worktree
	var base sql.NullString
	var created, closed dbx.Time
	if err := row.Scan(&w.ID, &w.SpaceID, &w.Agent, &w.Path, &w.BranchName, &base, &w.Status, &created, &closed); err != nil {
		return nil, err
	}
	w.BaseCommitSHA, w.CreatedAt = nullStr(base), created.Time
	if !closed.IsZero() {
		t := closed.Time
		w.ClosedAt = &t
	}
	return &w, nil
}

func (s *Store) queryWorktrees(ctx context.Context, query string, args ...any) ([]*coord.Worktree, error) {
	return dbx.QueryAll(ctx, s.d, s.read, "list worktrees", scanWorktree, query, args...)
}

// InsertWorktree implements coord.WorktreeStore.
func (s *Store) InsertWorktree(ctx context.Context, w *coord.Worktree) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.requireRole(ctx, tx, w.SpaceID, account.NeedWrite); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO worktrees (id, space_id, agent, path, branch_name, base_commit_sha, status, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`), w.ID, w.SpaceID, w.Agent, w.Path, w.BranchName, w.BaseCommitSHA, w.Status, s.d.T(w.CreatedAt))
		if err != nil {
			return fmt.Errorf("insert worktree: %w", err)
		}
		return nil
	})
}

// ListWorktrees implements coord.WorktreeStore.
func (s *Store) ListWorktrees(ctx context.Context, spaceID smriti.ID, includeClosed bool) ([]*coord.Worktree, error) {
	if _, err := s.space(ctx, s.read, spaceID); err != nil {
		return nil, err
	}
	q := `SELECT ` + worktreeCols + visibleWorktree + ` AND w.space_id = ?`
	if !includeClosed {
		q += ` AND w.status = 'active'`
	}
	return s.queryWorktrees(ctx, q+` ORDER BY w.created_at DESC, w.id DESC LIMIT ?`, smriti.UserFromContext(ctx), spaceID, smriti.ListCap)
}

// WorktreesByPrefix implements coord.WorktreeStore.
func (s *Store) WorktreesByPrefix(ctx context.Context, prefix string, limit int) ([]*coord.Worktree, error) {
	prefix = strings.ToLower(prefix)
	if strings.ContainsAny(prefix, `%_\`) {
		return []*coord.Worktree{}, nil
	}
	return s.queryWorktrees(ctx, `SELECT `+worktreeCols+visibleWorktree+` AND CAST(w.id AS TEXT) LIKE ?
		ORDER BY w.created_at DESC, w.id DESC LIMIT ?`, smriti.UserFromContext(ctx), prefix+"%", limit)
}

// MarkWorktreeClosed implements coord.WorktreeStore.
func (s *Store) MarkWorktreeClosed(ctx context.Context, id smriti.ID, at time.Time) (*coord.Worktree, error) {
	var out *coord.Worktree
	err := s.tx(ctx, func(tx *sql.Tx) error {
		w, err := scanWorktree(tx.QueryRowContext(ctx, s.d.Rebind(`SELECT `+worktreeCols+visibleWorktree+` AND w.id = ?`+forUpdateOf(s.d, "w")),
			smriti.UserFromContext(ctx), id))
		if errors.Is(err, sql.ErrNoRows) {
			return smriti.Errorf(smriti.ENOTFOUND, "Worktree not found")
		}
		if err != nil {
			return fmt.Errorf("get worktree: %w", err)
		}
		if err := s.requireRole(ctx, tx, w.SpaceID, account.NeedWrite); err != nil {
			return err
		}
		if w.Status == coord.WorktreeClosed {
			return smriti.Errorf(smriti.ECONFLICT, "Worktree is already closed")
		}
		if _, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE worktrees SET status = ?, closed_at = ? WHERE id = ?`),
			coord.WorktreeClosed, s.d.T(at), id); err != nil {
			return fmt.Errorf("close worktree: %w", err)
		}
		if _, err := tx.ExecContext(ctx, s.d.Rebind(`DELETE FROM worktree_probes WHERE worktree_id = ?`), id); err != nil {
			return fmt.Errorf("close worktree: %w", err)
		}
		w.Status, w.ClosedAt = coord.WorktreeClosed, &at
		out = w
		return nil
	})
	return out, err
}

// ProbesSince implements coord.WorktreeStore.
func (s *Store) ProbesSince(ctx context.Context, ids []smriti.ID, since time.Time) (map[smriti.ID]*coord.CachedProbe, error) {
	out := map[smriti.ID]*coord.CachedProbe{}
	if len(ids) == 0 {
		return out, nil
	}
	args := []any{s.d.T(since)}
	for _, id := range ids {
		args = append(args, id)
	}
	rows, err := s.read.QueryContext(ctx, s.d.Rebind(`SELECT worktree_id, probe, error, probed_at FROM worktree_probes
		WHERE probed_at >= ? AND worktree_id IN (`+dbx.Placeholders(len(ids))+`)`), args...)
	if err != nil {
		return nil, fmt.Errorf("read probes: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var p coord.CachedProbe
		var probed dbx.Time
		if err := rows.Scan(&p.WorktreeID, dbx.JSONCol{Dst: &p.Probe}, &p.Error, &probed); err != nil {
			return nil, fmt.Errorf("read probes: %w", err)
		}
		p.ProbedAt = probed.Time
		out[p.WorktreeID] = &p
	}
	return out, rows.Err()
}

// SaveProbe implements coord.WorktreeStore.
func (s *Store) SaveProbe(ctx context.Context, p *coord.CachedProbe) error {
	var probe any
	if p.Probe != nil {
		j, err := dbx.JSONArg(p.Probe)
		if err != nil {
			return err
		}
		probe = j
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO worktree_probes (worktree_id, probe, error, probed_at)
			VALUES (?, ?, ?, ?)
			ON CONFLICT (worktree_id) DO UPDATE SET probe = excluded.probe, error = excluded.error, probed_at = excluded.probed_at`),
			p.WorktreeID, probe, p.Error, s.d.T(p.ProbedAt))
		if err != nil {
			return fmt.Errorf("save probe: %w", err)
		}
		return nil
	})
}

// ResolveProjectRoot implements coord.WorktreeStore.
func (s *Store) ResolveProjectRoot(ctx context.Context, spaceID smriti.ID) (string, bool, error) {
	sp, err := s.space(ctx, s.read, spaceID)
	if err != nil {
		return "", false, err
	}
	if sp.ProjectRoot != nil && strings.TrimSpace(*sp.ProjectRoot) != "" {
		return strings.TrimSpace(*sp.ProjectRoot), true, nil
	}
	var root string
	err = s.read.QueryRowContext(ctx, s.d.Rebind(`SELECT project_root FROM checkpoints WHERE space_id = ?
		AND project_root IS NOT NULL AND project_root <> '' ORDER BY log_pos DESC LIMIT 1`), spaceID).Scan(&root)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("project root: %w", err)
	}
	return strings.TrimSpace(root), false, nil
}
