package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"smriti/store/internal/dbx"
)

// Options tune how the store uses a PostgreSQL server. The zero value is
// the defaults; SQLite ignores them.
type Options struct {
	// MaxConns bounds the pool's open connections (DefaultMaxConns when 0).
	MaxConns int
	// MaxConnLifetime closes a connection this long after it opened, so a
	// pool spreads over the servers a proxy routes to (0: never).
	MaxConnLifetime time.Duration
	// Timeout is the longest the store waits on the database for one answer
	// (DefaultTimeout when 0; negative: no bound). A statement the server
	// runs longer is cancelled by statement_timeout, set slightly below it;
	// a server that stops answering at all (frozen, or a network gone
	// quiet) breaks the connection when it passes. Either way the caller
	// gets a smriti.ETRYAGAIN error, and a write whose COMMIT was cut short
	// is looked up before it is reported (see groupcommit.go).
	Timeout time.Duration
	// Pooler is "" (or "session") for a direct connection or a
	// session-mode pooler, or "transaction" for a transaction-mode pooler
	// (pgbouncer's pool_mode=transaction, Supabase's and Neon's poolers):
	// the store then prepares no statements of its own, speaks the simple
	// query protocol, sends no start-up parameters and takes only
	// transaction-level advisory locks.
	Pooler string
	// AcquireTimeout bounds a transaction's wait for a pooled connection
	// (DefaultAcquireTimeout when 0; negative: no bound): past it the write
	// fails with smriti.ETRYAGAIN.
	AcquireTimeout time.Duration
	// WaitFor is how long Open keeps trying to reach a database that does
	// not answer yet, with backoff, before it gives up (0: one try).
	WaitFor time.Duration
}

// Defaults of Options.
const (
	DefaultMaxConns = 20
	DefaultTimeout  = 10 * time.Second
)

// PoolerTransaction names a transaction-mode pooler in Options.Pooler.
const PoolerTransaction = "transaction"

func (o Options) maxConns() int {
	if o.MaxConns > 0 {
		return o.MaxConns
	}
	return DefaultMaxConns
}

func (o Options) timeout() time.Duration {
	switch {
	case o.Timeout < 0:
		return 0
	case o.Timeout == 0:
		return DefaultTimeout
	}
	return o.Timeout
}

// Validate reports options that cannot work.
func (o Options) Validate() error {
	switch o.Pooler {
	case "", "session", PoolerTransaction:
	default:
		return fmt.Errorf("unknown pooler mode %q: use session or transaction", o.Pooler)
	}
	if o.MaxConns < 0 {
		return fmt.Errorf("the pool needs at least one connection, not %d", o.MaxConns)
	}
	if o.MaxConnLifetime < 0 || o.WaitFor < 0 {
		return errors.New("durations must be 0 or more")
	}
	return nil
}

// openPostgres opens the pool for a postgres:// URL.
func openPostgres(dsn string, o Options, onConnect func()) (*sql.DB, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("parse postgres url: %w", err)
	}
	timeout := o.timeout()
	if timeout > 0 {
		if cfg.ConnectTimeout == 0 || cfg.ConnectTimeout > timeout {
			cfg.ConnectTimeout = timeout
		}
		dial := cfg.DialFunc
		cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dial(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return &stallConn{Conn: c, stall: timeout}, nil
		}
	}
	if o.Pooler == PoolerTransaction {
		// A transaction pooler hands each transaction (and each statement
		// outside one) to whichever server connection is free: a named
		// statement prepared on one is missing on the next, and start-up
		// parameters are refused or lost.
		cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
		cfg.StatementCacheCapacity = 0
		cfg.DescriptionCacheCapacity = 0
	} else if timeout > 0 {
		if _, set := cfg.RuntimeParams["statement_timeout"]; !set {
			// Below the store's own bound, so the server cancels a long
			// statement cleanly before the connection is given up.
			cfg.RuntimeParams["statement_timeout"] = strconv.FormatInt(max(1, (timeout*9/10).Milliseconds()), 10)
		}
	}
	var opts []stdlib.OptionOpenDB
	if o.Pooler != PoolerTransaction {
		// The simple protocol sends every argument as text, from Value.
		opts = append(opts, stdlib.OptionAfterConnect(dbx.WrapUUIDs))
	}
	db := sql.OpenDB(dbx.Connector{Connector: stdlib.GetConnector(*cfg, opts...), OnConnect: onConnect})
	// Connections stay open through bursts (a new one is a new server
	// process); ConnMaxIdleTime closes them after a quiet spell.
	db.SetMaxOpenConns(o.maxConns())
	db.SetMaxIdleConns(o.maxConns())
	db.SetConnMaxIdleTime(5 * time.Minute)
	db.SetConnMaxLifetime(o.MaxConnLifetime)
	return db, nil
}

// stallConn bounds every wait for the server's answer: a read that gets no
// byte for stall fails with a timeout, which breaks the connection (pgx
// closes it) instead of leaving the request waiting on a frozen server.
// pgx sets its own deadlines to cancel a query when its context ends; the
// earlier of the two applies.
type stallConn struct {
	net.Conn
	stall time.Duration
	mu    sync.Mutex
	set   time.Time // pgx's read deadline (zero: none)
}

func (c *stallConn) Read(b []byte) (int, error) {
	c.mu.Lock()
	d := time.Now().Add(c.stall)
	if !c.set.IsZero() && c.set.Before(d) {
		d = c.set
	}
	err := c.Conn.SetReadDeadline(d)
	c.mu.Unlock()
	if err != nil {
		return 0, err
	}
	return c.Conn.Read(b)
}

func (c *stallConn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.set = t
	return c.Conn.SetDeadline(t)
}

func (c *stallConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.set = t
	return c.Conn.SetReadDeadline(t)
}

// waitForDatabase pings until the database answers or wait has passed,
// backing off from 100 ms to 5 s between tries.
func waitForDatabase(ctx context.Context, db *sql.DB, wait time.Duration, log *slog.Logger) error {
	deadline := time.Now().Add(wait)
	backoff := 100 * time.Millisecond
	for {
		err := pingOnce(ctx, db)
		if err == nil || wait <= 0 || !dbx.ConnectionClass(err) || time.Now().Add(backoff).After(deadline) {
			return err
		}
		log.Warn("database not reachable yet; retrying", "err", err, "retry_in", backoff)
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

func pingOnce(ctx context.Context, db *sql.DB) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return db.PingContext(ctx)
}
