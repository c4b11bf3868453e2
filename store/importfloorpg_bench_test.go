package store_test

import (
	"context"
	"database/sql"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"smriti"
	"smriti/store"
	"smriti/store/storetest"
)

// BenchmarkImportFloorPostgres is BenchmarkImportFloor on PostgreSQL (it
// needs SMRITI_TEST_POSTGRES_URL, a server on this machine for the
// server's CPU time): the rows a real import of a synthetic bundle wrote
// (SMRITI_BENCH_CHECKPOINTS checkpoints, 1,000 by default, × 30 items, 5
// turns a checkpoint), read back as driver values and written again with
// the bare driver into a fresh database of the same schema, in one
// transaction on one connection, triggers, foreign keys and search
// columns in place. "insert" writes them with multi-row inserts of the
// import's statement sizes, "copy" with COPY. It reports per checkpoint
// the wall time, the CPU time of this process and of the server's backend,
// and the backend's CPU time for each table.
//
// SMRITI_FLOOR_STRIP, a comma-separated list, takes parts of the schema
// away before the timed writes, to see what each costs: gin (the search
// indexes), tsv (the search columns and their indexes), events (the
// space event triggers), stmtevents (those triggers replaced by triggers
// a statement that record the same events), fk (the foreign keys of
// checkpoints, items, notes and turns).
func BenchmarkImportFloorPostgres(b *testing.B) {
	path, n, _ := store.BenchBundle(b)
	ctx := context.Background()
	dsn := storetest.PostgresDSN(b)
	src, err := store.Open(ctx, dsn, nil)
	if err != nil {
		b.Fatal(err)
	}
	sp := store.ImportBenchBundle(b, src, path)
	src.Close()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		b.Fatal(err)
	}
	tables := []*pgFloorTable{{name: "spaces", most: 1}, {name: "checkpoints"}, {name: "checkpoint_items"},
		{name: "checkpoint_notes"}, {name: "sessions", most: 64}, {name: "turns"}}
	for _, t := range tables {
		if t.most == 0 {
			t.most = store.ImportStatementRows[t.name]
		}
		t.read(b, ctx, db, sp.ID)
	}
	db.Close()
	for _, mode := range []string{"insert", "copy"} {
		b.Run(mode, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				pgFloorRun(b, ctx, tables, sp.ID, mode == "copy", n)
			}
		})
	}
}

// pgFloorRun writes the tables' rows into a fresh database in one
// transaction and reports what it cost.
func pgFloorRun(b *testing.B, ctx context.Context, tables []*pgFloorTable, space smriti.ID, copy bool, n int) {
	dsn := storetest.PostgresDSN(b)
	s, err := store.Open(ctx, dsn, nil)
	if err != nil {
		b.Fatal(err)
	}
	s.Close()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	pgFloorStrip(b, ctx, conn, os.Getenv("SMRITI_FLOOR_STRIP"))
	var pid int
	if err := conn.QueryRowContext(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		b.Fatal(err)
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	start, pgStart, wall := processCPU(), backendCPU(pid), time.Now()
	for _, t := range tables {
		pg := backendCPU(pid)
		if copy {
			t.copy(b, ctx, conn)
		} else {
			t.insert(b, ctx, tx)
		}
		if t.name == "spaces" {
			// The sessions' own events take positions past the copied
			// rows' log positions, as they do past an import's block.
			if _, err := tx.ExecContext(ctx, `UPDATE space_log SET position = 1000000000 WHERE space_id = $1`, space); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric((backendCPU(pid)-pg).Seconds()*1e3/float64(n), "pg-"+t.name+"-ms/checkpoint")
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(time.Since(wall).Seconds())*1e3/float64(n), "wall-ms/checkpoint")
	b.ReportMetric((processCPU()-start).Seconds()*1e3/float64(n), "cpu-ms/checkpoint")
	b.ReportMetric((backendCPU(pid)-pgStart).Seconds()*1e3/float64(n), "pg-cpu-ms/checkpoint")
}

// pgFloorStrip takes away the parts of the schema strip names (see
// BenchmarkImportFloorPostgres).
func pgFloorStrip(b *testing.B, ctx context.Context, conn *sql.Conn, strip string) {
	parts := map[string][]string{
		"gin": {`DROP INDEX checkpoints_search`, `DROP INDEX checkpoint_notes_search`, `DROP INDEX turns_search`},
		"tsv": {`ALTER TABLE checkpoints DROP COLUMN search_tsv`, `ALTER TABLE checkpoint_notes DROP COLUMN search_tsv`,
			`ALTER TABLE turns DROP COLUMN search_tsv`},
		"events": {`DROP TRIGGER space_events_checkpoint ON checkpoints`, `DROP TRIGGER space_events_turn ON turns`},
		// The same events recorded by one trigger a statement, from its
		// transition table, instead of one a row.
		"stmtevents": {`DROP TRIGGER space_events_checkpoint ON checkpoints`, `DROP TRIGGER space_events_turn ON turns`,
			`CREATE FUNCTION floor_checkpoint_events() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
				INSERT INTO space_events (position, space_id, kind, subject_id, branch_name)
				SELECT n.log_pos, n.space_id, 'checkpoint.created', n.id, n.branch_name FROM new_rows n;
				RETURN NULL; END; $$`,
			`CREATE TRIGGER floor_checkpoint_events AFTER INSERT ON checkpoints REFERENCING NEW TABLE AS new_rows
				FOR EACH STATEMENT EXECUTE FUNCTION floor_checkpoint_events()`,
			`CREATE FUNCTION floor_turn_events() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
				INSERT INTO space_events (position, space_id, kind, subject_id, branch_name)
				SELECT n.log_pos, n.space_id, 'session.updated', n.session_id, s.branch_name
				FROM new_rows n JOIN sessions s ON s.id = n.session_id WHERE n.space_id IS NOT NULL AND n.role = 'assistant';
				RETURN NULL; END; $$`,
			`CREATE TRIGGER floor_turn_events AFTER INSERT ON turns REFERENCING NEW TABLE AS new_rows
				FOR EACH STATEMENT EXECUTE FUNCTION floor_turn_events()`},
		"fk": {`ALTER TABLE checkpoints DROP CONSTRAINT checkpoints_space_id_fkey, DROP CONSTRAINT checkpoints_parent_id_fkey,
			DROP CONSTRAINT checkpoints_merge_parent_id_fkey, DROP CONSTRAINT checkpoints_skip_id_fkey`,
			`ALTER TABLE checkpoint_items DROP CONSTRAINT checkpoint_items_checkpoint_id_fkey`,
			`ALTER TABLE checkpoint_notes DROP CONSTRAINT checkpoint_notes_checkpoint_id_fkey`,
			`ALTER TABLE turns DROP CONSTRAINT turns_session_id_fkey, DROP CONSTRAINT turns_space_id_fkey`},
	}
	for _, p := range strings.Split(strip, ",") {
		if p == "" {
			continue
		}
		qs, ok := parts[p]
		if !ok {
			b.Fatalf("SMRITI_FLOOR_STRIP: no part %q", p)
		}
		for _, q := range qs {
			if _, err := conn.ExecContext(ctx, q); err != nil {
				b.Fatalf("%s: %v", q, err)
			}
		}
	}
}

// pgFloorTable is one table's rows of the imported space as driver
// values, its generated columns left out.
type pgFloorTable struct {
	name string
	most int
	cols []string
	args []any
	rows int
}

var pgFloorWhere = map[string]string{
	"spaces":           "t.id = $1",
	"checkpoints":      "t.space_id = $1 ORDER BY t.log_pos",
	"checkpoint_items": "t.checkpoint_id IN (SELECT id FROM checkpoints WHERE space_id = $1) ORDER BY t.ctid",
	"checkpoint_notes": "t.checkpoint_id IN (SELECT id FROM checkpoints WHERE space_id = $1) ORDER BY t.ctid",
	"sessions":         "t.space_id = $1",
	"turns":            "t.space_id = $1 ORDER BY t.log_pos",
}

func (t *pgFloorTable) read(b *testing.B, ctx context.Context, db *sql.DB, space smriti.ID) {
	rows, err := db.QueryContext(ctx, `SELECT column_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = $1 AND is_generated = 'NEVER' ORDER BY ordinal_position`, t.name)
	if err != nil {
		b.Fatal(err)
	}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			b.Fatal(err)
		}
		t.cols = append(t.cols, c)
	}
	rows.Close()
	cols := make([]string, len(t.cols))
	for i, c := range t.cols {
		cols[i] = "t." + c
	}
	if rows, err = db.QueryContext(ctx, `SELECT `+strings.Join(cols, ", ")+` FROM `+t.name+` t WHERE `+pgFloorWhere[t.name], space); err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
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

// insert writes the rows as the import's multi-row inserts do: statements
// of most rows, the rest in statements of the powers of two below it,
// each prepared once.
func (t *pgFloorTable) insert(b *testing.B, ctx context.Context, tx *sql.Tx) {
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
			var q strings.Builder
			q.WriteString(`INSERT INTO ` + t.name + ` (` + strings.Join(t.cols, ", ") + `) VALUES `)
			for r := 0; r < n; r++ {
				if r > 0 {
					q.WriteString(", ")
				}
				q.WriteString("(")
				for c := 0; c < cols; c++ {
					if c > 0 {
						q.WriteString(", ")
					}
					q.WriteString("$" + strconv.Itoa(r*cols+c+1))
				}
				q.WriteString(")")
			}
			var err error
			if st, err = tx.PrepareContext(ctx, q.String()); err != nil {
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

// copy writes the rows with one COPY, inside the transaction open on conn.
func (t *pgFloorTable) copy(b *testing.B, ctx context.Context, conn *sql.Conn) {
	cols := len(t.cols)
	err := conn.Raw(func(dc any) error {
		_, err := dc.(*stdlib.Conn).Conn().CopyFrom(ctx, pgx.Identifier{t.name}, t.cols,
			pgx.CopyFromSlice(t.rows, func(i int) ([]any, error) { return t.args[i*cols : (i+1)*cols], nil }))
		return err
	})
	if err != nil {
		b.Fatalf("%s: %v", t.name, err)
	}
}

// backendCPU is the CPU time, user and system, of the server process pid
// (0 when it cannot be read: the server is elsewhere).
func backendCPU(pid int) time.Duration {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The fields after the command's closing parenthesis; utime and
	// stime are the 14th and 15th of the whole line, in clock ticks.
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * 10 * time.Millisecond
}

// serverCPU starts counting the CPU time of the PostgreSQL backends
// connected to dsn's database (nil on SQLite); the function it returns is
// the time they have spent since, those that ended before it excepted.
// The server must be on this machine.
func serverCPU(b *testing.B, dsn string) func() time.Duration {
	if !strings.HasPrefix(dsn, "postgres") {
		return nil
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		b.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	backends := func() map[int]time.Duration {
		rows, err := db.Query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)
		if err != nil {
			b.Fatal(err)
		}
		defer rows.Close()
		out := map[int]time.Duration{}
		for rows.Next() {
			var pid int
			if err := rows.Scan(&pid); err != nil {
				b.Fatal(err)
			}
			out[pid] = backendCPU(pid)
		}
		return out
	}
	before := backends()
	return func() time.Duration {
		defer db.Close()
		var sum time.Duration
		for pid, t := range backends() {
			sum += t - before[pid]
		}
		return sum
	}
}
