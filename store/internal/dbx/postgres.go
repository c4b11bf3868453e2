package dbx

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// PoolConfig is how a PostgreSQL pool is opened.
type PoolConfig struct {
	// MaxConns bounds the pool's open connections (and its idle ones).
	MaxConns int
	// MaxConnLifetime closes a connection this long after it opened (0:
	// never).
	MaxConnLifetime time.Duration
	// Timeout is the longest to wait on the database for one answer (0: no
	// bound): a connection's reads stall out past it, and statement_timeout
	// is set slightly below it.
	Timeout time.Duration
	// TransactionPooler: a transaction-mode pooler is in between, so the
	// pool speaks the simple protocol, caches no statements and sends no
	// start-up parameters.
	TransactionPooler bool
}

// OpenPostgres opens the pool for a postgres:// URL; onConnect (when set)
// is called on each new connection.
func OpenPostgres(dsn string, o PoolConfig, onConnect func()) (*sql.DB, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("parse postgres url: %w", err)
	}
	timeout := o.Timeout
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
	if o.TransactionPooler {
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
	if !o.TransactionPooler {
		// The simple protocol sends every argument as text, from Value.
		opts = append(opts, stdlib.OptionAfterConnect(WrapUUIDs))
	}
	db := sql.OpenDB(Connector{Connector: stdlib.GetConnector(*cfg, opts...), OnConnect: onConnect})
	// Connections stay open through bursts (a new one is a new server
	// process); ConnMaxIdleTime closes them after a quiet spell.
	db.SetMaxOpenConns(o.MaxConns)
	db.SetMaxIdleConns(o.MaxConns)
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

// WaitForDatabase pings until the database answers or wait has passed,
// backing off from 100 ms to 5 s between tries.
func WaitForDatabase(ctx context.Context, db *sql.DB, wait time.Duration, log *slog.Logger) error {
	deadline := time.Now().Add(wait)
	backoff := 100 * time.Millisecond
	for {
		err := pingOnce(ctx, db)
		if err == nil || wait <= 0 || !ConnectionClass(err) || time.Now().Add(backoff).After(deadline) {
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
