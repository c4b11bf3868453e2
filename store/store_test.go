package store_test

import (
	"context"
	"path/filepath"
	"testing"

	"smriti/store"
	"smriti/store/storetest"
)

func TestSQLite(t *testing.T) {
	storetest.Run(t, OpenSQLite)
}

func TestPostgres(t *testing.T) {
	storetest.Run(t, OpenPostgres)
}

// OpenSQLite opens a store on a fresh SQLite file.
func OpenSQLite(t *testing.T) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "smriti.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// OpenPostgres opens a store on a fresh database of the server named by
// SMRITI_TEST_POSTGRES_URL; it skips when unset, except in CI.
func OpenPostgres(t *testing.T) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), storetest.PostgresDSN(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
