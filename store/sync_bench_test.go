package store_test

import (
	"context"
	"io"
	"path/filepath"
	"testing"

	"smriti"
	"smriti/portability"
	"smriti/records"
	"smriti/remote"
	"smriti/store"
	"smriti/store/storetest"
)

// BenchmarkSyncOneCheckpoint measures the answering side of a fetch of one
// new checkpoint on top of a long history (SMRITI_BENCH_CHECKPOINTS, 1,000
// by default, × 30 items, 5 turns a checkpoint), on SQLite and, when
// SMRITI_TEST_POSTGRES_URL is set, on PostgreSQL: the refs a fetch and a
// push ask for first, and the export of what the asker lacks. Its cost
// should follow the change, not the history: compare the figures at 1,000
// and 10,000 checkpoints.
func BenchmarkSyncOneCheckpoint(b *testing.B) {
	path, _, space := store.BenchBundle(b)
	ctx := context.Background()
	engines := []struct {
		name string
		dsn  func() string
	}{
		{"SQLite", func() string { return filepath.Join(b.TempDir(), "sync.db") }},
		{"Postgres", func() string { return storetest.PostgresDSN(b) }},
	}
	for _, e := range engines {
		b.Run(e.name, func(b *testing.B) {
			s, err := store.Open(ctx, e.dsn(), nil)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			store.ImportBenchBundle(b, s, path)
			heads, cursor, err := s.SyncHeads(ctx, space)
			if err != nil || len(heads) != 1 {
				b.Fatalf("heads %v, %v", heads, err)
			}
			if _, err := s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: space,
				Content: smriti.Content{Message: "One more", Decisions: []string{"One more decision"}}}); err != nil {
				b.Fatal(err)
			}
			want := remote.Want{Haves: []string{heads[0].Hash}, Branches: []string{}, Since: cursor}
			b.Run("Refs", func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if _, _, err := s.SyncHeads(ctx, space); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("Export", func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					w, err := portability.NewSyncWriter(io.Discard)
					if err != nil {
						b.Fatal(err)
					}
					cw := &countingWriter{BundleWriter: w}
					if err := s.SyncExport(ctx, space, want, cw); err != nil {
						b.Fatal(err)
					}
					if cw.checkpoints != 1 {
						b.Fatalf("exported %d checkpoints; want 1", cw.checkpoints)
					}
				}
			})
		})
	}
}

// countingWriter counts the checkpoints written through it.
type countingWriter struct {
	*portability.BundleWriter
	checkpoints int
}

func (w *countingWriter) Write(rec records.BundleRecord) error {
	if rec.Type == records.RecordCheckpoint {
		w.checkpoints++
	}
	return w.BundleWriter.Write(rec)
}
