package store_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pressly/goose/v3"

	"smriti"
	"smriti/store"
	"smriti/store/storetest"
)

// Migration 14 on both engines: an owner's duplicate space names become
// "name (2)", "name (3)" in order of creation (the oldest keeps the name),
// a suffix already taken falls back to the id's first 8 characters, other
// owners' names are untouched, and from then on the name is unique; the
// way down and up again works.
func TestSpaceNamesMigrationSQLite(t *testing.T) {
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	testSpaceNamesMigration(t, db, goose.DialectSQLite3, "sqlite", "?")
}

func TestSpaceNamesMigrationPostgres(t *testing.T) {
	db, err := sql.Open("pgx", storetest.PostgresDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	testSpaceNamesMigration(t, db, goose.DialectPostgres, "postgres", "$")
}

func testSpaceNamesMigration(t *testing.T, db *sql.DB, dialect goose.Dialect, engine, mark string) {
	ctx := context.Background()
	sub, err := store.Migrations(engine)
	if err != nil {
		t.Fatal(err)
	}
	p, err := goose.NewProvider(dialect, db, sub)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 12); err != nil {
		t.Fatal(err)
	}
	ph := func(q string) string {
		if mark == "?" {
			return q
		}
		for i := 1; strings.Contains(q, "?"); i++ {
			q = strings.Replace(q, "?", "$"+string(rune('0'+i)), 1)
		}
		return q
	}
	owner, other := smriti.NewID(), smriti.NewID()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ids := make([]smriti.ID, 6)
	rows := []struct {
		owner smriti.ID
		name  string
	}{{owner, "demo"}, {owner, "demo"}, {owner, "demo (2)"}, {owner, "demo"}, {other, "demo"}, {owner, "solo"}}
	for i, r := range rows {
		ids[i] = smriti.NewID()
		at := base.Add(time.Duration(i) * time.Hour).Format(time.RFC3339Nano)
		if _, err := db.ExecContext(ctx, ph(`INSERT INTO spaces (id, owner_id, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`),
			ids[i], r.owner, r.name, at, at); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := p.UpTo(ctx, 14); err != nil {
		t.Fatal(err)
	}
	want := []string{"demo", "demo (" + ids[1].String()[:8] + ")", "demo (2)", "demo (3)", "demo", "solo"}
	for i, id := range ids {
		var name string
		if err := db.QueryRowContext(ctx, ph(`SELECT name FROM spaces WHERE id = ?`), id).Scan(&name); err != nil {
			t.Fatal(err)
		}
		if name != want[i] {
			t.Errorf("space %d named %q, want %q", i, name, want[i])
		}
	}
	_, err = db.ExecContext(ctx, ph(`INSERT INTO spaces (id, owner_id, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`),
		smriti.NewID(), owner, "solo", base.Format(time.RFC3339Nano), base.Format(time.RFC3339Nano))
	if err == nil {
		t.Fatal("a second space named solo was accepted after the migration")
	}
	// Down drops the index and the lease column (the names stay); up again.
	if _, err := p.DownTo(ctx, 12); err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 14); err != nil {
		t.Fatal(err)
	}
}
