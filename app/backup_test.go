package app_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"smriti/app"
)

// Create refuses a file that exists before it opens any database; Restore
// tells a file that is no backup by its first bytes, before it opens the
// target.
func TestBackupsRefuseBeforeOpening(t *testing.T) {
	dir := t.TempDir()
	b := &app.Backups{Open: func(context.Context, string) (app.BackupStore, error) {
		return nil, errors.New("no database may be opened")
	}}
	existing := filepath.Join(dir, "existing")
	if err := os.WriteFile(existing, []byte("not a backup, but long enough"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := b.Create(ctx, "live.db", existing, "auto"); err == nil || err.Error() != existing+" already exists; a backup never overwrites a file" {
		t.Fatalf("Create over an existing file: %v", err)
	}
	if _, err := b.Restore(ctx, existing, "restored.db"); err == nil || err.Error() != existing+" is neither an SQLite backup nor a bundle archive" {
		t.Fatalf("Restore of a file that is no backup: %v", err)
	}
	short := filepath.Join(dir, "short")
	if err := os.WriteFile(short, []byte("tiny"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Restore(ctx, short, "restored.db"); err == nil || err.Error() != short+" is not a Smriti backup (too short)" {
		t.Fatalf("Restore of a short file: %v", err)
	}
	if _, err := b.Create(ctx, "postgres://u:secret@db/smriti", filepath.Join(dir, "new"), "auto"); err == nil ||
		err.Error() != "open database postgres://u:secret@db/smriti: no database may be opened" {
		t.Fatalf("Create when the database cannot be opened: %v", err)
	}
}
