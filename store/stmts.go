package store

import (
	"context"
	"database/sql"
	"strings"

	"smriti/store/internal/dbx"
)

// unprepared: the store prepares nothing (a transaction-mode pooler).
func (s *Store) unprepared() bool { return s.opts.Pooler == PoolerTransaction }

// The write statements of a send, prepared when the store opens: on SQLite
// the write pool is one connection, which a transaction holds, so they
// cannot be prepared on first use inside one.
const (
	sqlBumpSession = `UPDATE sessions SET last_seq = last_seq + ?, token_total = token_total + ?,
	active_provider = COALESCE(?, active_provider), active_model = COALESCE(?, active_model), updated_at = ? WHERE id = ? AND ` + sessionWritable + ` RETURNING last_seq, token_total, space_id`
	sqlInsertTurnsHead = `INSERT INTO turns (id, session_id, space_id, role, content, provider, model,
	sequence_number, log_pos, tokens, token_total, metadata, created_at) VALUES `
	sqlNextLogPos      = `UPDATE store_log SET position = position + ? WHERE id = 1 RETURNING position`
	sqlNextSpaceLogPos = `UPDATE space_log SET position = position + ? WHERE space_id = ? RETURNING position`
)

// maxInsertPairs is the most exchanges one prepared insert writes; inserts
// of 1, 2, 4 … maxInsertPairs exchanges are prepared.
const maxInsertPairs = 16

// sqlInsertTurns inserts the turns of pairs exchanges (two rows each).
func sqlInsertTurns(pairs int) string {
	return sqlInsertTurnsHead + strings.TrimSuffix(strings.Repeat("("+dbx.Placeholders(13)+"), ", 2*pairs), ", ")
}

func (s *Store) prepareWrites(ctx context.Context) error {
	if s.unprepared() {
		return nil
	}
	qs := []string{sqlBumpSession, sqlNextLogPos}
	if s.d.SpaceLog {
		qs[1] = sqlNextSpaceLogPos
	}
	for n := 1; n <= maxInsertPairs; n *= 2 {
		qs = append(qs, sqlInsertTurns(n))
	}
	for _, q := range qs {
		if _, err := s.stmts.Prepared(ctx, s.write, q); err != nil {
			return err
		}
	}
	return nil
}

// stmtOn is dbx.Stmts.WriteStmt inside a write transaction and query's text on
// anything else. On SQLite the write transaction is the one s.tx is
// running (there is one writer); a read transaction's connection belongs
// to the read pool, where the writer's statements cannot run.
func (s *Store) stmtOn(ctx context.Context, q dbx.Querier, query string) dbx.Stmt {
	if tx, ok := q.(*sql.Tx); ok && (s.read == s.write || s.writing.Load() == tx) {
		return s.stmts.WriteStmt(ctx, tx, query)
	}
	return dbx.TextStmt{Q: q, Query: s.d.Rebind(query)}
}
