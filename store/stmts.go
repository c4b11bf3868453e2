package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
)

// stmts holds the statements of the send path, prepared once per pool and
// reused on every connection (database/sql prepares a statement on a
// connection the first time it runs there), so a send does not pay for
// parsing its SQL again.
type stmts struct {
	mu sync.Mutex
	m  map[stmtKey]*sql.Stmt
}

// stmt is a prepared statement, or on a transaction-mode pooler (where a
// statement prepared on one server connection is missing on the next) the
// query text run as it is.
type stmt interface {
	QueryRowContext(ctx context.Context, args ...any) *sql.Row
	QueryContext(ctx context.Context, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, args ...any) (sql.Result, error)
}

// textStmt runs query on q without preparing it.
type textStmt struct {
	q     querier
	query string
}

func (t textStmt) QueryRowContext(ctx context.Context, args ...any) *sql.Row {
	return t.q.QueryRowContext(ctx, t.query, args...)
}

func (t textStmt) QueryContext(ctx context.Context, args ...any) (*sql.Rows, error) {
	return t.q.QueryContext(ctx, t.query, args...)
}

func (t textStmt) ExecContext(ctx context.Context, args ...any) (sql.Result, error) {
	return t.q.ExecContext(ctx, t.query, args...)
}

// unprepared: the store prepares nothing (a transaction-mode pooler).
func (s *Store) unprepared() bool { return s.opts.Pooler == PoolerTransaction }

type stmtKey struct {
	db    *sql.DB
	query string
}

// prepared returns query (written with ? placeholders) prepared on db. The
// lock is not held while preparing: preparing waits for a pooled
// connection, and on PostgreSQL the transactions holding every connection
// may be waiting for the lock in txStmt — a deadlock no database detects.
// Two callers may then prepare the same query at once; the second keeps the
// first's statement.
func (s *Store) prepared(ctx context.Context, db *sql.DB, query string) (stmt, error) {
	if s.unprepared() {
		return textStmt{db, s.d.rebind(query)}, nil
	}
	k := stmtKey{db, query}
	s.stmts.mu.Lock()
	st, ok := s.stmts.m[k]
	s.stmts.mu.Unlock()
	if ok {
		return st, nil
	}
	st, err := db.PrepareContext(ctx, s.d.rebind(query))
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	s.stmts.mu.Lock()
	defer s.stmts.mu.Unlock()
	if first, ok := s.stmts.m[k]; ok {
		st.Close()
		return first, nil
	}
	if s.stmts.m == nil {
		s.stmts.m = map[stmtKey]*sql.Stmt{}
	}
	s.stmts.m[k] = st
	return st, nil
}

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
	return sqlInsertTurnsHead + strings.TrimSuffix(strings.Repeat("("+placeholders(13)+"), ", 2*pairs), ", ")
}

func (s *Store) prepareWrites(ctx context.Context) error {
	if s.unprepared() {
		return nil
	}
	qs := []string{sqlBumpSession, sqlNextLogPos}
	if s.d.spaceLog {
		qs[1] = sqlNextSpaceLogPos
	}
	for n := 1; n <= maxInsertPairs; n *= 2 {
		qs = append(qs, sqlInsertTurns(n))
	}
	for _, q := range qs {
		if _, err := s.prepared(ctx, s.write, q); err != nil {
			return err
		}
	}
	return nil
}

// txStmt is a write statement prepared at open, for use inside tx.
func (s *Store) txStmt(ctx context.Context, tx *sql.Tx, query string) (stmt, error) {
	if s.unprepared() {
		return textStmt{tx, s.d.rebind(query)}, nil
	}
	s.stmts.mu.Lock()
	st, ok := s.stmts.m[stmtKey{s.write, query}]
	s.stmts.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("statement not prepared at open: %.40s", query)
	}
	return tx.StmtContext(ctx, st), nil
}

func (s *Store) closeStmts() {
	s.stmts.mu.Lock()
	defer s.stmts.mu.Unlock()
	for k, st := range s.stmts.m {
		st.Close()
		delete(s.stmts.m, k)
	}
}
