package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"time"

	"github.com/pressly/goose/v3"
)

// Migration is one embedded migration and whether a database has it.
type Migration struct {
	Version   int64      `json:"version"`
	Name      string     `json:"name"`
	Applied   bool       `json:"applied"`
	AppliedAt *time.Time `json:"applied_at"`
}

// MigrationStatus lists the embedded migrations for the engine dsn names
// and which of them the database has applied, without applying any. An
// SQLite file that does not exist yet has every migration pending (and is
// not created).
func MigrationStatus(ctx context.Context, dsn string) ([]Migration, error) {
	engine, driver, conn := "postgres", "pgx", dsn
	gd := goose.DialectPostgres
	if !strings.HasPrefix(dsn, "postgres://") && !strings.HasPrefix(dsn, "postgresql://") {
		engine, driver, gd = "sqlite", "sqlite", goose.DialectSQLite3
		p := strings.TrimPrefix(dsn, "sqlite:")
		if p == "" {
			return nil, errors.New("empty database path")
		}
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			return pendingMigrations(engine)
		}
		conn = "file:" + p + "?_pragma=busy_timeout(10000)"
	}
	db, err := sql.Open(driver, conn)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	defer db.Close()
	sub, err := fs.Sub(migrations, "migrations/"+engine)
	if err != nil {
		return nil, err
	}
	p, err := goose.NewProvider(gd, db, sub)
	if err != nil {
		return nil, fmt.Errorf("migrations: %w", err)
	}
	st, err := p.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("migration status: %w", err)
	}
	out := make([]Migration, 0, len(st))
	for _, m := range st {
		mig := Migration{Version: m.Source.Version, Name: path.Base(m.Source.Path), Applied: m.State == goose.StateApplied}
		if mig.Applied && !m.AppliedAt.IsZero() {
			at := m.AppliedAt.UTC()
			mig.AppliedAt = &at
		}
		out = append(out, mig)
	}
	return out, nil
}

func pendingMigrations(engine string) ([]Migration, error) {
	entries, err := fs.ReadDir(migrations, "migrations/"+engine)
	if err != nil {
		return nil, err
	}
	out := []Migration{}
	for _, e := range entries {
		v, err := goose.NumericComponent(e.Name())
		if err != nil {
			continue
		}
		out = append(out, Migration{Version: v, Name: e.Name()})
	}
	return out, nil
}
