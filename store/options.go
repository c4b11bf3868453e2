package store

import (
	"database/sql"
	"errors"
	"fmt"
	"time"

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
	return dbx.OpenPostgres(dsn, dbx.PoolConfig{MaxConns: o.maxConns(), MaxConnLifetime: o.MaxConnLifetime,
		Timeout: o.timeout(), TransactionPooler: o.Pooler == PoolerTransaction}, onConnect)
}
