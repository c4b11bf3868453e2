package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"smriti/store/internal/dbx"
)

// BenchmarkImportFloor is the least a space import into SQLite can cost:
// the rows a real import of a synthetic bundle wrote (SMRITI_BENCH_CHECKPOINTS
// checkpoints, 1,000 by default, × 30 items, 5 turns a checkpoint), read
// back as driver values and inserted again with the bare driver into a
// fresh database of the same schema, in one transaction, with the same
// columns, indexes and statement sizes as the import, the search and event
// triggers set aside and their bulk statements run at the end. Nothing is
// decoded, checked or converted while it is timed. It reports the CPU time
// of the process per checkpoint, of the rows alone and with the bulk
// index; compare with BenchmarkImportSpaceBundle's.
func BenchmarkImportFloor(b *testing.B) {
	path, n, _ := BenchBundle(b)
	ctx := context.Background()
	dir := b.TempDir()
	src, err := Open(ctx, filepath.Join(dir, "src.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	sp := ImportBenchBundle(b, src, path)
	// In an order the foreign keys accept, each with the import's
	// statement size.
	tables := []floorTable{{name: "spaces", most: 1}, {name: "checkpoints", most: importCheckpointRows},
		{name: "checkpoint_items", most: importItemRows}, {name: "checkpoint_notes", most: importNoteRows},
		{name: "sessions", most: 64}, {name: "turns", most: importTurnRows}}
	for i := range tables {
		tables[i].read(b, src.read, sp.ID.String())
	}
	src.Close()
	for i := 0; i < b.N; i++ {
		db := floorDB(b, ctx, filepath.Join(b.TempDir(), "floor.db"))
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		st, err := (&Store{d: dbx.SQLite}).suspendRowTriggers(ctx, tx)
		if err != nil {
			b.Fatal(err)
		}
		start, wall := cpuTime(), time.Now()
		for _, t := range tables {
			t.write(b, ctx, tx)
		}
		rows := cpuTime() - start
		if err := st.restore(ctx, tx, sp.ID); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		all := cpuTime() - start
		b.ReportMetric(float64(time.Since(wall).Seconds())*1e3/float64(n), "wall-ms/checkpoint")
		b.ReportMetric(rows.Seconds()*1e3/float64(n), "rows-cpu-ms/checkpoint")
		b.ReportMetric(all.Seconds()*1e3/float64(n), "cpu-ms/checkpoint")
		db.Close()
	}
}

// floorDB is a fresh database of the store's schema, opened with the bare
// driver and the store's connection settings, one connection.
func floorDB(b *testing.B, ctx context.Context, path string) *sql.DB {
	s, err := Open(ctx, path, nil)
	if err != nil {
		b.Fatal(err)
	}
	s.Close()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(1)&_pragma=busy_timeout(10000)"+
		"&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=temp_store(MEMORY)&_txlock=immediate")
	if err != nil {
		b.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	// The space's own event takes the next store position: past the
	// copied rows' log positions, as an import's block of them is.
	if _, err := db.ExecContext(ctx, `UPDATE store_log SET position = 1000000000 WHERE id = 1`); err != nil {
		b.Fatal(err)
	}
	return db
}

// floorTable is one table's rows of the imported space, as driver values.
type floorTable struct {
	name string
	most int
	cols []string
	args []any
	rows int
}

var floorWhere = map[string]string{
	"spaces":           "id = ?",
	"checkpoints":      "space_id = ? ORDER BY log_pos",
	"checkpoint_items": "checkpoint_id IN (SELECT id FROM checkpoints WHERE space_id = ?) ORDER BY rowid",
	"checkpoint_notes": "checkpoint_id IN (SELECT id FROM checkpoints WHERE space_id = ?) ORDER BY rowid",
	"sessions":         "space_id = ?",
	"turns":            "space_id = ? ORDER BY log_pos",
}

func (t *floorTable) read(b *testing.B, db *sql.DB, space string) {
	rows, err := db.Query(`SELECT * FROM `+t.name+` WHERE `+floorWhere[t.name], space)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	if t.cols, err = rows.Columns(); err != nil {
		b.Fatal(err)
	}
	for rows.Next() {
		vals := make([]any, len(t.cols))
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			b.Fatal(err)
		}
		t.args = append(t.args, vals...)
		t.rows++
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
}

// write inserts the rows as importRows.write does: statements of most
// rows, the rest in statements of the powers of two below it, each
// prepared once.
func (t *floorTable) write(b *testing.B, ctx context.Context, tx *sql.Tx) {
	cols := len(t.cols)
	stmts := map[int]*sql.Stmt{}
	args := t.args
	for rows := t.rows; rows > 0; {
		n := t.most
		for n > rows {
			n /= 2
		}
		st, ok := stmts[n]
		if !ok {
			q := `INSERT INTO ` + t.name + ` (` + strings.Join(t.cols, ", ") + `) VALUES ` +
				strings.TrimSuffix(strings.Repeat("("+dbx.Placeholders(cols)+"), ", n), ", ")
			var err error
			if st, err = tx.PrepareContext(ctx, q); err != nil {
				b.Fatal(err)
			}
			stmts[n] = st
		}
		if _, err := st.ExecContext(ctx, args[:n*cols]...); err != nil {
			b.Fatalf("%s: %v", t.name, err)
		}
		args, rows = args[n*cols:], rows-n
	}
}

// cpuTime is the CPU time the process has spent, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
