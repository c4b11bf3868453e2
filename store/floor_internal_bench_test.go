package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
)

// BenchmarkWriteTxFloor is the least a write transaction costs on SQLite
// (WAL, synchronous=NORMAL, the one writer connection): BEGIN IMMEDIATE,
// one prepared one-row UPDATE (the store log's position, as every write
// takes it) and COMMIT, one after another. It bounds what any write path
// can reach per transaction on the machine it runs on.
func BenchmarkWriteTxFloor(b *testing.B) {
	s, err := Open(context.Background(), filepath.Join(b.TempDir(), "floor.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.tx(ctx, func(tx *sql.Tx) error {
			_, err := s.nextLogPositions(ctx, tx, [16]byte{}, 1)
			return err
		}); err != nil {
			b.Fatal(err)
		}
	}
}
