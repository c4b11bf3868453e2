package app_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"smriti"
	"smriti/app"
	"smriti/internal/synthbundle"
	"smriti/portability"
	"smriti/secrets/secretstest"
	"smriti/store"
)

// BenchmarkScanSecrets100kTurns scans a space of 100,000 turns on SQLite
// for stored secrets, as `smriti secrets scan --space` does (target: at
// most 30 s). The turns are ordinary technical messages of 40 bytes to
// 2 KB (the corpus the detector must not fire on, some joined into longer
// ones), so every one runs the detector's full scheduling. Run with
// go test ./app -run XXX -bench ScanSecrets100kTurns -benchtime 1x.
func BenchmarkScanSecrets100kTurns(b *testing.B) {
	const turns = 100_000
	msgs := secretstest.OrdinaryMessages()
	text := func(k, s int) string {
		i := (k*131 + s*17) % len(msgs)
		if k%5 == 0 { // every fifth turn is a long one
			return strings.Join(msgs[i:min(i+20, len(msgs))], "\n")
		}
		return msgs[i]
	}
	dir := b.TempDir()
	path := filepath.Join(dir, "space.bundle")
	if _, err := synthbundle.WriteFileWith(path, 10, 5, turns, text); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(dir, "scan.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	sp, err := portability.ImportSpace(ctx, s, f, false)
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	a := app.New(app.Config{Store: s})
	for b.Loop() {
		start := time.Now()
		read, err := a.ScanSecrets(ctx, &sp.ID, func(smriti.StoredSecret) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
		if read.Turns != turns {
			b.Fatalf("scanned %d turns, want %d", read.Turns, turns)
		}
		b.ReportMetric(time.Since(start).Seconds(), "s/scan")
		b.ReportMetric(float64(read.Found), "found")
	}
}
