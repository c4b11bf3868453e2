package storetest

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"smriti"
	"smriti/secretlog"
	"smriti/store"
)

// databaseFiles is what the store's own tests add to it (export_test.go):
// the files that hold the database.
type databaseFiles interface {
	DatabaseFiles(ctx context.Context) ([]string, error)
	FileRelation(ctx context.Context, file string) string
}

// testPurgeErasesFiles: after a purge the old value is in none of the
// database's files — not in SQLite's freed pages or write-ahead log; on
// PostgreSQL, with Full, not in dead row versions, in the free space of a
// page, or in the search index (a GIN index keeps a lexeme's entry after its
// rows are gone) — though many rows held it and some were rewritten before
// the purge. (PostgreSQL's own write-ahead log is outside the database's
// directory and not read: see store/purgeerase.go.) Without Full,
// PostgreSQL answers "vacuumed": page free space may still hold the bytes,
// and a later full purge that finds nothing still rewrites the files.
func testPurgeErasesFiles(t *testing.T, s *store.Store) {
	ctx := userCtx()
	df, ok := any(s).(databaseFiles)
	if !ok {
		t.Fatal("the store does not list its files: run this case from the store package's tests")
	}
	sp := newSpace(t, ctx, s)
	se := newSession(t, ctx, s, sp)
	withKey := "export GITHUB_TOKEN=" + purgeSecret
	for i := range 20 {
		send(t, ctx, s, se, strconv.Itoa(i)+": "+withKey)
	}
	Get(s.SetSessionTitle(ctx, se.ID, "Token "+purgeSecret)).Must(t)
	Get(s.SetSessionTitle(ctx, se.ID, "Token, again "+purgeSecret)).Must(t)
	c := commit(t, ctx, s, sp, se, "Deploy", "Use Go", withKey)
	commit(t, ctx, s, sp, se, "Later", "Use Go", withKey, "Ship weekly")
	Get(s.AddNote(ctx, c.ID, smriti.NoteCreate{Author: "ana", Text: "rotated " + purgeSecret, Kind: "note"})).Must(t)

	forms := [][]byte{[]byte(purgeFragment), []byte(strings.ToLower(purgeFragment)),
		[]byte(strings.ToLower(purgeFragment[len(purgeFragment)-20:]))}
	holding := func() []string {
		files, err := df.DatabaseFiles(ctx)
		if err != nil {
			t.Fatalf("list the database's files: %v", err)
		}
		var out []string
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatalf("read %s: %v", f, err)
			}
			for _, form := range forms {
				if bytes.Contains(data, form) {
					out = append(out, f+" "+df.FileRelation(ctx, f))
					break
				}
			}
		}
		return out
	}
	if len(holding()) == 0 {
		t.Fatal("before the purge no file holds the key: the test reads the wrong files")
	}
	purge := func(full bool) *secretlog.SecretPurge {
		return Get(s.PurgeSecrets(ctx, secretlog.PurgeRequest{SpaceID: sp.ID, Rule: "github-pat", By: "ana", Find: ruleFinder("github-pat"), Full: full})).Must(t)
	}
	p := purge(false)
	want := secretlog.ErasureRewritten
	if s.Engine() == "postgres" {
		want = secretlog.ErasureVacuumed
	}
	if p.Values != 1 || p.Erasure != want {
		t.Fatalf("purge: values %d, erasure %q; want 1, %q", p.Values, p.Erasure, want)
	}
	// Nothing is left to find: without Full the files are not touched
	// again; with Full they are rewritten all the same.
	if again := purge(false); again.Values != 0 || again.Erasure != secretlog.ErasureNone {
		t.Fatalf("second purge: values %d, erasure %q; want 0, %q", again.Values, again.Erasure, secretlog.ErasureNone)
	}
	if s.Engine() == "postgres" {
		if full := purge(true); full.Values != 0 || full.Erasure != secretlog.ErasureRewritten {
			t.Fatalf("full purge: values %d, erasure %q; want 0, %q", full.Values, full.Erasure, secretlog.ErasureRewritten)
		}
	}
	if files := holding(); len(files) > 0 {
		t.Fatalf("after the purge these files still hold the key: %v", files)
	}
}
