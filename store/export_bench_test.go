package store_test

import (
	"context"
	"path/filepath"
	"testing"

	"smriti/portability"
	"smriti/store"
	"smriti/store/storetest"
)

// byteCounter counts the bytes written through it.
type byteCounter struct{ n int64 }

func (w *byteCounter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// BenchmarkExportSpaceBundle exports a space of 1,000 checkpoints × 30
// items and 5,000 turns (a clone asks for the same export) from SQLite
// and, when SMRITI_TEST_POSTGRES_URL is set, from PostgreSQL, as the
// export route does (app.ExportSpace): one read of the space, each record
// through the secret guard into the bundle, which is only counted here. It
// reports the CPU time of the process per checkpoint and the bundle's
// bytes.
// SMRITI_BENCH_CHECKPOINTS changes the size (turns stay 5 a checkpoint).
func BenchmarkExportSpaceBundle(b *testing.B) {
	path, n, _ := store.BenchBundle(b)
	ctx := context.Background()
	engines := []struct {
		name string
		dsn  func(b *testing.B) string
	}{
		{"SQLite", func(b *testing.B) string { return filepath.Join(b.TempDir(), "export.db") }},
		{"Postgres", func(b *testing.B) string { return storetest.PostgresDSN(b) }},
	}
	for _, e := range engines {
		b.Run(e.name, func(b *testing.B) {
			s, err := store.Open(ctx, e.dsn(b), nil)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			sp := store.ImportBenchBundle(b, s, path)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := processCPU()
				var out byteCounter
				bw, err := portability.NewBundleWriter(&out)
				if err != nil {
					b.Fatal(err)
				}
				guard := &portability.SecretGuard{Next: bw, Space: sp.ID, Exit: "export"}
				if err := s.ExportSpace(ctx, sp.ID, guard); err != nil {
					b.Fatal(err)
				}
				if err := bw.Close(); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric((processCPU()-start).Seconds()*1e3/float64(n), "export-cpu-ms/checkpoint")
				b.ReportMetric(float64(out.n)/float64(n), "bytes/checkpoint")
			}
		})
	}
}
