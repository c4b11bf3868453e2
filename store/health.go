package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"smriti"
	"smriti/store/internal/dbx"
)

// Status checks the database within ctx (the caller bounds it): reachable,
// writable, the migration version and the pool's statistics. It never
// returns an error; what went wrong is in Problem.
func (s *Store) Status(ctx context.Context) smriti.DatabaseStatus {
	st := s.read.Stats()
	out := smriti.DatabaseStatus{OpenConns: st.OpenConnections, InUseConns: st.InUse, IdleConns: st.Idle,
		MaxConns: st.MaxOpenConnections, WaitCount: st.WaitCount}
	if err := s.read.QueryRowContext(ctx, `SELECT COALESCE(MAX(version_id), 0) FROM goose_db_version`).Scan(&out.MigrationVersion); err != nil {
		out.Problem = "the database does not answer: " + problem(ctx, err)
		return out
	}
	out.Reachable = true
	if err := s.writeProbe(ctx); err != nil {
		out.Problem = "the database cannot be written: " + problem(ctx, err)
		return out
	}
	out.Writable = true
	return out
}

// errNotPrimary is a database that reads but does not write.
var errNotPrimary = errors.New("it is a standby or read-only")

// writeProbe commits a transaction that writes WAL without touching any row
// another transaction could be waiting on: on PostgreSQL its COMMIT waits
// for a synchronous standby like every write does. On SQLite it takes the
// single writer.
func (s *Store) writeProbe(ctx context.Context) error {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if s.d.Name == "postgres" {
		var recovery bool
		var readOnly string
		if err := tx.QueryRowContext(ctx, `SELECT pg_is_in_recovery(), current_setting('transaction_read_only')`).Scan(&recovery, &readOnly); err != nil {
			return err
		}
		if recovery || readOnly == "on" {
			return errNotPrimary
		}
		// A transactional WAL message: the COMMIT then writes WAL and waits
		// for a synchronous standby like every write does. (A transaction
		// id alone writes no WAL, and its COMMIT does not wait.)
		var lsn sql.NullString
		if err := tx.QueryRowContext(ctx, `SELECT pg_logical_emit_message(true, 'smriti-ready', '')::text`).Scan(&lsn); err != nil {
			return err
		}
	} else if _, err := tx.ExecContext(ctx, `SELECT 1`); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// problem names a failed check for the readiness answer: a timeout, not
// reachable, or read-only. Raw error text (which may carry a host) stays in
// the log.
func problem(ctx context.Context, err error) string {
	switch {
	case errors.Is(err, errNotPrimary):
		return err.Error()
	case ctx.Err() != nil:
		return "no answer within the deadline"
	case dbx.ConnectionClass(err):
		return "connection failed"
	}
	return "unexpected error"
}

// Identity names the database the store reads: PostgreSQL's
// system_identifier and timeline, "system/timeline"; "" on SQLite.
func (s *Store) Identity(ctx context.Context) (string, error) {
	if s.d.Name != "postgres" {
		return "", nil
	}
	return dbx.PGIdentity(ctx, s.read)
}

// checkTopology drops the turn cache when the database is not the one it
// was filled from (see dbx.Topology).
func (s *Store) checkTopology(ctx context.Context) {
	if was, now, changed := s.topo.Check(ctx, s.log); changed {
		n, _ := s.cache.Size()
		s.cache.Clear()
		s.log.Warn("the database's identity or timeline changed; dropped the turn cache", "was", was, "now", now, "sessions", n)
	}
}
