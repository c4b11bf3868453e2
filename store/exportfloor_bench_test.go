package store

import (
	"context"
	"path/filepath"
	"testing"
)

// BenchmarkExportFloor is the least an export of a space from SQLite can
// cost: the rows an export reads (a synthetic space of
// SMRITI_BENCH_CHECKPOINTS checkpoints, 1,000 by default, × 30 items, 5
// turns a checkpoint), read with the bare driver on the store's read pool,
// one query a table, each row scanned as driver values: nothing decoded,
// checked, encoded or compressed. It reports the CPU time of the process
// per checkpoint; compare with BenchmarkExportSpaceBundle's.
func BenchmarkExportFloor(b *testing.B) {
	path, n, _ := BenchBundle(b)
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(b.TempDir(), "src.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	sp := ImportBenchBundle(b, s, path)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := cpuTime()
		rows := 0
		for _, q := range exportFloorQueries {
			t0 := cpuTime()
			k := readFloorRows(b, s, q.sql, sp.ID.String())
			b.ReportMetric((cpuTime()-t0).Seconds()*1e3/float64(n), q.name+"-cpu-ms/checkpoint")
			rows += k
		}
		b.ReportMetric((cpuTime()-start).Seconds()*1e3/float64(n), "read-cpu-ms/checkpoint")
		b.ReportMetric(float64(rows), "rows")
	}
}

// exportFloorQueries read a space's rows, one query a table, in the order
// an export writes them.
var exportFloorQueries = []struct{ name, sql string }{
	{"checkpoints", `SELECT * FROM checkpoints WHERE space_id = ? ORDER BY log_pos`},
	{"items", `SELECT ci.* FROM checkpoints c JOIN checkpoint_items ci ON ci.checkpoint_id = c.id WHERE c.space_id = ? ORDER BY c.log_pos, ci.position`},
	{"notes", `SELECT n.* FROM checkpoints c JOIN checkpoint_notes n ON n.checkpoint_id = c.id WHERE c.space_id = ?`},
	{"sessions", `SELECT * FROM sessions WHERE space_id = ?`},
	{"turns", `SELECT t.* FROM sessions se JOIN turns t ON t.session_id = se.id WHERE se.space_id = ? ORDER BY se.created_at, se.id, t.sequence_number`},
}

// readFloorRows runs query and scans each row as driver values, keeping
// none; it returns how many rows it read.
func readFloorRows(b *testing.B, s *Store, query, space string) int {
	rows, err := s.read.Query(query, space)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		b.Fatal(err)
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			b.Fatal(err)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	return n
}
