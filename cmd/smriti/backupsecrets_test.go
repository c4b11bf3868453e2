package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"smriti"
	"smriti/secretlog"
	"smriti/secrets"
	"smriti/store"
)

// TestBackupRefusesAStoreThatHoldsASecret: a key stored before redaction
// existed (written here straight to the store) stops a backup in either
// format, before any file is written, naming where it is and the command
// that finds it; once the space allows that value, the backup is made.
func TestBackupRefusesAStoreThatHoldsASecret(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	live := filepath.Join(dir, "live.db")
	ctx := smriti.WithUser(context.Background(), smriti.LocalUserID)
	db, err := store.Open(ctx, live, nil)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := db.CreateSpace(ctx, smriti.SpaceCreate{Name: "old"})
	if err != nil {
		t.Fatal(err)
	}
	key := "ghp_" + "Q7rT2wX9kL4mN8pZ3vB6cD1fG5hJ0sA2eR7u"
	if _, err := db.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID,
		Content: smriti.Content{Message: "Old", Decisions: []string{"token " + key}}}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, format := range []string{"sqlite", "bundles"} {
		file := filepath.Join(dir, "backup-"+format)
		runFails(t, bin, "backup refused: space "+sp.ID.String()+" still holds a secret stored before redaction (checkpoint ",
			"backup", "create", "--db", live, "--format", format, file)
		runFails(t, bin, "smriti secrets scan --space "+sp.ID.String(), "backup", "create", "--db", live, "--format", format, file)
		if _, err := os.Stat(file); !os.IsNotExist(err) {
			t.Fatalf("a refused %s backup left %s: %v", format, file, err)
		}
	}
	db, err = store.Open(ctx, live, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.AllowSecret(ctx, secretlog.SecretAllow{SpaceID: sp.ID, Rule: "github-pat", Fingerprint: secrets.Fingerprint(key), CreatedBy: "local"}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	runOK(t, bin, "", "backup", "create", "--db", live, "--format", "bundles", filepath.Join(dir, "allowed"))
}
