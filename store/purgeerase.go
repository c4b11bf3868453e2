package store

import (
	"context"
	"fmt"
	"smriti/secretlog"
	"sort"
	"strings"
)

// A purge rewrites rows, and a database keeps what a row held before in
// places no query reads: SQLite in freed pages and cells of its file and in
// frames of its write-ahead log, PostgreSQL in dead row versions and in
// index entries (a GIN index keeps a lexeme's entry after its last row is
// gone). eraseOldBytes runs after the purge commits and removes those
// copies from the database's files:
//   - SQLite: VACUUM rebuilds the file from its live rows (the temporary
//     copy in a file, not in memory, so a large database does not need its
//     size in memory), then a TRUNCATE checkpoint copies the log into the
//     file and empties the log. Other writes wait while it runs.
//   - PostgreSQL: VACUUM removes the dead row versions of the tables the purge
//     rewrote and each of their full-text indexes is rebuilt (REINDEX
//     CONCURRENTLY, which does not block reads or writes; the old index file
//     is dropped). VACUUM does not clear the space it frees inside a page, so
//     old bytes can stay in a table's files until the space is reused; with
//     full, VACUUM FULL copies each table and its indexes into new files
//     and drops the old ones, holding a lock that makes reads and writes of
//     those tables wait while it runs. What the server already wrote to its
//     write-ahead log, and any base backup or WAL archive taken before, keep
//     the old bytes until they are recycled: outside what a client of the
//     database can reach.
//
// It answers what it did, as secretlog.SecretPurge.Erasure reports it. The
// purge itself has committed by then, so a failure here is reported there
// (and logged), not returned.
func (s *Store) eraseOldBytes(ctx context.Context, rows []secretlog.PurgedRow, full bool) string {
	var err error
	var done string
	switch {
	case s.d.Name == "postgres" && full:
		// Every table a purge may rewrite: a full erasure may finish an
		// earlier purge, whose rows this one did not rewrite.
		done, err = secretlog.ErasureRewritten, s.vacuumFull(ctx, allPurgeTables())
	case s.d.Name == "postgres":
		done, err = secretlog.ErasureVacuumed, s.vacuumPurged(ctx, purgedTables(rows))
	default:
		done, err = secretlog.ErasureRewritten, s.rewriteFile(ctx)
	}
	if err != nil {
		s.log.WarnContext(ctx, "a purge committed, but the database's files may still hold the old bytes", "err", err)
		return secretlog.ErasureIncomplete + ": " + err.Error()
	}
	return done
}

// rewriteFile is SQLite's erasure: VACUUM, then a checkpoint that leaves
// the write-ahead log empty. It runs on the writer connection, so it waits
// for the write in progress and the next writes wait for it.
func (s *Store) rewriteFile(ctx context.Context) error {
	conn, err := s.write.Conn(ctx)
	if err != nil {
		return fmt.Errorf("vacuum: %w", err)
	}
	defer conn.Close()
	// The store keeps temporary tables in memory; VACUUM's copy of the whole
	// database goes to a temporary file instead, deleted when it ends.
	if _, err := conn.ExecContext(ctx, "PRAGMA temp_store = FILE"); err != nil {
		return fmt.Errorf("vacuum: %w", err)
	}
	_, verr := conn.ExecContext(ctx, "VACUUM")
	if _, err := conn.ExecContext(ctx, "PRAGMA temp_store = MEMORY"); err != nil && verr == nil {
		verr = err
	}
	if verr != nil {
		return fmt.Errorf("vacuum: %w", verr)
	}
	// TRUNCATE waits (up to the busy timeout) for readers of older
	// snapshots; busy = 1 means one outlasted it and the log still holds
	// frames, so it is asked again, a few times. SQLite answers busy at once
	// while another checkpoint runs, so the background ones wait for it.
	return s.ckpt.Exclusive(func() error {
		for try := 0; ; try++ {
			var busy, logged, copied int
			if err := conn.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logged, &copied); err != nil {
				return fmt.Errorf("checkpoint: %w", err)
			}
			if busy == 0 {
				return nil
			}
			if try == 3 {
				return fmt.Errorf("checkpoint: readers kept the write-ahead log busy; run the purge again when the server is quieter")
			}
		}
	})
}

// vacuumPurged is PostgreSQL's erasure over the tables a purge rewrote.
func (s *Store) vacuumPurged(ctx context.Context, tables []string) error {
	if len(tables) == 0 {
		return nil
	}
	if _, err := s.write.ExecContext(ctx, "VACUUM "+strings.Join(tables, ", ")); err != nil {
		return fmt.Errorf("vacuum: %w", err)
	}
	for _, t := range tables {
		if idx, ok := searchIndexOf[t]; ok {
			if _, err := s.write.ExecContext(ctx, "REINDEX INDEX CONCURRENTLY "+idx); err != nil {
				return fmt.Errorf("reindex %s: %w", idx, err)
			}
		}
	}
	return nil
}

// vacuumFull is PostgreSQL's full erasure.
func (s *Store) vacuumFull(ctx context.Context, tables []string) error {
	if _, err := s.write.ExecContext(ctx, "VACUUM FULL "+strings.Join(tables, ", ")); err != nil {
		return fmt.Errorf("vacuum full: %w", err)
	}
	return nil
}

// searchIndexOf names PostgreSQL's full-text index of each table that has
// one (see the search migration).
var searchIndexOf = map[string]string{
	"checkpoints":      "checkpoints_search",
	"turns":            "turns_search",
	"checkpoint_notes": "checkpoint_notes_search",
}

// purgedTables is the tables holding the rows a purge rewrote, sorted.
func purgedTables(rows []secretlog.PurgedRow) []string {
	seen := map[string]bool{}
	for _, r := range rows {
		if t := purgedTable(r.Kind); t != "" {
			seen[t] = true
		}
	}
	out := make([]string, 0, len(seen))
	for t := range seen {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// allPurgeTables is every table a purge may rewrite, sorted.
func allPurgeTables() []string {
	rows := []secretlog.PurgedRow{{Kind: "idempotency"}}
	for _, pc := range purgeColumns {
		rows = append(rows, secretlog.PurgedRow{Kind: pc.kind})
	}
	return purgedTables(rows)
}

func purgedTable(kind string) string {
	if kind == "idempotency" {
		return "idempotency_keys"
	}
	for _, pc := range purgeColumns {
		if pc.kind == kind {
			return pc.table
		}
	}
	return ""
}
