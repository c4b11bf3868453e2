package app_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"smriti"
	"smriti/app"
	"smriti/contract"
	"smriti/internal/synthbundle"
	"smriti/portability"
	"smriti/secretlog"
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
		read, err := a.ScanSecrets(ctx, &sp.ID, func(secretlog.StoredSecret) error { return nil })
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

// BenchmarkPurgeSecret100kTurns purges one key that 100 turns hold (written
// past every door, as before redaction existed) from a space of 100,200
// turns on SQLite, as `smriti secrets purge --rule` does: the two reads of
// every stored text, the rewrites, the search index's merge and the file's
// rebuild (VACUUM) with its log emptied. Run with
// go test ./app -run XXX -bench PurgeSecret100kTurns -benchtime 1x.
func BenchmarkPurgeSecret100kTurns(b *testing.B) {
	const turns = 100_000
	key := "ghp_" + "R8x2Kq9LmZ4vT7wN1pY6sB3dF5hJ0cG2aE4u"
	msgs := secretstest.OrdinaryMessages()
	text := func(k, s int) string { return msgs[(k*131+s*17)%len(msgs)] }
	dir := b.TempDir()
	path := filepath.Join(dir, "space.bundle")
	if _, err := synthbundle.WriteFileWith(path, 10, 5, turns, text); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		db := filepath.Join(dir, "purge"+strconv.Itoa(i)+".db")
		s, err := store.Open(ctx, db, nil)
		if err != nil {
			b.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		sp, err := portability.ImportSpace(ctx, s, f, false)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		ses, _, err := s.Sessions(ctx, &sp.ID, smriti.Page{Limit: 1})
		if err != nil || len(ses) == 0 {
			b.Fatalf("sessions: %v", err)
		}
		for j := range 100 {
			if _, err := s.AppendExchange(ctx, contract.Exchange{SessionID: ses[0].ID,
				User:      contract.TurnWrite{Content: strconv.Itoa(j) + ": export GITHUB_TOKEN=" + key},
				Assistant: contract.TurnWrite{Content: "ok"}}); err != nil {
				b.Fatal(err)
			}
		}
		a := app.New(app.Config{Store: s})
		st, err := os.Stat(db)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		p, err := a.PurgeSecrets(ctx, sp.ID, "github-pat", "", false)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(time.Since(start).Seconds(), "s/purge")
		b.StopTimer()
		if p.Values != 1 || len(p.Rows) != 100 || p.Erasure != secretlog.ErasureRewritten {
			b.Fatalf("purge: %d values, %d rows, erasure %q", p.Values, len(p.Rows), p.Erasure)
		}
		b.ReportMetric(float64(st.Size())/(1<<20), "MB-database")
		s.Close()
		b.StartTimer()
	}
}
