package store

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"smriti/contract"
	"strconv"
	"strings"
)

// WriteGroup writes exchanges as one group commit, each under its own
// context, and returns their results in order.
func (s *Store) WriteGroup(ctxs []context.Context, exs []contract.Exchange) ([]*contract.ExchangeResult, []error) {
	batch := make([]*pendingExchange, len(exs))
	for i := range exs {
		batch[i] = &pendingExchange{ctx: ctxs[i], ex: exs[i]}
	}
	s.writeGroup(batch)
	res, errs := make([]*contract.ExchangeResult, len(exs)), make([]error, len(exs))
	for i, p := range batch {
		res[i], errs[i] = p.res, p.err
	}
	return res, errs
}

// SetCommitFaults installs the commit test hooks (nil: none): before fails
// a transaction just before its COMMIT, after reports an error from a
// COMMIT that happened.
func (s *Store) SetCommitFaults(before, after func() error) {
	s.faults = faults{beforeCommit: before, afterCommit: after}
}

// Migrations is the embedded migrations of an engine ("sqlite" or
// "postgres").
func Migrations(engine string) (fs.FS, error) { return fs.Sub(migrations, "migrations/"+engine) }

// SetIdentityProbe replaces the probe of the database's identity and marks
// a check due at the next read, as a reconnect does.
func (s *Store) SetIdentityProbe(probe func(ctx context.Context) (string, error)) {
	s.topo.SetProbe(probe)
	s.topo.Reconnected()
}

// IdentityCacheDrops counts the times a changed identity dropped the turn
// cache.
func (s *Store) IdentityCacheDrops() int64 { return s.topo.Drops() }

// DatabaseFiles lists the files that hold the database: SQLite's file and
// its write-ahead log and index; PostgreSQL's files of the current database
// (after a CHECKPOINT, so they hold what was committed). The server must be
// on this machine and its files readable.
func (s *Store) DatabaseFiles(ctx context.Context) ([]string, error) {
	if s.d.Name != "postgres" {
		var file string
		if err := s.read.QueryRowContext(ctx, `SELECT file FROM pragma_database_list WHERE name = 'main'`).Scan(&file); err != nil {
			return nil, err
		}
		var out []string
		for _, f := range []string{file, file + "-wal", file + "-shm"} {
			if _, err := os.Stat(f); err == nil {
				out = append(out, f)
			}
		}
		return out, nil
	}
	if _, err := s.write.ExecContext(ctx, "CHECKPOINT"); err != nil {
		return nil, err
	}
	var dir string
	var oid int64
	if err := s.read.QueryRowContext(ctx, `SELECT current_setting('data_directory'), oid FROM pg_database WHERE datname = current_database()`).Scan(&dir, &oid); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(filepath.Join(dir, "base", strconv.FormatInt(oid, 10)))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.Type().IsRegular() {
			out = append(out, filepath.Join(dir, "base", strconv.FormatInt(oid, 10), e.Name()))
		}
	}
	return out, nil
}

// FileRelation names the PostgreSQL relation a file of DatabaseFiles holds
// ("" on SQLite or when none matches).
func (s *Store) FileRelation(ctx context.Context, file string) string {
	if s.d.Name != "postgres" {
		return ""
	}
	var name string
	node := strings.SplitN(filepath.Base(file), ".", 2)[0]
	_ = s.read.QueryRowContext(ctx, `SELECT relname FROM pg_class WHERE pg_relation_filenode(oid)::text = $1`, strings.SplitN(node, "_", 2)[0]).Scan(&name)
	return name
}

// MarkProbeDue makes the next read probe the database (identity and purge
// mark), as a reconnect or topologyEvery's passing does.
func (s *Store) MarkProbeDue() { s.topo.Reconnected() }

// ImportStatementRows is how many rows a space import writes with one
// multi-row insert, by table.
var ImportStatementRows = map[string]int{"checkpoints": importCheckpointRows, "checkpoint_items": importItemRows,
	"checkpoint_notes": importNoteRows, "turns": importTurnRows}

// SetImportCopyMinRows sets the fewest pending rows a PostgreSQL import
// writes with COPY (negative: none; 0: the default).
func (s *Store) SetImportCopyMinRows(n int) { s.copyMinRows = n }
