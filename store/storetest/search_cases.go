package storetest

import (
	"testing"

	"smriti"
	"smriti/search"
	"smriti/store"
)

func testSearchRanking(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	se := newSession(t, ctx, s, sp)
	inList := commit(t, ctx, s, sp, se, "Flights", "Take the night train from Sydney", "Book seats early")
	inTitle := commit(t, ctx, s, sp, se, "Night train to Adelaide", "Sleeper cabin")
	commit(t, ctx, s, sp, se, "Unrelated", "Nothing to see")
	hits := Get(s.Search(ctx, search.Query{Text: "night TRAIN", Kinds: []string{search.KindCheckpoint}})).Must(t)
	cases := []struct {
		name    string
		hit     int
		id      smriti.ID
		snippet string
	}{
		{"TitleMatchFirst", 0, inTitle.ID, "<mark>Night</mark> <mark>train</mark> to Adelaide · summary of <mark>Night</mark> <mark>train</mark> to Adelaide · Sleeper cabin"},
		{"ListMatchSecond", 1, inList.ID, "Flights · summary of Flights · Take the <mark>night</mark> <mark>train</mark> from Sydney · Book seats early"},
	}
	if len(hits) != 2 {
		t.Fatalf("hits = %d, want 2: %+v", len(hits), hits)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := hits[c.hit]
			if h.ID != c.id || h.Snippet != c.snippet {
				t.Fatalf("hit %d = %s %q, want %s %q", c.hit, h.ID, h.Snippet, c.id, c.snippet)
			}
			if h.CommitHash == nil || h.Branch != smriti.MainBranch || h.SpaceID != sp.ID {
				t.Fatalf("hit %d lacks hash/branch/space: %+v", c.hit, h)
			}
		})
	}
	_, err := s.Search(ctx, search.Query{Text: "  ,, "})
	wantCode(t, err, smriti.EUNPROCESSABLE)
	_, err = s.Search(ctx, search.Query{Text: "x", Kinds: []string{"space"}})
	wantCode(t, err, smriti.EUNPROCESSABLE)
	// Query syntax is never passed through: quotes and operators are words.
	if hits := Get(s.Search(ctx, search.Query{Text: `"night" OR NEAR(train*`})).Must(t); len(hits) != 0 {
		t.Fatalf("operator query matched %d", len(hits))
	}
}

func testSearchScoped(t *testing.T, s *store.Store) {
	mine, theirs := userCtx(), userCtx()
	sp := newSpace(t, theirs, s)
	se := newSession(t, theirs, s, sp)
	send(t, theirs, s, se, "the secret kangaroo plan")
	c := commit(t, theirs, s, sp, se, "Kangaroo decision", "kangaroo first")
	Get(s.AddNote(theirs, c.ID, smriti.NoteCreate{Author: "x", Text: "kangaroo note", Kind: smriti.NoteKindNote})).Must(t)
	if hits := Get(s.Search(theirs, search.Query{Text: "kangaroo"})).Must(t); len(hits) != 4 {
		t.Fatalf("owner sees %d hits, want 4 (checkpoint, note, two turns)", len(hits))
	}
	if hits := Get(s.Search(mine, search.Query{Text: "kangaroo"})).Must(t); len(hits) != 0 {
		t.Fatalf("another user sees %+v", hits)
	}
	_, err := s.Search(mine, search.Query{Text: "kangaroo", SpaceID: &sp.ID})
	wantCode(t, err, smriti.ENOTFOUND)
}

func testSearchDeletes(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	se := newSession(t, ctx, s, sp)
	root := commit(t, ctx, s, sp, se, "Wombat root")
	fork := Get(s.ForkSession(ctx, smriti.ForkCreate{SpaceID: sp.ID, CheckpointID: root.ID, BranchName: "side"})).Must(t)
	send(t, ctx, s, fork, "wombat on the side branch")
	child := commit(t, ctx, s, sp, fork, "Wombat child")
	Get(s.AddNote(ctx, child.ID, smriti.NoteCreate{Author: "a", Text: "wombat note", Kind: smriti.NoteKindNote})).Must(t)
	count := func() int {
		return len(Get(s.Search(ctx, search.Query{Text: "wombat", Limit: 100})).Must(t))
	}
	if n := count(); n != 5 {
		t.Fatalf("before delete: %d hits, want 5", n)
	}
	if err := s.DeleteCheckpoint(ctx, root.ID, true); err != nil {
		t.Fatal(err)
	}
	// The cascade took the child, its note, the forked session and its turns.
	if n := count(); n != 0 {
		t.Fatalf("after cascade: %d hits, want 0: %+v", n, Get(s.Search(ctx, search.Query{Text: "wombat"})).Must(t))
	}
	send(t, ctx, s, se, "wombat again")
	if n := count(); n != 2 {
		t.Fatalf("after new send: %d hits, want 2", n)
	}
	if err := s.DeleteSpace(ctx, sp.ID); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 0 {
		t.Fatalf("after deleting the space: %d hits", n)
	}
}

func testSearchFilters(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp, cps := portabilitySpace(t, ctx, s)
	other := newSpace(t, ctx, s)
	commit(t, ctx, s, other, newSession(t, ctx, s, other), "Hostel elsewhere")
	// Each send writes the user's turn and the mock's "reply to …" turn.
	cases := []struct {
		name  string
		q     search.Query
		kinds []string
	}{
		{"AllKindsAllSpaces", search.Query{Text: "hostel"}, []string{"checkpoint", "checkpoint", "checkpoint", "turn", "turn"}},
		{"OneSpace", search.Query{Text: "hostel", SpaceID: &sp.ID}, []string{"checkpoint", "checkpoint", "turn", "turn"}},
		{"BranchOnly", search.Query{Text: "hostel", Branch: "budget"}, []string{"checkpoint", "turn", "turn"}},
		{"TurnsOnly", search.Query{Text: "hostel", Kinds: []string{search.KindTurn}}, []string{"turn", "turn"}},
		{"NotesOnly", search.Query{Text: "tickets", Kinds: []string{search.KindNote}}, []string{"note"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hits := Get(s.Search(ctx, c.q)).Must(t)
			var kinds []string
			for _, h := range hits {
				kinds = append(kinds, h.Kind)
			}
			if len(kinds) != len(c.kinds) {
				t.Fatalf("kinds = %v, want %v", kinds, c.kinds)
			}
			counts := map[string]int{}
			for _, k := range kinds {
				counts[k]++
			}
			for _, k := range c.kinds {
				counts[k]--
			}
			for k, n := range counts {
				if n != 0 {
					t.Fatalf("kinds = %v, want %v (%s)", kinds, c.kinds, k)
				}
			}
		})
	}
	note := Get(s.Search(ctx, search.Query{Text: "tickets", Kinds: []string{search.KindNote}})).Must(t)[0]
	if note.CheckpointID == nil || *note.CheckpointID != cps[0].ID || *note.CommitHash != cps[0].Hash ||
		note.Snippet != "Milestone: <mark>tickets</mark> booked — café at the gate" {
		t.Fatalf("note hit = %+v", note)
	}
}
