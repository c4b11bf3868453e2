// Package store keeps Smriti's state in SQL: embedded SQLite by default
// (pure-Go driver, WAL, foreign keys, one writer connection) or PostgreSQL
// for several stateless server replicas sharing one database. One
// implementation serves both engines; where they differ, the difference is
// named in dialect.go rather than copied per query.
//
// The store implements the domain's service interfaces. Every public method
// is one transaction and is scoped to the caller taken from the context. It
// must not import the HTTP, provider or CLI packages, nor the file formats
// (portability) or the model's prompts (intelligence): a space leaves and
// enters the store as records (package records), which portability turns
// into bundle lines.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"smriti/contract"
	"smriti/idempotency"
	"smriti/internal/clock"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"smriti"
	"smriti/store/internal/dbx"
	"smriti/store/internal/groupcommit"
	"smriti/store/internal/turncache"
)

//go:embed migrations
var migrations embed.FS

// Store is the SQL store. Create one with Open.
type Store struct {
	read  *sql.DB
	write *sql.DB // the single writer connection on SQLite; == read on PostgreSQL
	// readIdle is how many idle connections the read pool keeps.
	readIdle int
	d        dbx.Dialect
	// Now is the clock; tests replace it.
	Now clock.Clock
	log *slog.Logger
	// KeyRetention is how long idempotency keys are honoured
	// (DefaultKeyRetention when 0).
	KeyRetention time.Duration
	// cache holds hot sessions' recent turns; stmts the prepared statements
	// of the send path; historyRows counts the turn rows History read.
	cache       *turncache.Cache
	stmts       *dbx.Stmts
	historyRows atomic.Int64
	// group batches concurrent sends into one transaction.
	group groupcommit.Queue[*pendingExchange]
	// spaceOf: each session's space as the group commit last found it.
	spaceOf sessionSpaces
	// heads keeps checkpoint heads' identity for the send path.
	heads headCache
	// writes groups concurrent checkpoint commits into one transaction
	// (SQLite).
	writes groupcommit.Queue[*pendingWrite]
	// conns is the connection each PostgreSQL write transaction holds.
	conns txConns
	// copyMinRows replaces copyMinRows when not 0 (tests).
	copyMinRows int
	// writing is the write transaction s.tx is running (SQLite has one
	// at a time), for stmtOn.
	writing atomic.Pointer[sql.Tx]
	// last is the checkpoint that transaction wrote last (see lastWrite).
	last atomic.Pointer[lastWrite]
	// ckpt runs SQLite's WAL checkpoints off the request path (nil on
	// PostgreSQL).
	ckpt   *dbx.Checkpointer
	opts   Options
	faults faults
	// topo tells whether the database is still the one the turn cache was
	// filled from (PostgreSQL).
	topo dbx.Topology
}

var (
	_ contract.SpaceService      = (*Store)(nil)
	_ contract.SessionService    = (*Store)(nil)
	_ contract.CheckpointService = (*Store)(nil)
)

// Open connects to dsn with the default Options and runs the migrations.
// dsn is a file path or "sqlite:PATH" for embedded SQLite, or a
// "postgres://" / "postgresql://" URL.
func Open(ctx context.Context, dsn string, logger *slog.Logger) (*Store, error) {
	return OpenWith(ctx, dsn, logger, Options{})
}

// OpenWith is Open with options for PostgreSQL.
func OpenWith(ctx context.Context, dsn string, logger *slog.Logger, o Options) (*Store, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	s := &Store{Now: clock.Now, log: logger, cache: turncache.New(DefaultTurnCacheBytes), opts: o}
	var err error
	switch {
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		s.d = dbx.Postgres
		s.topo.SetProbe(func(ctx context.Context) (string, error) { return dbx.PGIdentity(ctx, s.read) })
		s.topo.SetMark(s.purgeMark)
		if s.read, err = openPostgres(dsn, o, s.topo.Reconnected); err != nil {
			return nil, fmt.Errorf("open postgres: %w", err)
		}
		s.readIdle = o.maxConns()
		s.write = s.read
	default:
		path := strings.TrimPrefix(dsn, "sqlite:")
		if path == "" {
			return nil, errors.New("empty database path")
		}
		if dir := filepath.Dir(path); dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, fmt.Errorf("create database directory: %w", err)
			}
		}
		s.d = dbx.SQLite
		conn := "file:" + path + "?_pragma=foreign_keys(1)&_pragma=busy_timeout(10000)" +
			"&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=temp_store(MEMORY)" +
			"&_pragma=wal_autocheckpoint(" + strconv.Itoa(dbx.BackstopPages) + ")&_txlock=immediate"
		if s.write, err = sql.Open("sqlite", conn); err != nil {
			return nil, fmt.Errorf("open sqlite: %w", err)
		}
		// One writer: SQLite allows a single writer at a time, and a pool of
		// one turns contention into an orderly queue instead of busy errors.
		s.write.SetMaxOpenConns(1)
		if s.read, err = sql.Open("sqlite", conn); err != nil {
			s.write.Close()
			return nil, fmt.Errorf("open sqlite: %w", err)
		}
		// Readers keep their connections: a connection closed when idle
		// is reopened (its pragmas applied) and its statements prepared
		// again on the next burst.
		s.readIdle = 8
		s.read.SetMaxOpenConns(8)
		s.read.SetMaxIdleConns(s.readIdle)
	}
	s.stmts = dbx.NewStmts(s.d, s.unprepared(), s.write, logger)
	s.group.Max, s.writes.Max = maxGroup, maxWriteGroup
	if s.waitsForBatch() {
		s.group.Wait = groupWait
	}
	if err := dbx.WaitForDatabase(ctx, s.write, o.WaitFor, logger); err != nil {
		s.Close()
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.backfillItems(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if s.d.Name == "sqlite" {
		// The migrations filled the writer's page cache with pages a
		// server rarely reads again; hand that memory back before serving.
		// Best effort: a failure only keeps the cache.
		_, _ = s.write.ExecContext(ctx, "PRAGMA shrink_memory")
	}
	if err := s.prepareWrites(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if s.d.Name == "sqlite" {
		// the pools are fixed once open; tests swap s.read
		s.ckpt = dbx.StartCheckpointer(s.read, s.log)
	}
	return s, nil
}

// ReleaseMemory hands back what the connections hold for reuse, for a
// server that has gone quiet: idle pooled connections close (the next burst
// opens them again and re-prepares its statements there), and SQLite's
// writer empties its page cache. Safe at any time; a connection in use is
// left alone.
func (s *Store) ReleaseMemory(ctx context.Context) error {
	s.read.SetMaxIdleConns(0)
	s.read.SetMaxIdleConns(s.readIdle)
	if s.d.Name == "sqlite" {
		if _, err := s.write.ExecContext(ctx, "PRAGMA shrink_memory"); err != nil {
			return fmt.Errorf("release memory: %w", err)
		}
	}
	return nil
}

// Engine names the database engine: "sqlite" or "postgres".
func (s *Store) Engine() string { return s.d.Name }

// Close releases the connections.
func (s *Store) Close() error {
	s.ckpt.Stop()
	s.stmts.Close()
	err := s.write.Close()
	if s.read != s.write {
		if e := s.read.Close(); err == nil {
			err = e
		}
	}
	return err
}

// Ping checks the database answers.
func (s *Store) Ping(ctx context.Context) error { return s.read.PingContext(ctx) }

// DB exposes the underlying connection pool for tests and tools that must
// reach under the store (for example to tamper with a row).
func (s *Store) DB() *sql.DB { return s.write }

// Rebind rewrites a query written with ? placeholders for this engine.
func (s *Store) Rebind(q string) string { return s.d.Rebind(q) }

func (s *Store) migrate(ctx context.Context) error {
	sub, err := fs.Sub(migrations, "migrations/"+s.d.Name)
	if err != nil {
		return err
	}
	dialect := goose.DialectSQLite3
	var opts []goose.ProviderOption
	if s.d.Name == "postgres" {
		dialect = goose.DialectPostgres
		// Replicas starting together on one database take turns: goose holds
		// a PostgreSQL advisory lock on its own connection for the whole run,
		// so the second replica waits, then finds nothing left to apply.
		if s.unprepared() {
			// Through a transaction-mode pooler a session lock would be
			// held by whichever server connection ran it: the lock is a
			// row of goose's lock table instead, taken and renewed by
			// single-statement transactions.
			locker, err := lock.NewPostgresTableLocker()
			if err != nil {
				return fmt.Errorf("migrations lock: %w", err)
			}
			opts = append(opts, goose.WithLocker(locker))
		} else {
			locker, err := lock.NewPostgresSessionLocker(lock.WithLockTimeout(1, 300))
			if err != nil {
				return fmt.Errorf("migrations lock: %w", err)
			}
			opts = append(opts, goose.WithSessionLocker(locker))
		}
	}
	p, err := goose.NewProvider(dialect, s.write, sub, opts...)
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}

// tx runs fn in a write transaction, retrying on PostgreSQL serialization
// failures and deadlocks (which row locks make rare but not impossible), and
// once, at once, on a fresh connection when the connection broke before
// COMMIT was sent (see retry.go).
func (s *Store) tx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if tx := s.held(ctx); tx != nil {
		return fn(tx) // joins the transaction RunInTx holds
	}
	fresh := false
	for attempt := 0; ; attempt++ {
		err := s.tx1(ctx, fn)
		if err != nil && !fresh && dbx.FreshRetry(ctx, err) {
			fresh = true
			s.dropIdle()
			s.log.WarnContext(ctx, "database connection broke; running the transaction again on a fresh connection", "err", err)
			attempt--
			continue
		}
		if err == nil || attempt >= 4 || !dbx.Retryable(err) {
			return err
		}
		wait := time.NewTimer(time.Duration(attempt+1) * 5 * time.Millisecond)
		select {
		case <-ctx.Done():
			wait.Stop()
			return err
		case <-wait.C:
		}
	}
}

func (s *Store) tx1(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, release, err := s.beginTx(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	s.writing.Store(tx)
	defer func() {
		s.writing.CompareAndSwap(tx, nil)
		s.last.Store(nil)
		release()
		s.stmts.PrepareWanted(ctx)
	}()
	// An idempotency claim in ctx is stored by the first transaction that
	// commits, before its write (see idempotency.go).
	claim := idempotency.ClaimFrom(ctx)
	mine := claim != nil && claim.Begin()
	if mine {
		if err := s.placeClaim(ctx, tx, claim); err != nil {
			tx.Rollback()
			claim.End(false)
			return err
		}
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		if mine {
			claim.End(false)
		}
		return err
	}
	if f := s.faults.beforeCommit; f != nil {
		if err := f(); err != nil {
			tx.Rollback()
			if mine {
				claim.End(false)
			}
			return err
		}
	}
	err = tx.Commit()
	if f := s.faults.afterCommit; err == nil && f != nil {
		err = f()
	}
	if mine {
		// A failed COMMIT may have happened: the row may be stored.
		claim.End(true)
	}
	if err != nil {
		return &dbx.CommitError{Err: err}
	}
	s.ckpt.Wrote()
	return nil
}

// faults are test hooks: an error from beforeCommit fails a transaction
// just before its COMMIT (which is then not sent), one from afterCommit
// is reported as COMMIT's although the transaction committed.
type faults struct {
	beforeCommit, afterCommit func() error
}

// nextLogPositions reserves n positions in the space's log and returns the
// last one. It takes the log row's lock (the space's own on PostgreSQL, the
// store-wide one on SQLite), so callers take it after every other lock they
// need (space, then session, then log) to keep lock order fixed; a
// transaction that takes the logs of several spaces takes them in space-id
// order.
func (s *Store) nextLogPositions(ctx context.Context, tx *sql.Tx, space smriti.ID, n int) (int64, error) {
	var pos int64
	var err error
	if s.d.SpaceLog {
		var st dbx.Stmt
		if st, err = s.stmts.TxStmt(ctx, tx, sqlNextSpaceLogPos); err != nil {
			return 0, err
		}
		err = st.QueryRowContext(ctx, n, space).Scan(&pos)
	} else {
		var st dbx.Stmt
		if st, err = s.stmts.TxStmt(ctx, tx, sqlNextLogPos); err != nil {
			return 0, err
		}
		err = st.QueryRowContext(ctx, n).Scan(&pos)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return 0, smriti.Errorf(smriti.ENOTFOUND, "space not found")
	}
	if err != nil {
		return 0, fmt.Errorf("reserve log position: %w", err)
	}
	return pos, nil
}

// turnPositions reserves the positions of n consecutive turns of a session
// whose newest sequence number will be lastSeq, and returns the last one: in
// the space's log, or for a session without a space on an engine with a log
// per space, one more than their sequence numbers (the session's own
// numbering from 1, as a space's log starts; nothing compares them with
// anything else, see migration 11).
func (s *Store) turnPositions(ctx context.Context, tx *sql.Tx, space *smriti.ID, n int, lastSeq int64) (int64, error) {
	if space == nil {
		if s.d.SpaceLog {
			return lastSeq + 1, nil
		}
		return s.nextLogPositions(ctx, tx, smriti.ID{}, n)
	}
	return s.nextLogPositions(ctx, tx, *space, n)
}
