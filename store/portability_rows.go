package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"smriti"
	"smriti/internal/textutil"
	"smriti/records"
	"smriti/store/internal/dbx"
)

// The rows of a space that a bundle carries beside its checkpoints and
// turns, so a backup restores them: the log order of checkpoints and turns,
// agent transcript sources, claims' ends and task holds.

// logOrder is a space's checkpoint and turn log positions, ascending.
type logOrder []int64

// logOrder reads the log positions of the space's checkpoints and of the
// turns of its shared sessions (a private session's turns are not exported).
func (s *Store) logOrder(ctx context.Context, tx *sql.Tx, space smriti.ID) (logOrder, error) {
	rows, err := tx.QueryContext(ctx, s.d.Rebind(`SELECT log_pos FROM checkpoints WHERE space_id = ?
		UNION ALL SELECT t.log_pos FROM turns t JOIN sessions se ON se.id = t.session_id WHERE se.space_id = ? AND NOT se.private`), space, space)
	if err != nil {
		return nil, fmt.Errorf("export: log order: %w", err)
	}
	defer rows.Close()
	var out logOrder
	for rows.Next() {
		var p sql.NullInt64
		if err := rows.Scan(&p); err != nil {
			return nil, fmt.Errorf("export: log order: %w", err)
		}
		if p.Valid {
			out = append(out, p.Int64)
		}
	}
	slices.Sort(out)
	return out, rows.Err()
}

// of is pos's place in the order (nil when pos is not in it).
func (o logOrder) of(pos int64) *int64 {
	i, ok := slices.BinarySearch(o, pos)
	if !ok {
		return nil
	}
	n := int64(i)
	return &n
}

// agentSources reads the agent transcript source of each session of the
// space that has one.
func (s *Store) agentSources(ctx context.Context, tx *sql.Tx, space smriti.ID) (map[smriti.ID]*records.BundleAgentSource, error) {
	rows, err := tx.QueryContext(ctx, s.d.Rebind(`SELECT a.session_id, a.source, a.session_key, a.created_at, e.entry_key
		FROM agent_sessions a LEFT JOIN agent_entries e ON e.session_id = a.session_id
		WHERE a.space_id = ? ORDER BY a.session_id, e.entry_key`), space)
	if err != nil {
		return nil, fmt.Errorf("export: agent sessions: %w", err)
	}
	defer rows.Close()
	out := map[smriti.ID]*records.BundleAgentSource{}
	for rows.Next() {
		var id smriti.ID
		var src, key string
		var created dbx.Time
		var entry sql.NullString
		if err := rows.Scan(&id, &src, &key, &created, &entry); err != nil {
			return nil, fmt.Errorf("export: agent sessions: %w", err)
		}
		a := out[id]
		if a == nil {
			a = &records.BundleAgentSource{Source: src, SessionKey: key, CreatedAt: created.Time.UTC(), EntryKeys: []string{}}
			out[id] = a
		}
		if entry.Valid {
			a.EntryKeys = append(a.EntryKeys, entry.String)
		}
	}
	return out, rows.Err()
}

type claimEnd struct {
	finished *time.Time
	lease    *int64
}

// claimEnds reads when each claim of the space finished and its lease.
func (s *Store) claimEnds(ctx context.Context, tx *sql.Tx, space smriti.ID) (map[smriti.ID]claimEnd, error) {
	rows, err := tx.QueryContext(ctx, s.d.Rebind(`SELECT id, finished_at, lease_seconds FROM claims WHERE space_id = ?`), space)
	if err != nil {
		return nil, fmt.Errorf("export: claims: %w", err)
	}
	defer rows.Close()
	out := map[smriti.ID]claimEnd{}
	for rows.Next() {
		var id smriti.ID
		var finished dbx.Time
		var lease sql.NullInt64
		if err := rows.Scan(&id, &finished, &lease); err != nil {
			return nil, fmt.Errorf("export: claims: %w", err)
		}
		out[id] = claimEnd{finished: dbx.OptTime(finished), lease: nullInt(lease)}
	}
	return out, rows.Err()
}

// importAgentSource writes a session's agent transcript source.
func (s *Store) importAgentSource(ctx context.Context, tx *sql.Tx, space, session smriti.ID, a *records.BundleAgentSource) error {
	if !records.ValidAgentFormat(a.Source) {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "session %s: unknown transcript format %q", session, textutil.Truncate(a.Source, 40))
	}
	if _, err := tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO agent_sessions (space_id, source, session_key, session_id, created_at) VALUES (?, ?, ?, ?, ?)`),
		space, a.Source, a.SessionKey, session, s.d.T(a.CreatedAt)); err != nil {
		return importConflict(fmt.Errorf("import agent session: %w", err))
	}
	for _, k := range a.EntryKeys {
		if _, err := tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO agent_entries (session_id, entry_key) VALUES (?, ?) ON CONFLICT DO NOTHING`), session, k); err != nil {
			return fmt.Errorf("import agent entry: %w", err)
		}
	}
	return nil
}

// restoreHolds gives each task of the space that a claim names the hold of
// its newest such claim (a claim is only made when it gets the hold):
// until the claim expires while it is active, until it finished otherwise.
func (s *Store) restoreHolds(ctx context.Context, tx *sql.Tx, space smriti.ID) error {
	_, err := tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO task_holds (space_id, task_id, claim_id, expires_at)
		SELECT cl.space_id, cl.task_id, cl.id, CASE WHEN cl.status = 'active' OR cl.finished_at IS NULL THEN cl.expires_at ELSE cl.finished_at END
		FROM claims cl WHERE cl.space_id = ? AND cl.task_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM claims o
			WHERE o.space_id = cl.space_id AND o.task_id = cl.task_id AND (o.claimed_at > cl.claimed_at OR (o.claimed_at = cl.claimed_at AND o.id > cl.id)))`), space)
	if err != nil {
		return fmt.Errorf("import: task holds: %w", err)
	}
	return nil
}
