package main

import (
	"database/sql"
	"fmt"
	"os"
	"sort"
	"strings"
)

// statementCounter counts the statements the replicas ran
// (pg_stat_statements, utility statements such as BEGIN and COMMIT
// included) between a reset and a read, leaving out the load's own
// sampling queries. Every statement a replica runs is one round trip to the
// database (database/sql sends each on its own), so the count per request
// is the round trips per request.
type statementCounter struct {
	db *sql.DB
	ok bool
}

func newStatementCounter(db *sql.DB) *statementCounter {
	_, err := db.Exec(`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`)
	if err != nil {
		fmt.Println("statement counts off:", err)
	}
	return &statementCounter{db: db, ok: err == nil}
}

func (c *statementCounter) reset() {
	if c.ok {
		c.db.Exec(`SELECT pg_stat_statements_reset()`)
	}
}

// sampler marks the load's own queries (the samplers and this counter).
var sampler = []string{"pg_stat_activity", "heap_page_item_attrs", "pg_stat_statements", "pg_current_snapshot", "pg_locks"}

// read returns the calls since the reset by kind of statement, and the
// database's time executing them (ms) by kind.
func (c *statementCounter) read() (calls map[string]int64, ms map[string]float64) {
	calls, ms = map[string]int64{}, map[string]float64{}
	if !c.ok {
		return calls, ms
	}
	rows, err := c.db.Query(`SELECT query, calls, total_exec_time FROM pg_stat_statements`)
	if err != nil {
		return calls, ms
	}
	defer rows.Close()
	for rows.Next() {
		var q string
		var n int64
		var t float64
		if rows.Scan(&q, &n, &t) != nil || own(q) {
			continue
		}
		calls[statementKind(q)] += n
		ms[statementKind(q)] += t
	}
	return calls, ms
}

func own(q string) bool {
	for _, s := range sampler {
		if strings.Contains(q, s) {
			return true
		}
	}
	return false
}

// statementKind names a statement by its verb and the table it is on:
// "update sessions", "insert turns", "select sessions", "begin"; a
// statement that starts with WITH is named by its first CTE.
func statementKind(q string) string {
	f := strings.Fields(strings.ToLower(q))
	if len(f) == 0 {
		return "?"
	}
	next := map[string]string{"select": "from", "delete": "from", "insert": "into", "update": "update", "with": "with"}[f[0]]
	if next == "" {
		return f[0]
	}
	for i, w := range f[:len(f)-1] {
		if w == next {
			return f[0] + " " + strings.Trim(f[i+1], "(),")
		}
	}
	return f[0]
}

// perKind lists statements per request by kind, most first, as the mean of
// rounds measurements.
func perKind(m map[string]float64, rounds int, format string) string {
	type kv struct {
		k string
		v float64
	}
	var all []kv
	for k, v := range m {
		all = append(all, kv{k, v / float64(max(1, rounds))})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v > all[j].v || all[i].v == all[j].v && all[i].k < all[j].k })
	var parts []string
	for _, e := range all {
		if e.v >= 0.0005 {
			parts = append(parts, fmt.Sprintf("%s "+format, e.k, e.v))
		}
	}
	if len(parts) == 0 {
		return "none counted"
	}
	return strings.Join(parts, ", ")
}

// loadAverage is the machine's 1, 5 and 15 minute load averages.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func sum(xs []float64) float64 {
	t := 0.0
	for _, x := range xs {
		t += x
	}
	return t
}
