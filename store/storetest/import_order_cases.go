package storetest

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"smriti"
	"smriti/contract"
	"smriti/portability"
	"smriti/store"
)

var importOrderCases = []struct {
	name string
	fn   func(*testing.T, *store.Store)
}{
	{"ImportKeepsTurnsOnTheirSideOfEachCheckpoint", testImportKeepsLogOrder},
	{"ImportOfABundleWithoutLogOrderStillWorks", testImportWithoutLogOrder},
	{"ImportRefusesCountsItsRecordsDoNotMatch", testImportRefusesWrongCounts},
}

// orderedSpace is a session with two turns, a checkpoint, and two more
// turns: exported, the checkpoint's record comes before all four turns.
func orderedSpace(t *testing.T, s *store.Store) (smriti.ID, *smriti.Session, *smriti.Checkpoint, []byte) {
	t.Helper()
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	se := newSession(t, ctx, s, sp)
	send(t, ctx, s, se, "before the checkpoint")
	c := commit(t, ctx, s, sp, se, "Saved", "Use Go")
	send(t, ctx, s, se, "after the checkpoint")
	return sp.ID, se, c, exportBytes(t, ctx, s, sp.ID)
}

// turnsAfter is the contents of the session's turns after the
// checkpoint's log position, oldest first: what a HEAD-mode send is given.
func turnsAfter(t *testing.T, s *store.Store, owner *smriti.Session, c *smriti.Checkpoint) []string {
	t.Helper()
	ctx := smriti.WithUser(context.Background(), owner.OwnerID)
	se := Get(s.Session(ctx, owner.ID)).Must(t)
	cp := Get(s.Checkpoint(ctx, c.ID)).Must(t)
	w := Get(s.History(ctx, se, contract.HistoryQuery{AfterLogPos: &cp.LogPos, Budget: 1 << 20})).Must(t)
	var out []string
	for i := len(w.Turns) - 1; i >= 0; i-- {
		out = append(out, w.Turns[i].Content)
	}
	return out
}

func testImportKeepsLogOrder(t *testing.T, s *store.Store) {
	space, se, c, bundle := orderedSpace(t, s)
	want := "after the checkpoint|reply to after the checkpoint"
	if got := strings.Join(turnsAfter(t, s, se, c), "|"); got != want {
		t.Fatalf("before export, turns after the checkpoint = %q, want %q", got, want)
	}
	if err := s.DeleteSpace(smriti.WithUser(context.Background(), se.OwnerID), space); err != nil {
		t.Fatal(err)
	}
	Get(portability.ImportSpace(smriti.WithUser(context.Background(), se.OwnerID), s, bytes.NewReader(bundle), false)).Must(t)
	if got := strings.Join(turnsAfter(t, s, se, c), "|"); got != want {
		t.Errorf("after import, turns after the checkpoint = %q, want %q (the turns before it must stay before it)", got, want)
	}
}

// A bundle written before log_order existed is logged in record order:
// checkpoints, then turns.
func testImportWithoutLogOrder(t *testing.T, s *store.Store) {
	space, se, c, bundle := orderedSpace(t, s)
	lines := BundleLines(t, bundle)
	strip := regexp.MustCompile(`,"log_order":\d+`)
	stripped, orders := make([]string, len(lines)), 0
	for i, l := range lines {
		stripped[i] = strip.ReplaceAllString(l, "")
		if stripped[i] != l {
			orders++
		}
	}
	if orders != 5 { // one checkpoint, four turns
		t.Fatalf("the bundle has %d records with log_order, want 5:\n%s", orders, strings.Join(lines, "\n"))
	}
	old := BundleOf(t, stripped)
	if err := s.DeleteSpace(smriti.WithUser(context.Background(), se.OwnerID), space); err != nil {
		t.Fatal(err)
	}
	Get(portability.ImportSpace(smriti.WithUser(context.Background(), se.OwnerID), s, bytes.NewReader(old), false)).Must(t)
	want := "before the checkpoint|reply to before the checkpoint|after the checkpoint|reply to after the checkpoint"
	if got := strings.Join(turnsAfter(t, s, se, c), "|"); got != want {
		t.Errorf("turns after the checkpoint = %q, want every turn %q", got, want)
	}
	mixedLines := append([]string(nil), lines...)
	for i, l := range mixedLines {
		if strings.Contains(l, `"type":"checkpoint"`) {
			mixedLines[i] = stripped[i]
		}
	}
	mixed := BundleOf(t, mixedLines)
	if err := s.DeleteSpace(smriti.WithUser(context.Background(), se.OwnerID), space); err != nil {
		t.Fatal(err)
	}
	_, err := portability.ImportSpace(smriti.WithUser(context.Background(), se.OwnerID), s, bytes.NewReader(mixed), false)
	wantCode(t, err, smriti.EUNPROCESSABLE)
}

// An import told more or fewer checkpoints and turns than its records hold
// (ScanBundle's counts are the end record's word) is refused, with nothing
// written.
func testImportRefusesWrongCounts(t *testing.T, s *store.Store) {
	space, se, _, bundle := orderedSpace(t, s)
	ctx := smriti.WithUser(context.Background(), se.OwnerID)
	if err := s.DeleteSpace(ctx, space); err != nil {
		t.Fatal(err)
	}
	counts := portability.ScanBundle(bytes.NewReader(bundle))
	if counts == nil || counts.Checkpoints != 1 || counts.Turns != 4 {
		t.Fatalf("ScanBundle = %+v, want 1 checkpoint and 4 turns", counts)
	}
	for _, delta := range []int{-1, 1} {
		wrong := *counts
		wrong.Turns += delta
		_, _, err := portability.ImportScanned(ctx, s, bytes.NewReader(bundle), &wrong, false)
		wantCode(t, err, smriti.EUNPROCESSABLE)
		_, err = s.Space(ctx, space)
		wantCode(t, err, smriti.ENOTFOUND)
	}
	_, held, err := portability.ImportScanned(ctx, s, bytes.NewReader(bundle), counts, false)
	if err != nil || *held != *counts {
		t.Fatalf("import: held %+v, %v; want %+v", held, err, counts)
	}
}
