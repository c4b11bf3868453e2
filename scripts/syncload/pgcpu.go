package main

import (
	"bytes"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
)

// pgCPU starts counting the CPU time of the PostgreSQL backends connected
// to dsn's database (nil when dsn is not a PostgreSQL URL); the function it
// returns is the seconds they have spent since, backends that ended in
// between excepted. The server must run on this machine.
func pgCPU(dsn string) func() float64 {
	if !strings.HasPrefix(dsn, "postgres") {
		return nil
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil
	}
	db.SetMaxOpenConns(1)
	backends := func() map[int]float64 {
		out := map[int]float64{}
		rows, err := db.Query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)
		if err != nil {
			return out
		}
		defer rows.Close()
		for rows.Next() {
			var pid int
			if rows.Scan(&pid) == nil {
				out[pid] = procCPU(pid)
			}
		}
		return out
	}
	before := backends()
	return func() float64 {
		defer db.Close()
		sum := 0.0
		for pid, t := range backends() {
			sum += t - before[pid]
		}
		return sum
	}
}

// procCPU is the CPU seconds, user and system, process pid has spent.
func procCPU(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The fields after the command name, which is in parentheses.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	var utime, stime float64
	fmt.Sscan(f[11], &utime)
	fmt.Sscan(f[12], &stime)
	return (utime + stime) / 100 // clock ticks; USER_HZ is 100 on Linux
}

// vacuum runs VACUUM (ANALYZE) on dsn's PostgreSQL database (nothing for
// SQLite).
func vacuum(dsn string) error {
	if !strings.HasPrefix(dsn, "postgres") {
		return nil
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	t := time.Now()
	if _, err := db.Exec(`VACUUM (ANALYZE)`); err != nil {
		return fmt.Errorf("vacuum A: %w", err)
	}
	fmt.Printf("vacuumed A's database in %s\n", time.Since(t).Round(time.Millisecond))
	return nil
}
