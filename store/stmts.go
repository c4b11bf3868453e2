package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"

	"smriti/store/internal/dbx"
)

// stmts holds the statements of the send path, prepared once per pool and
// reused on every connection (database/sql prepares a statement on a
// connection the first time it runs there), so a send does not pay for
// parsing its SQL again.
type stmts struct {
	mu sync.Mutex
	m  map[stmtKey]*sql.Stmt
	// wanted are the write path's queries run as text inside a
	// transaction since the last one ended, to prepare once the writer is
	// free (see writeStmt).
	wanted map[string]bool
}

// maxLazyStmts bounds the statements writeStmt prepares: its queries are
// the write path's constants (and the item inserts of a few row counts),
// so the bound is never reached; it keeps a mistake from growing the
// cache without end.
const maxLazyStmts = 256

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
		return textStmt{db, s.d.Rebind(query)}, nil
	}
	k := stmtKey{db, query}
	s.stmts.mu.Lock()
	st, ok := s.stmts.m[k]
	s.stmts.mu.Unlock()
	if ok {
		return st, nil
	}
	st, err := db.PrepareContext(ctx, s.d.Rebind(query))
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
		if _, err := s.prepared(ctx, s.write, q); err != nil {
			return err
		}
	}
	return nil
}

// txStmt is a write statement prepared at open, for use inside tx.
func (s *Store) txStmt(ctx context.Context, tx *sql.Tx, query string) (stmt, error) {
	if s.unprepared() {
		return textStmt{tx, s.d.Rebind(query)}, nil
	}
	s.stmts.mu.Lock()
	st, ok := s.stmts.m[stmtKey{s.write, query}]
	s.stmts.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("statement not prepared at open: %.40s", query)
	}
	return tx.StmtContext(ctx, st), nil
}

// writeStmt is query (a constant with ? placeholders) for use inside tx,
// prepared once and reused by every later transaction. Unlike txStmt it
// needs no preparing at open: the first transaction to run query runs its
// text and notes it, and it is prepared on the writer as soon as that
// transaction has ended (on SQLite the transaction holds the only writer
// connection, so it cannot be prepared there and then). On a
// transaction-mode pooler it is always the text.
func (s *Store) writeStmt(ctx context.Context, tx *sql.Tx, query string) stmt {
	if s.unprepared() {
		return textStmt{tx, s.d.Rebind(query)}
	}
	s.stmts.mu.Lock()
	st, ok := s.stmts.m[stmtKey{s.write, query}]
	if !ok && len(s.stmts.m)+len(s.stmts.wanted) < maxLazyStmts {
		if s.stmts.wanted == nil {
			s.stmts.wanted = map[string]bool{}
		}
		s.stmts.wanted[query] = true
	}
	s.stmts.mu.Unlock()
	if !ok {
		return textStmt{tx, s.d.Rebind(query)}
	}
	return tx.StmtContext(ctx, st)
}

// stmtOn is writeStmt inside a write transaction and query's text on
// anything else. On SQLite the write transaction is the one s.tx is
// running (there is one writer); a read transaction's connection belongs
// to the read pool, where the writer's statements cannot run.
func (s *Store) stmtOn(ctx context.Context, q querier, query string) stmt {
	if tx, ok := q.(*sql.Tx); ok && (s.read == s.write || s.writing.Load() == tx) {
		return s.writeStmt(ctx, tx, query)
	}
	return textStmt{q, s.d.Rebind(query)}
}

// prepareWanted prepares the queries writeStmt ran as text, once no
// transaction of this goroutine holds the writer. Best effort: a query
// that fails to prepare is run as text again next time (and noted again).
func (s *Store) prepareWanted(ctx context.Context) {
	s.stmts.mu.Lock()
	wanted := s.stmts.wanted
	s.stmts.wanted = nil
	s.stmts.mu.Unlock()
	for q := range wanted {
		if _, err := s.prepared(context.WithoutCancel(ctx), s.write, q); err != nil {
			s.log.DebugContext(ctx, "prepare a write statement", "err", err)
		}
	}
}

func (s *Store) closeStmts() {
	s.stmts.mu.Lock()
	defer s.stmts.mu.Unlock()
	for k, st := range s.stmts.m {
		st.Close()
		delete(s.stmts.m, k)
	}
}
