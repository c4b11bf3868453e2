package dbx

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"smriti/contract"
)

// Status checks the database of engine d within ctx (the caller bounds
// it): reachable through read, writable through write, the migration
// version and read's pool statistics. It never returns an error; what went
// wrong is in Problem.
func Status(ctx context.Context, d Dialect, read, write *sql.DB) contract.DatabaseStatus {
	st := read.Stats()
	out := contract.DatabaseStatus{OpenConns: st.OpenConnections, InUseConns: st.InUse, IdleConns: st.Idle,
		MaxConns: st.MaxOpenConnections, WaitCount: st.WaitCount}
	if err := read.QueryRowContext(ctx, `SELECT COALESCE(MAX(version_id), 0) FROM goose_db_version`).Scan(&out.MigrationVersion); err != nil {
		out.Problem = "the database does not answer: " + problem(ctx, err)
		return out
	}
	out.Reachable = true
	if err := writeProbe(ctx, d, write); err != nil {
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
func writeProbe(ctx context.Context, d Dialect, write *sql.DB) error {
	tx, err := write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if d.Name == "postgres" {
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
	case ConnectionClass(err):
		return "connection failed"
	}
	return "unexpected error"
}
