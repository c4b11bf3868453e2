package store_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"smriti"
	"smriti/contract"
	"smriti/portability"
	"smriti/search"
	"smriti/store"
)

// indexedSpace builds, through the ordinary write paths (each row indexed
// by its trigger), a space whose checkpoints use every field the search
// index reads, with notes and turns on two branches.
func indexedSpace(t *testing.T, ctx context.Context, s *store.Store) *smriti.Space {
	t.Helper()
	sp, err := s.CreateSpace(ctx, smriti.SpaceCreate{Name: "Index parity"})
	if err != nil {
		t.Fatal(err)
	}
	main, err := s.CreateSession(ctx, smriti.SessionCreate{SpaceID: &sp.ID, Provider: "mock", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	var last *smriti.Checkpoint
	for i := range 6 {
		if _, err := s.AppendExchange(ctx, contract.Exchange{SessionID: main.ID,
			User:      contract.TurnWrite{Content: fmt.Sprintf("Question %d about the Tasman crossing", i), Provider: "mock", Model: "m"},
			Assistant: contract.TurnWrite{Content: fmt.Sprintf("Answer %d: take the ferry from Wellington", i), Provider: "mock", Model: "m"}}); err != nil {
			t.Fatal(err)
		}
		last, err = s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: main.ID, Content: smriti.Content{
			Message: fmt.Sprintf("Leg %d planned", i), Objective: "Cross to Wellington", Summary: fmt.Sprintf("summary of leg %d", i),
			Decisions:     []string{fmt.Sprintf("Ferry number %d", i), "Book the café cabin"},
			Assumptions:   []string{"Weather holds"},
			Tasks:         []smriti.Task{{Text: fmt.Sprintf("Buy ticket %d", i), Status: "open", Structured: true}, {Text: "Pack a jumper"}},
			OpenQuestions: []string{"Does the ferry take bicycles?"},
			Entities:      []string{"Interislander"},
			Artifacts:     []smriti.Artifact{{ID: "a1", Type: "text", Label: "Timetable", Content: fmt.Sprintf("Departs 0%d:45 from Picton", i)}},
		}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.AddNote(ctx, last.ID, smriti.NoteCreate{Author: "ana", Text: fmt.Sprintf("Milestone %d: seats confirmed", i), Kind: smriti.NoteKindMilestone}); err != nil {
			t.Fatal(err)
		}
	}
	fork, err := s.ForkSession(ctx, smriti.ForkCreate{SpaceID: sp.ID, CheckpointID: last.ID, BranchName: "flight"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendExchange(ctx, contract.Exchange{SessionID: fork.ID,
		User:      contract.TurnWrite{Content: "Would flying be quicker?", Provider: "mock", Model: "m"},
		Assistant: contract.TurnWrite{Content: "A flight takes an hour", Provider: "mock", Model: "m"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: fork.ID,
		Content: smriti.Content{Message: "Fly instead", Decisions: []string{"Fly to Wellington"}}}); err != nil {
		t.Fatal(err)
	}
	return sp
}

// indexRows reads what the search index and the event log hold for a
// space, keyed by the ids of the rows they index (log positions differ
// between stores): one sorted line per index row.
func indexRows(t *testing.T, path string, space smriti.ID) map[string][]string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	queries := map[string]string{
		"checkpoint_fts": `SELECT c.id || '|' || f.message || '|' || f.objective || '|' || f.summary || '|' || coalesce(f.body, '<null>')
			FROM checkpoint_fts f JOIN checkpoints c ON c.log_pos = f.rowid WHERE c.space_id = ?`,
		"turn_fts": `SELECT t.id || '|' || f.content FROM turn_fts f JOIN turns t ON t.log_pos = f.rowid WHERE t.space_id = ?`,
		"note_fts": `SELECT f.note_id || '|' || f.text FROM note_fts f JOIN checkpoint_notes n ON n.id = f.note_id
			JOIN checkpoints c ON c.id = n.checkpoint_id WHERE c.space_id = ?`,
		"space_events": `SELECT e.kind || '|' || e.subject_id || '|' || e.branch_name || '|' || coalesce(c.id, t.id, '')
			FROM space_events e LEFT JOIN checkpoints c ON c.log_pos = e.position LEFT JOIN turns t ON t.log_pos = e.position
			WHERE e.space_id = ? AND e.kind IN ('checkpoint.created', 'session.updated')`,
		// an FTS row whose source row is gone, or a duplicate, shows here
		"fts_counts": `SELECT (SELECT count(*) FROM checkpoint_fts) || '|' || (SELECT count(*) FROM turn_fts) || '|' || (SELECT count(*) FROM note_fts)
			WHERE ? IS NOT NULL`,
		"triggers": `SELECT name || '|' || sql FROM sqlite_master WHERE type = 'trigger' AND ? IS NOT NULL`,
	}
	out := map[string][]string{}
	for name, q := range queries {
		rows, err := db.Query(q, space.String())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			out[name] = append(out[name], line)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		slices.Sort(out[name])
	}
	return out
}

// TestImportIndexesTheSpaceAsRowByRowWritesDo: an imported space's search
// index and event log, written in bulk at the end of the import, hold
// exactly the rows the per-row triggers wrote for the original, searches
// find the same things, and the triggers are back after the import.
func TestImportIndexesTheSpaceAsRowByRowWritesDo(t *testing.T) {
	ctx := smriti.WithUser(context.Background(), smriti.NewID())
	dir := t.TempDir()
	origPath, copyPath := filepath.Join(dir, "orig.db"), filepath.Join(dir, "copy.db")
	orig, err := store.Open(ctx, origPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer orig.Close()
	sp := indexedSpace(t, ctx, orig)
	var buf bytes.Buffer
	w, err := portability.NewBundleWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if err := orig.ExportSpace(ctx, sp.ID, w); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	cp, err := store.Open(ctx, copyPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	if _, err := portability.ImportSpace(ctx, cp, bytes.NewReader(buf.Bytes()), false); err != nil {
		t.Fatal(err)
	}
	want, got := indexRows(t, origPath, sp.ID), indexRows(t, copyPath, sp.ID)
	for _, name := range []string{"checkpoint_fts", "turn_fts", "note_fts", "space_events", "fts_counts", "triggers"} {
		if !slices.Equal(got[name], want[name]) {
			t.Errorf("%s after import:\n got %q\nwant %q", name, got[name], want[name])
		}
	}
	if n := len(want["checkpoint_fts"]); n != 7 {
		t.Errorf("the original indexes %d checkpoints, want 7", n)
	}
	if n := len(want["turn_fts"]); n != 14 {
		t.Errorf("the original indexes %d turns, want 14", n)
	}
	for _, q := range []string{"Interislander", "Picton", "ticket", "café cabin", "seats confirmed", "ferry Wellington", "hour", "bicycles"} {
		a, err := orig.Search(ctx, search.Query{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		b, err := cp.Search(ctx, search.Query{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		if len(a) == 0 || hitKeys(a) != hitKeys(b) {
			t.Errorf("search %q: original %s, copy %s", q, hitKeys(a), hitKeys(b))
		}
	}
}

func hitKeys(hits []*search.SearchHit) string {
	var keys []string
	for _, h := range hits {
		keys = append(keys, fmt.Sprintf("%s:%s:%s", h.Kind, h.Branch, h.Snippet))
	}
	return strings.Join(keys, ", ")
}

// TestFailedImportKeepsTheIndexTriggers: an import that stops midway
// rolls back with the triggers it set aside, and later writes are indexed.
func TestFailedImportKeepsTheIndexTriggers(t *testing.T) {
	ctx := smriti.WithUser(context.Background(), smriti.NewID())
	dir := t.TempDir()
	origPath, copyPath := filepath.Join(dir, "orig.db"), filepath.Join(dir, "copy.db")
	orig, err := store.Open(ctx, origPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer orig.Close()
	sp := indexedSpace(t, ctx, orig)
	var buf bytes.Buffer
	w, err := portability.NewBundleWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if err := orig.ExportSpace(ctx, sp.ID, w); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	cp, err := store.Open(ctx, copyPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	before := indexRows(t, copyPath, sp.ID)["triggers"]
	// The bundle checks out; the store refuses it halfway (the counts
	// given do not match), after rows and the set-aside triggers are written.
	_, counts, err := portability.VerifyBundle(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	counts.Turns--
	if _, _, err := portability.ImportScanned(ctx, cp, bytes.NewReader(buf.Bytes()), counts, false); smriti.ErrorCode(err) != smriti.EUNPROCESSABLE {
		t.Fatalf("import with wrong counts: %v, want EUNPROCESSABLE", err)
	}
	if _, err := cp.Space(ctx, sp.ID); smriti.ErrorCode(err) != smriti.ENOTFOUND {
		t.Fatalf("space after the failed import: %v, want ENOTFOUND", err)
	}
	after := indexRows(t, copyPath, sp.ID)
	if len(before) == 0 || !slices.Equal(after["triggers"], before) {
		t.Fatalf("triggers after a failed import:\n got %q\nwant %q", after["triggers"], before)
	}
	// Written the ordinary way, the space is indexed by those triggers.
	other := indexedSpace(t, ctx, cp)
	if n := len(indexRows(t, copyPath, other.ID)["checkpoint_fts"]); n != 7 {
		t.Fatalf("checkpoints indexed after the failed import: %d, want 7", n)
	}
}
