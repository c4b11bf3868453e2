package dbx

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"sync"
)

// Stmts holds the statements of the send path, prepared once per pool and
// reused on every connection (database/sql prepares a statement on a
// connection the first time it runs there), so a send does not pay for
// parsing its SQL again. Queries are written with ? placeholders.
type Stmts struct {
	d Dialect
	// unprepared: prepare nothing (a transaction-mode pooler, where a
	// statement prepared on one server connection is missing on the next).
	unprepared bool
	// write is the write pool.
	write *sql.DB
	log   *slog.Logger
	mu    sync.Mutex
	m     map[stmtKey]*sql.Stmt
	// wanted are the write path's queries run as text inside a
	// transaction since the last one ended, to prepare once the writer is
	// free (see WriteStmt).
	wanted map[string]bool
}

// NewStmts is an empty cache for the engine d, its write pool write; with
// unprepared it prepares nothing.
func NewStmts(d Dialect, unprepared bool, write *sql.DB, log *slog.Logger) *Stmts {
	return &Stmts{d: d, unprepared: unprepared, write: write, log: log}
}

// maxLazyStmts bounds the statements WriteStmt prepares: its queries are
// the write path's constants (and the item inserts of a few row counts),
// so the bound is never reached; it keeps a mistake from growing the
// cache without end.
const maxLazyStmts = 256

// Stmt is a prepared statement, or on a transaction-mode pooler (where a
// statement prepared on one server connection is missing on the next) the
// query text run as it is.
type Stmt interface {
	QueryRowContext(ctx context.Context, args ...any) *sql.Row
	QueryContext(ctx context.Context, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, args ...any) (sql.Result, error)
}

// TextStmt runs Query on Q without preparing it.
type TextStmt struct {
	Q     Querier
	Query string
}

// Querier is what both *sql.DB and *sql.Tx offer.
type Querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func (t TextStmt) QueryRowContext(ctx context.Context, args ...any) *sql.Row {
	return t.Q.QueryRowContext(ctx, t.Query, args...)
}

func (t TextStmt) QueryContext(ctx context.Context, args ...any) (*sql.Rows, error) {
	return t.Q.QueryContext(ctx, t.Query, args...)
}

func (t TextStmt) ExecContext(ctx context.Context, args ...any) (sql.Result, error) {
	return t.Q.ExecContext(ctx, t.Query, args...)
}

type stmtKey struct {
	db    *sql.DB
	query string
}

// Prepared returns query (written with ? placeholders) prepared on db. The
// lock is not held while preparing: preparing waits for a pooled
// connection, and on PostgreSQL the transactions holding every connection
// may be waiting for the lock in TxStmt — a deadlock no database detects.
// Two callers may then prepare the same query at once; the second keeps the
// first's statement.
func (s *Stmts) Prepared(ctx context.Context, db *sql.DB, query string) (Stmt, error) {
	if s.unprepared {
		return TextStmt{db, s.d.Rebind(query)}, nil
	}
	k := stmtKey{db, query}
	s.mu.Lock()
	st, ok := s.m[k]
	s.mu.Unlock()
	if ok {
		return st, nil
	}
	st, err := db.PrepareContext(ctx, s.d.Rebind(query))
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if first, ok := s.m[k]; ok {
		st.Close()
		return first, nil
	}
	if s.m == nil {
		s.m = map[stmtKey]*sql.Stmt{}
	}
	s.m[k] = st
	return st, nil
}

// TxStmt is a write statement prepared before (see Prepared on the write
// pool), for use inside tx.
func (s *Stmts) TxStmt(ctx context.Context, tx *sql.Tx, query string) (Stmt, error) {
	if s.unprepared {
		return TextStmt{tx, s.d.Rebind(query)}, nil
	}
	s.mu.Lock()
	st, ok := s.m[stmtKey{s.write, query}]
	s.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("statement not prepared at open: %.40s", query)
	}
	return tx.StmtContext(ctx, st), nil
}

// WriteStmt is query (a constant with ? placeholders) for use inside tx,
// prepared once and reused by every later transaction. Unlike txStmt it
// needs no preparing before: the first transaction to run query runs its
// text and notes it, and it is prepared on the writer as soon as that
// transaction has ended (on SQLite the transaction holds the only writer
// connection, so it cannot be prepared there and then). On a
// transaction-mode pooler it is always the text.
func (s *Stmts) WriteStmt(ctx context.Context, tx *sql.Tx, query string) Stmt {
	if s.unprepared {
		return TextStmt{tx, s.d.Rebind(query)}
	}
	s.mu.Lock()
	st, ok := s.m[stmtKey{s.write, query}]
	if !ok && len(s.m)+len(s.wanted) < maxLazyStmts {
		if s.wanted == nil {
			s.wanted = map[string]bool{}
		}
		s.wanted[query] = true
	}
	s.mu.Unlock()
	if !ok {
		return TextStmt{tx, s.d.Rebind(query)}
	}
	return tx.StmtContext(ctx, st)
}

// PrepareWanted prepares the queries WriteStmt ran as text, once no
// transaction of this goroutine holds the writer. Best effort: a query
// that fails to prepare is run as text again next time (and noted again).
func (s *Stmts) PrepareWanted(ctx context.Context) {
	s.mu.Lock()
	wanted := s.wanted
	s.wanted = nil
	s.mu.Unlock()
	for q := range wanted {
		if _, err := s.Prepared(context.WithoutCancel(ctx), s.write, q); err != nil {
			s.log.DebugContext(ctx, "prepare a write statement", "err", err)
		}
	}
}

// Close closes the prepared statements.
func (s *Stmts) Close() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, st := range s.m {
		st.Close()
		delete(s.m, k)
	}
}

// QueryAll runs query (written with ? placeholders) and scans every row with scan; what names the list
// in errors. The result is never nil.
func QueryAll[T any](ctx context.Context, d Dialect, q Querier, what string, scan func(interface{ Scan(...any) error }) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, d.Rebind(query), args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}
