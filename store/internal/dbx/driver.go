package dbx

import (
	"context"
	"database/sql/driver"
	"errors"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// After a failover every pooled connection points at a server that is gone,
// and each one only finds out when it is next used. The store keeps those
// dead connections away from requests three ways:
//
//   - BEGIN on a broken connection, and a SELECT (which changes nothing)
//     whose connection broke, are reported to database/sql as a bad
//     connection, and database/sql tries again: twice on pooled
//     connections, then on a new one. pgx does the same for any statement
//     that failed before it was sent (pgconn.SafeToRetry). Inside a
//     transaction the bad connection ends the transaction, which the next
//     point runs again.
//   - A transaction whose connection broke before its COMMIT was sent cannot
//     have committed (the server rolls it back when the connection ends):
//     it is run once more, at once, on a fresh connection, after the idle
//     connections (all suspect) are closed. A broken COMMIT is never re-run;
//     it is looked up (see Ambiguous).
//   - Any connection-class failure the store reports closes the idle
//     connections, so the next requests connect afresh.
//
// A wait for a pooled connection is bounded (Options.AcquireTimeout): a
// pool held by transactions stuck on the database answers ETRYAGAIN (503)
// instead of queueing requests until their clients give up.

// Connector wraps pgx's, so the store's connections report a broken BEGIN
// as a bad connection and a new connection is noticed.
type Connector struct {
	driver.Connector
	// OnConnect, when set, is called on each new connection.
	OnConnect func()
}

func (c Connector) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if c.OnConnect != nil {
		c.OnConnect()
	}
	pc, ok := dc.(*stdlib.Conn)
	if !ok {
		return dc, nil
	}
	return &Conn{Conn: pc}, nil
}

// Conn is a pgx connection whose BEGIN retries elsewhere when the
// connection is broken.
type Conn struct{ *stdlib.Conn }

func (c *Conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	tx, err := c.Conn.BeginTx(ctx, opts)
	if err != nil && ctx.Err() == nil && BrokenConn(err) {
		return nil, driver.ErrBadConn
	}
	return tx, err
}

func (c *Conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	rows, err := c.Conn.QueryContext(ctx, query, args)
	if err != nil && ctx.Err() == nil && readOnly(query) && BrokenConn(err) {
		return nil, driver.ErrBadConn
	}
	return rows, err
}

func (c *Conn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	st, err := c.Conn.PrepareContext(ctx, query)
	if err != nil {
		if ctx.Err() == nil && BrokenConn(err) {
			return nil, driver.ErrBadConn // nothing runs in a prepare
		}
		return nil, err
	}
	ps, ok := st.(*stdlib.Stmt)
	if !ok || !readOnly(query) {
		return st, nil
	}
	return &readStmt{Stmt: ps}, nil
}

// readStmt is a prepared SELECT: run again elsewhere when its connection
// broke.
type readStmt struct{ *stdlib.Stmt }

func (s *readStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	rows, err := s.Stmt.QueryContext(ctx, args)
	if err != nil && ctx.Err() == nil && BrokenConn(err) {
		return nil, driver.ErrBadConn
	}
	return rows, err
}

// readOnly reports whether query only reads: a SELECT, or a WITH query
// without a data-modifying part. (The store's own SELECTs call no function
// that writes.)
func readOnly(query string) bool {
	q := strings.TrimLeft(query, " \t\r\n(")
	if len(q) < 6 {
		return false
	}
	switch strings.ToUpper(q[:4]) {
	case "SELE":
		return strings.EqualFold(q[:6], "SELECT")
	case "WITH":
		u := strings.ToUpper(q)
		return !strings.Contains(u, "INSERT") && !strings.Contains(u, "UPDATE") && !strings.Contains(u, "DELETE")
	}
	return false
}

// BrokenConn reports whether err says the connection itself is unusable —
// closed, reset, refused, or on a server that is shutting down or no longer
// writable — so that another connection may well succeed at once. A
// timeout is not: a server that does not answer one connection in time is
// unlikely to answer the next sooner.
func BrokenConn(err error) bool {
	if err == nil {
		return false
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch pg.Code {
		case "57P01", "57P02", "57P03", "25006":
			return true
		}
		return len(pg.Code) == 5 && pg.Code[:2] == "08"
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return false
	}
	return ConnectionClass(err)
}

// FreshRetry reports whether a failed transaction may be run once more on a
// fresh connection: its connection broke, and not in COMMIT.
func FreshRetry(ctx context.Context, err error) bool {
	return ctx.Err() == nil && !Ambiguous(err) && BrokenConn(err)
}

// CommitError is an error from COMMIT itself: the transaction may or may
// not have committed.
type CommitError struct{ Err error }

func (e *CommitError) Error() string { return "commit: " + e.Err.Error() }
func (e *CommitError) Unwrap() error { return e.Err }

// Ambiguous reports whether err came from COMMIT, so the write may be
// stored.
func Ambiguous(err error) bool {
	var ce *CommitError
	return errors.As(err, &ce)
}

// Retryable reports whether err is a PostgreSQL serialization failure or
// deadlock, after which the transaction may simply run again.
func Retryable(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code == "40001" || pg.Code == "40P01"
	}
	return false
}
