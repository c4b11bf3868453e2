package store_test

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"smriti"
	"smriti/coord"
	"smriti/store"
	"smriti/store/storetest"
)

// BenchmarkReadyTasks reads the ready queue of a space whose head holds
// 1,000 tasks (every third blocked by the one before it, every tenth done)
// and reports the median of the reads.
//
//	go test -run '^$' -bench ReadyTasks -benchtime 200x ./store/
func BenchmarkReadyTasks(b *testing.B) {
	b.Run("SQLite", func(b *testing.B) { benchReady(b, openBench(b, false)) })
	b.Run("Postgres", func(b *testing.B) { benchReady(b, openBench(b, true)) })
}

func openBench(b *testing.B, pg bool) *store.Store {
	b.Helper()
	dsn := b.TempDir() + "/smriti.db"
	if pg {
		dsn = storetest.PostgresDSN(b)
	}
	s, err := store.Open(context.Background(), dsn, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

func benchReady(b *testing.B, s *store.Store) {
	ctx := smriti.WithUser(context.Background(), smriti.NewID())
	sp, err := s.CreateSpace(ctx, smriti.SpaceCreate{Name: fmt.Sprintf("ready bench %d", time.Now().UnixNano())})
	if err != nil {
		b.Fatal(err)
	}
	se, err := s.CreateSession(ctx, smriti.SessionCreate{SpaceID: &sp.ID, Provider: "mock", Model: "m"})
	if err != nil {
		b.Fatal(err)
	}
	tasks := make([]smriti.Task, 1000)
	for i := range tasks {
		tasks[i] = smriti.Task{Text: fmt.Sprintf("Task number %d", i), ID: fmt.Sprintf("t%d", i), Structured: true}
		if i%3 == 2 {
			tasks[i].BlockedBy = smriti.Blockers{fmt.Sprintf("t%d", i-1)}
		}
		if i%10 == 0 {
			tasks[i].Status = smriti.TaskDone
		}
	}
	if _, err := s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: se.ID, Content: smriti.Content{Message: "plan", Tasks: tasks}}); err != nil {
		b.Fatal(err)
	}
	var ds []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		got, err := s.ReadyTasks(ctx, sp.ID, coord.ReadyQuery{})
		ds = append(ds, time.Since(t0))
		if err != nil || len(got) == 0 {
			b.Fatalf("ready: %d, %v", len(got), err)
		}
	}
	b.StopTimer()
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "p50-ms")
}
