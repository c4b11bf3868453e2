package store

import (
	"context"
	"database/sql"
	"fmt"

	"smriti"
	"smriti/store/internal/dbx"
)

// bulkTriggers are SQLite's per-row triggers that a space import replaces
// by one statement each at the end of its transaction: the full-text index
// and the space's event log of checkpoints, turns and notes. The import
// writes a new space (ImportSpace refuses one that exists), so every row of
// the space is the import's own and the statements of indexImported index
// exactly those rows. Each trigger runs a statement per row (the
// checkpoint's unpacks six JSON arrays); one statement per table for the
// whole space does the same work with less of SQLite's per-statement cost.
//
// The triggers are dropped inside the import's transaction and created
// again, from the text SQLite keeps for them, before it commits: a rolled
// back import leaves them as they were, and no other writer can see the
// schema without them (SQLite has one writer; readers see the schema of
// their snapshot).
var bulkTriggers = []string{
	"checkpoints_search_insert", "checkpoints_search_update",
	"turns_search_insert", "turns_search_update", "turns_search_renumber",
	"notes_search_insert", "notes_search_update",
	"space_events_checkpoint", "space_events_turn",
}

// suspendedTriggers holds the text of the triggers an import dropped.
type suspendedTriggers struct {
	sql []string
}

// suspendRowTriggers drops bulkTriggers on SQLite (nil, nil on PostgreSQL,
// whose search vectors are generated columns and whose triggers a
// transaction cannot set aside without locking the tables).
func (s *Store) suspendRowTriggers(ctx context.Context, tx *sql.Tx) (*suspendedTriggers, error) {
	if s.d.Name != "sqlite" {
		return nil, nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN (`+
		dbx.Placeholders(len(bulkTriggers))+`) ORDER BY name`, stringArgs(bulkTriggers)...)
	if err != nil {
		return nil, fmt.Errorf("import: read triggers: %w", err)
	}
	var names []string
	st := &suspendedTriggers{}
	for rows.Next() {
		var name, text string
		if err := rows.Scan(&name, &text); err != nil {
			rows.Close()
			return nil, fmt.Errorf("import: read triggers: %w", err)
		}
		names, st.sql = append(names, name), append(st.sql, text)
	}
	if err := rows.Close(); err != nil {
		return nil, fmt.Errorf("import: read triggers: %w", err)
	}
	if len(names) != len(bulkTriggers) {
		return nil, fmt.Errorf("import: %d of the %d search and event triggers exist", len(names), len(bulkTriggers))
	}
	for _, name := range names {
		if _, err := tx.ExecContext(ctx, `DROP TRIGGER `+name); err != nil {
			return nil, fmt.Errorf("import: set trigger %s aside: %w", name, err)
		}
	}
	return st, nil
}

// The statements that do for a whole space what bulkTriggers do for a row.
// The checkpoint's search body is the trigger's: its decisions,
// assumptions, task texts, open questions, entities and artifacts'
// labels and contents, a line each.
const (
	sqlIndexCheckpoints = `INSERT INTO checkpoint_fts (rowid, message, objective, summary, body)
	SELECT c.log_pos, c.message, c.objective, c.summary,
		(SELECT group_concat(v, char(10)) FROM (
			SELECT value AS v FROM json_each(c.decisions)
			UNION ALL SELECT value FROM json_each(c.assumptions)
			UNION ALL SELECT CASE WHEN type = 'object' THEN json_extract(value, '$.text') ELSE value END FROM json_each(c.tasks)
			UNION ALL SELECT value FROM json_each(c.open_questions)
			UNION ALL SELECT value FROM json_each(c.entities)
			UNION ALL SELECT json_extract(value, '$.label') || ' ' || json_extract(value, '$.content') FROM json_each(c.artifacts)
		))
	FROM checkpoints c WHERE c.space_id = ? ORDER BY c.log_pos`
	sqlIndexTurns = `INSERT INTO turn_fts (rowid, content)
	SELECT log_pos, content FROM turns WHERE space_id = ? ORDER BY log_pos`
	sqlIndexNotes = `INSERT INTO note_fts (note_id, text)
	SELECT n.id, n.text FROM checkpoint_notes n JOIN checkpoints c ON c.id = n.checkpoint_id WHERE c.space_id = ? ORDER BY n.rowid`
	sqlEventCheckpoints = `INSERT INTO space_events (position, space_id, kind, subject_id, branch_name, created_at)
	SELECT log_pos, space_id, 'checkpoint.created', id, branch_name, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
	FROM checkpoints WHERE space_id = ?`
	sqlEventTurns = `INSERT INTO space_events (position, space_id, kind, subject_id, branch_name, created_at)
	SELECT t.log_pos, t.space_id, 'session.updated', t.session_id, s.branch_name, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
	FROM turns t JOIN sessions s ON s.id = t.session_id WHERE t.space_id = ? AND t.role = 'assistant'`
)

// restore indexes the imported space's checkpoints, turns and notes and
// records their events, as the triggers would have row by row, then
// creates the triggers again.
func (st *suspendedTriggers) restore(ctx context.Context, tx *sql.Tx, space smriti.ID) error {
	if st == nil {
		return nil
	}
	if space != (smriti.ID{}) {
		for _, q := range []string{sqlIndexCheckpoints, sqlIndexTurns, sqlIndexNotes, sqlEventCheckpoints, sqlEventTurns} {
			if _, err := tx.ExecContext(ctx, q, space); err != nil {
				return fmt.Errorf("import: index the space: %w", err)
			}
		}
	}
	for _, text := range st.sql {
		if _, err := tx.ExecContext(ctx, text); err != nil {
			return fmt.Errorf("import: restore trigger: %w", err)
		}
	}
	st.sql = nil
	return nil
}

func stringArgs(ss []string) []any {
	args := make([]any, len(ss))
	for i, s := range ss {
		args[i] = s
	}
	return args
}
