package storetest

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"smriti"
	"smriti/contract"
	"smriti/coord"
	"smriti/portability"
	"smriti/search"
	"smriti/store"
)

// portabilityCases are the search, transcript and bundle cases; Run runs
// them with the others.
var portabilityCases = []struct {
	name string
	fn   func(t *testing.T, s *store.Store)
}{
	{"SearchRanksTitleAboveListAndCutsSnippets", testSearchRanking},
	{"SearchNeverShowsAnotherUsersData", testSearchScoped},
	{"SearchIndexFollowsDeletesAndCascades", testSearchDeletes},
	{"SearchFiltersKindSpaceAndBranch", testSearchFilters},
	{"ImportConversationIsIdempotent", testImportConversation},
	{"ExportImportRoundTripIsByteIdentical", testBundleRoundTrip},
	{"ImportRefusesTamperedBundleWritingNothing", testBundleTampered},
	{"ImportExistingSpaceConflictsUnlessAsNew", testBundleAsNew},
}

// portabilitySpace builds a space with a fork, a merge, notes and turns.
func portabilitySpace(t *testing.T, ctx context.Context, s *store.Store) (*smriti.Space, []*smriti.Checkpoint) {
	t.Helper()
	sp := newSpace(t, ctx, s)
	main := newSession(t, ctx, s, sp)
	send(t, ctx, s, main, "Shall we fly to Melbourne via Singapore?")
	c1 := commit(t, ctx, s, sp, main, "Route chosen", "Fly via Singapore")
	Get(s.AddNote(ctx, c1.ID, smriti.NoteCreate{Author: "ana", Text: "Milestone: tickets booked — café at the gate", Kind: smriti.NoteKindMilestone})).Must(t)
	fork := Get(s.ForkSession(ctx, smriti.ForkCreate{SpaceID: sp.ID, CheckpointID: c1.ID, BranchName: "budget"})).Must(t)
	send(t, ctx, s, fork, "What about a cheaper hostel in Fitzroy?")
	c2 := commit(t, ctx, s, sp, fork, "Budget option", "Stay in a hostel")
	send(t, ctx, s, main, "Keep the hotel near the tram")
	c3 := commit(t, ctx, s, sp, main, "Hotel kept", "Hotel near the tram")
	merged := Get(s.CreateCheckpoint(ctx, smriti.CheckpointCreate{SpaceID: sp.ID, ParentID: &c3.ID, MergeParentID: &c2.ID,
		BranchName: smriti.MainBranch, Content: smriti.Content{Message: "Merge budget", Decisions: []string{"Fly via Singapore", "Stay in a hostel", "Hotel near the tram"},
			Tasks: []smriti.Task{{Text: "Book the hostel", Status: "open", Structured: true}, {Text: "Pack"}}},
		IntegrateBranch: "budget", Metadata: map[string]any{"merge": map[string]any{"source_branch": "budget"}}})).Must(t)
	if _, _, err := s.CreateClaim(ctx, coord.ClaimCreate{SpaceID: sp.ID, Agent: "agent-1", Scope: "book the hostel", BranchName: "budget",
		BaseCheckpointID: &c2.ID, SessionID: &fork.ID, Intent: smriti.IntentImplement}); err != nil {
		t.Fatal(err)
	}
	return sp, []*smriti.Checkpoint{c1, c2, c3, merged}
}

func exportBytes(t *testing.T, ctx context.Context, s *store.Store, id smriti.ID) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := portability.NewBundleWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ExportSpace(ctx, id, w); err != nil {
		t.Fatalf("export: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// Every export is counted by the scan alone: its import decodes each
	// record once, and the refusals the cases expect come from the checks
	// made as the records are written.
	_, held, err := portability.VerifyBundle(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("the export does not verify: %v", err)
	}
	if counts := portability.ScanBundle(bytes.NewReader(buf.Bytes())); counts == nil || *counts != *held {
		t.Fatalf("ScanBundle of the export = %+v, want %+v", counts, held)
	}
	return buf.Bytes()
}

func testBundleRoundTrip(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp, cps := portabilitySpace(t, ctx, s)
	first := exportBytes(t, ctx, s, sp.ID)
	// Import as another user on the same store needs new ids; the same ids
	// go into a fresh copy after the original is deleted.
	if err := s.DeleteSpace(ctx, sp.ID); err != nil {
		t.Fatal(err)
	}
	other := userCtx()
	got := Get(portability.ImportSpace(other, s, bytes.NewReader(first), false)).Must(t)
	if got.ID != sp.ID {
		t.Fatalf("imported space id = %s, want %s", got.ID, sp.ID)
	}
	for _, c := range cps {
		v := Get(s.VerifyCheckpoint(other, c.ID)).Must(t)
		if !v.OK {
			t.Fatalf("verify %s after import: %+v", c.Message, v)
		}
		back := Get(s.Checkpoint(other, c.ID)).Must(t)
		if back.Hash != c.Hash {
			t.Fatalf("hash of %s = %s, want %s", c.Message, back.Hash, c.Hash)
		}
	}
	second := exportBytes(t, other, s, sp.ID)
	if !bytes.Equal(first, second) {
		t.Fatalf("re-export differs: %d bytes vs %d", len(first), len(second))
	}
	// The imported turns and notes are searchable like written ones.
	hits := Get(s.Search(other, search.Query{Text: "Fitzroy hostel"})).Must(t)
	if len(hits) != 2 || hits[0].Kind != search.KindTurn || hits[0].Branch != "budget" || hits[1].Branch != "budget" {
		t.Fatalf("search after import = %d hits", len(hits))
	}
}

func testBundleTampered(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp, cps := portabilitySpace(t, ctx, s)
	good := exportBytes(t, ctx, s, sp.ID)
	tampered := rewriteBundle(t, good, "Hotel near the tram", "Hotel near the beach", 1)
	if portability.ScanBundle(bytes.NewReader(tampered)) == nil {
		t.Fatal("the scan does not count the tampered bundle: the refusal would not be the import's own")
	}
	other := userCtx()
	_, err := portability.ImportSpace(other, s, bytes.NewReader(tampered), true)
	wantCode(t, err, smriti.EUNPROCESSABLE)
	if !strings.Contains(err.Error(), cps[2].ID.String()) || !strings.Contains(err.Error(), "does not verify") {
		t.Fatalf("error does not name checkpoint %s: %v", cps[2].ID, err)
	}
	if spaces, _, _ := s.Spaces(other, smriti.Page{}); len(spaces) != 0 {
		t.Fatalf("a refused import left %d spaces", len(spaces))
	}
	if hits := Get(s.Search(other, search.Query{Text: "Singapore"})).Must(t); len(hits) != 0 {
		t.Fatalf("a refused import left searchable rows: %+v", hits)
	}
}

// rewriteBundle decompresses a bundle, replaces the n-th occurrence of old
// in the checkpoint records (1 = first) and compresses it again.
func rewriteBundle(t *testing.T, b []byte, old, new string, n int) []byte {
	t.Helper()
	lines := BundleLines(t, b)
	seen := 0
	for i, l := range lines {
		if strings.HasPrefix(l, `{"type":"checkpoint"`) && strings.Contains(l, old) {
			seen++
			if seen == n {
				lines[i] = strings.Replace(l, old, new, 1)
			}
		}
	}
	if seen < n {
		t.Fatalf("%q occurs %d times", old, seen)
	}
	return BundleOf(t, lines)
}

func testBundleAsNew(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp, cps := portabilitySpace(t, ctx, s)
	b := exportBytes(t, ctx, s, sp.ID)
	_, err := portability.ImportSpace(ctx, s, bytes.NewReader(b), false)
	wantCode(t, err, smriti.ECONFLICT)
	// Another user naming these ids gets a conflict that does not say whose.
	other := userCtx()
	_, err = portability.ImportSpace(other, s, bytes.NewReader(b), false)
	wantCode(t, err, smriti.ECONFLICT)
	if spaces, _, _ := s.Spaces(other, smriti.Page{}); len(spaces) != 0 {
		t.Fatalf("a refused import left %d spaces", len(spaces))
	}
	cp := Get(portability.ImportSpace(ctx, s, bytes.NewReader(b), true)).Must(t)
	if cp.ID == sp.ID {
		t.Fatal("as_new kept the space id")
	}
	list, _, err := s.Checkpoints(ctx, cp.ID, contract.CheckpointQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != len(cps) {
		t.Fatalf("copy has %d checkpoints, want %d", len(list), len(cps))
	}
	merge := list[0]
	if merge.Message != "Merge budget" || merge.ParentID == nil || merge.MergeParentID == nil {
		t.Fatalf("newest checkpoint of the copy = %+v", merge)
	}
	for _, c := range list {
		for _, orig := range cps {
			if c.ID == orig.ID || c.Hash == orig.Hash {
				t.Fatalf("as_new kept id or hash of %s", orig.Message)
			}
		}
	}
	if v := Get(s.VerifyCheckpoint(ctx, merge.ID)).Must(t); !v.OK || v.Checked != 4 {
		t.Fatalf("verify copy = %+v", v)
	}
	parent := Get(s.Checkpoint(ctx, *merge.MergeParentID)).Must(t)
	if parent.BranchName != "budget" || parent.Message != "Budget option" || parent.SpaceID != cp.ID {
		t.Fatalf("merge parent of the copy = %+v", parent)
	}
	claims, _, err := s.Claims(ctx, cp.ID, coord.ClaimQuery{})
	if err != nil || len(claims) != 1 || claims[0].BaseCheckpointID == nil || *claims[0].BaseCheckpointID != parent.ID ||
		claims[0].SessionID == nil || claims[0].Scope != "book the hostel" {
		t.Fatalf("claims of the copy = %+v (%v)", claims, err)
	}
	if sid := smriti.MetaOf(parent.Metadata).SessionID; sid == nil {
		t.Fatal("session_id metadata lost")
	} else if se, err := s.Session(ctx, *sid); err != nil || !se.InSpace(cp.ID) {
		t.Fatalf("metadata session_id %s does not name a session of the copy: %v", sid, err)
	}
}

func testImportConversation(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	at := time.Date(2024, 3, 1, 9, 30, 0, 0, time.UTC)
	c := &portability.Conversation{Source: portability.SourceChatGPT, Title: "Trip — Zürich", Turns: []portability.ConversationTurn{
		{Role: smriti.RoleUser, Content: "Grüezi, plan Zürich?", CreatedAt: &at},
		{Role: smriti.RoleAssistant, Content: "Sure — start at the lake."},
	}}
	se, created, err := s.ImportConversation(ctx, sp.ID, c, "conversations.json")
	if err != nil || !created {
		t.Fatalf("import: created=%v err=%v", created, err)
	}
	turns := Get(s.Turns(ctx, se.ID, contract.TurnQuery{})).Must(t)
	if len(turns) != 2 || turns[0].Seq != 0 || turns[1].Seq != 1 || turns[0].Content != "Grüezi, plan Zürich?" {
		t.Fatalf("turns = %+v", turns)
	}
	imp, _ := turns[0].Metadata["import"].(map[string]any)
	if imp["original_created_at"] != "2024-03-01T09:30:00Z" || imp["source"] != "chatgpt" {
		t.Fatalf("turn metadata = %v", turns[0].Metadata)
	}
	if se.LastSeq != 1 || se.Title != "Trip — Zürich" {
		t.Fatalf("session = %+v", se)
	}
	again, created, err := s.ImportConversation(ctx, sp.ID, c, "conversations.json")
	if err != nil || created || again.ID != se.ID {
		t.Fatalf("re-import: created=%v err=%v session=%v", created, err, again)
	}
	all, _, _ := s.Sessions(ctx, &sp.ID, smriti.Page{})
	if len(all) != 1 {
		t.Fatalf("re-import wrote a session: %d", len(all))
	}
	_, _, err = s.ImportConversation(userCtx(), sp.ID, c, "x")
	wantCode(t, err, smriti.ENOTFOUND)
}
