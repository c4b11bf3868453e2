package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"smriti"
	"smriti/contract"
	"smriti/store"
	"smriti/store/storetest"
)

// BenchmarkGroupCommitBatch writes batches of three exchanges, one to each
// of three sessions in three spaces (the group commit's batch with three
// replicas sharing the load), on PostgreSQL, pipelined and through
// database/sql, and reports the process's CPU per batch and, when the
// database runs on this machine, its backends' (the store's connections'):
//
//	SMRITI_TEST_POSTGRES_URL=... go test -run '^$' -bench GroupCommitBatch -cpu 1 ./store/
func BenchmarkGroupCommitBatch(b *testing.B) {
	for _, mode := range []string{"pipelined", "database-sql"} {
		b.Run(mode, func(b *testing.B) {
			dsn := storetest.PostgresDSN(b)
			s, err := store.Open(context.Background(), dsn, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			if mode == "database-sql" {
				// The COMMIT hooks keep a batch on s.tx.
				s.SetCommitFaults(func() error { return nil }, nil)
			}
			ctx := smriti.WithUser(context.Background(), smriti.NewID())
			var exs []contract.Exchange
			for i := 0; i < 3; i++ {
				sp := storetest.Get(s.CreateSpace(ctx, smriti.SpaceCreate{Name: fmt.Sprintf("space %d", i)})).Must(b)
				se := storetest.Get(s.CreateSession(ctx, smriti.SessionCreate{SpaceID: &sp.ID, Provider: "mock", Model: "m"})).Must(b)
				exs = append(exs, contract.Exchange{SessionID: se.ID,
					User:      contract.TurnWrite{Content: "a question", Provider: "mock", Model: "m", Tokens: 3},
					Assistant: contract.TurnWrite{Content: "an answer", Provider: "mock", Model: "m", Tokens: 5}})
			}
			ctxs := slices.Repeat([]context.Context{ctx}, len(exs))
			write := func() {
				if _, errs := s.WriteGroup(ctxs, exs); errs[0] != nil {
					b.Fatal(errs[0])
				}
			}
			for i := 0; i < 20; i++ {
				write()
			}
			backends := backendPIDs(b, dsn)
			pg0 := ticksOf(backends)
			var r0, r1 syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				write()
			}
			b.StopTimer()
			syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
			cpu := (r1.Utime.Nano() + r1.Stime.Nano()) - (r0.Utime.Nano() + r0.Stime.Nano())
			b.ReportMetric(float64(cpu)/1e3/float64(b.N), "cpu-µs/batch")
			if pg := ticksOf(backends) - pg0; len(backends) > 0 {
				b.ReportMetric(float64(pg)*1e4/float64(b.N), "pg-cpu-µs/batch")
			}
		})
	}
}

// backendPIDs lists the PostgreSQL backends connected to dsn's database
// other than the one asking.
func backendPIDs(b *testing.B, dsn string) []int {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	var pids []int
	for rows.Next() {
		var pid int
		if rows.Scan(&pid) == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// ticksOf sums the user and system CPU ticks (10 ms) of processes on this
// machine; a process that is not here counts nothing.
func ticksOf(pids []int) int64 {
	var n int64
	for _, pid := range pids {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		s := string(data)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 13 {
			continue
		}
		u, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		n += u + st
	}
	return n
}
