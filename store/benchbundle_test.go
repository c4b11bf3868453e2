package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"smriti"
	"smriti/internal/synthbundle"
	"smriti/portability"
)

// BenchBundle writes the synthetic space the import, export and sync
// benchmarks read to a file of a temporary directory:
// SMRITI_BENCH_CHECKPOINTS checkpoints (1,000 by default) × 30 items, 5
// turns a checkpoint. It returns the file, the checkpoints and the space.
func BenchBundle(b *testing.B) (path string, n int, space smriti.ID) {
	b.Helper()
	n = 1000
	if v := os.Getenv("SMRITI_BENCH_CHECKPOINTS"); v != "" {
		fmt.Sscan(v, &n)
	}
	path = filepath.Join(b.TempDir(), "space.bundle")
	space, err := synthbundle.WriteFile(path, n, 30, 5*n)
	if err != nil {
		b.Fatal(err)
	}
	return path, n, space
}

// ImportBenchBundle imports the bundle at path into s as it is (ids and
// hashes kept) and returns the space.
func ImportBenchBundle(b *testing.B, s *Store, path string) *smriti.Space {
	b.Helper()
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sp, err := portability.ImportSpace(context.Background(), s, f, false)
	if err != nil {
		b.Fatal(err)
	}
	return sp
}
