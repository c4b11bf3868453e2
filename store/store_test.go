package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"smriti"
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
	url := os.Getenv("SMRITI_TEST_POSTGRES_URL")
	if url == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("SMRITI_TEST_POSTGRES_URL must be set in CI")
		}
		t.Skip("SMRITI_TEST_POSTGRES_URL not set")
	}
	admin, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	name := "smriti_test_" + strings.ReplaceAll(smriti.NewID().String()[:18], "-", "")
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	dsn := replaceDB(url, name)
	s, err := store.Open(context.Background(), dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Close()
		if a, err := sql.Open("pgx", url); err == nil {
			a.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
			a.Close()
		}
	})
	return s
}

func replaceDB(url, name string) string {
	base, query, _ := strings.Cut(url, "?")
	i := strings.LastIndex(base, "/")
	out := base[:i+1] + name
	if query != "" {
		out += "?" + query
	}
	return out
}

var _ = fmt.Sprint
