package storetest

import (
	"database/sql"
	"os"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver for the admin connection

	"smriti"
)

// PostgresDSN creates a throwaway database on the PostgreSQL server named by
// SMRITI_TEST_POSTGRES_URL, drops it when the test ends, and returns its
// URL. It skips the test when the variable is unset, except in CI, where a
// missing server is a failure.
func PostgresDSN(t testing.TB) string {
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
	t.Cleanup(func() {
		if a, err := sql.Open("pgx", url); err == nil {
			a.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
			a.Close()
		}
	})
	base, query, _ := strings.Cut(url, "?")
	out := base[:strings.LastIndex(base, "/")+1] + name
	if query != "" {
		out += "?" + query
	}
	return out
}
