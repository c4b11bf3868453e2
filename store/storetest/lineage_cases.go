package storetest

import (
	"context"
	"slices"
	"testing"

	"smriti"
	"smriti/lineage"
	"smriti/store"
)

// history is a small space with two branches off main and a merge:
//
//	main:  A ─ B ─ C ─────── M (merges X2)
//	x:      └─ X1 ─ X2 ─┘ ─ X3
//	y:          └─ Y1
type history struct {
	space                      *smriti.Space
	main, forkX, forkY         *smriti.Session
	a, b, c, x1, x2, x3, y1, m *smriti.Checkpoint
}

func buildHistory(t *testing.T, ctx context.Context, s *store.Store) *history {
	t.Helper()
	h := &history{space: newSpace(t, ctx, s)}
	h.main = newSession(t, ctx, s, h.space)
	h.a = commit(t, ctx, s, h.space, h.main, "A", "fly to Sydney")
	h.forkX = Get(s.ForkSession(ctx, smriti.ForkCreate{SpaceID: h.space.ID, CheckpointID: h.a.ID, BranchName: "x"})).Must(t)
	h.b = commit(t, ctx, s, h.space, h.main, "B")
	h.forkY = Get(s.ForkSession(ctx, smriti.ForkCreate{SpaceID: h.space.ID, CheckpointID: h.b.ID, BranchName: "y"})).Must(t)
	h.x1 = commit(t, ctx, s, h.space, h.forkX, "X1")
	h.c = commit(t, ctx, s, h.space, h.main, "C")
	h.x2 = commit(t, ctx, s, h.space, h.forkX, "X2")
	h.y1 = commit(t, ctx, s, h.space, h.forkY, "Y1")
	h.m = Get(s.CreateCheckpoint(ctx, smriti.CheckpointCreate{SpaceID: h.space.ID, ParentID: &h.c.ID, MergeParentID: &h.x2.ID,
		BranchName: smriti.MainBranch, AuthorType: smriti.AuthorSystem, Content: smriti.Content{Message: "Merge x into main"},
		IntegrateBranch: "x"})).Must(t)
	h.x3 = commit(t, ctx, s, h.space, h.forkX, "X3")
	return h
}

func testCommonAncestor(t *testing.T, s *store.Store) {
	ctx := userCtx()
	h := buildHistory(t, ctx, s)
	root := Get(s.CreateCheckpoint(ctx, smriti.CheckpointCreate{SpaceID: h.space.ID, BranchName: "orphan",
		Content: smriti.Content{Message: "unrelated root"}})).Must(t)
	for _, c := range []struct {
		name string
		a, b *smriti.Checkpoint
		want *smriti.Checkpoint
	}{
		{"SameCheckpointIsItself", h.b, h.b, h.b},
		{"AncestorOfDescendantIsTheAncestor", h.c, h.a, h.a},
		{"DescendantOfAncestorIsTheAncestor", h.a, h.c, h.a},
		{"SiblingBranchesMeetAtTheForkPoint", h.x1, h.y1, h.a},
		{"BranchAndLaterMainMeetAtTheForkPoint", h.y1, h.c, h.b},
		{"UnrelatedHistoriesHaveNone", root, h.c, nil},
		{"MergedBranchHeadIsAncestorOfTheMerge", h.m, h.x2, h.x2},
		{"AcrossAMergeTheBranchContinuesFromTheMergedHead", h.m, h.x3, h.x2},
		{"AcrossAMergeMainStillMeetsOtherBranchesAtTheirForkPoint", h.m, h.y1, h.b},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := s.CommonAncestor(ctx, c.a.ID, c.b.ID)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case c.want == nil && got != nil:
				t.Fatalf("LCA(%s, %s) = %s, want none", c.a.Message, c.b.Message, got.Message)
			case c.want != nil && (got == nil || got.ID != c.want.ID):
				t.Fatalf("LCA(%s, %s) = %v, want %s", c.a.Message, c.b.Message, got, c.want.Message)
			case got != nil && (got.Hash == "" || got.Decisions == nil || got.Notes == nil):
				t.Fatalf("LCA is not a full checkpoint: %+v", got)
			}
		})
	}
	t.Run("DifferentSpacesAreInvalid", func(t *testing.T) {
		other := newSpace(t, ctx, s)
		o := commit(t, ctx, s, other, newSession(t, ctx, s, other), "O")
		_, err := s.CommonAncestor(ctx, o.ID, h.a.ID)
		wantCode(t, err, smriti.EINVALID)
		if smriti.ErrorMessage(err) != "Checkpoints belong to different spaces" {
			t.Fatalf("message = %q", smriti.ErrorMessage(err))
		}
	})
	t.Run("UnknownOrInvisibleCheckpointIsNotFound", func(t *testing.T) {
		_, err := s.CommonAncestor(ctx, h.a.ID, smriti.NewID())
		wantCode(t, err, smriti.ENOTFOUND)
		_, err = s.CommonAncestor(ctx, smriti.NewID(), smriti.NewID())
		wantCode(t, err, smriti.ENOTFOUND)
		_, err = s.CommonAncestor(userCtx(), h.a.ID, h.b.ID)
		wantCode(t, err, smriti.ENOTFOUND)
	})
}

// testCommonAncestorTamperedCycle edits rows by hand into a parent cycle;
// the walk must still end and answer.
func testCommonAncestorTamperedCycle(t *testing.T, s *store.Store) {
	ctx := userCtx()
	h := buildHistory(t, ctx, s)
	// A's parent becomes C, C's ancestor: A → C → B → A → …
	if _, err := s.DB().Exec(s.Rebind(`UPDATE checkpoints SET parent_id = ? WHERE id = ?`), h.c.ID, h.a.ID); err != nil {
		t.Fatal(err)
	}
	got := Get(s.CommonAncestor(ctx, h.c.ID, h.y1.ID)).Must(t)
	if got == nil || got.ID != h.b.ID {
		t.Fatalf("LCA over a cycle = %v, want B", got)
	}
	got = Get(s.CommonAncestor(ctx, h.x3.ID, h.y1.ID)).Must(t)
	if got == nil || got.ID != h.a.ID {
		t.Fatalf("LCA over a cycle = %v, want A", got)
	}
	if list := Get(s.ReachableCheckpoints(ctx, h.forkY.ID)).Must(t); len(list) != 3 {
		t.Fatalf("reachable over a cycle = %v", names(list))
	}
}

func testReachable(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	main := newSession(t, ctx, s, sp)
	commit(t, ctx, s, sp, main, "A")
	b := commit(t, ctx, s, sp, main, "B")
	Get(s.AddNote(ctx, b.ID, smriti.NoteCreate{Author: "me", Text: "key point", Kind: smriti.NoteKindMilestone})).Must(t)
	f := Get(s.ForkSession(ctx, smriti.ForkCreate{SpaceID: sp.ID, CheckpointID: b.ID, BranchName: "f"})).Must(t)
	g := Get(s.ForkSession(ctx, smriti.ForkCreate{SpaceID: sp.ID, CheckpointID: b.ID, BranchName: "g"})).Must(t)

	want := func(t *testing.T, se *smriti.Session, names_ ...string) []*smriti.Checkpoint {
		t.Helper()
		got := Get(s.ReachableCheckpoints(ctx, se.ID)).Must(t)
		if !slices.Equal(names(got), names_) {
			t.Fatalf("reachable from %s = %v, want %v", se.BranchName, names(got), names_)
		}
		return got
	}
	want(t, f, "B", "A") // a fork with no checkpoints yet sees its source and its ancestors
	commit(t, ctx, s, sp, f, "F1")
	commit(t, ctx, s, sp, main, "C")
	commit(t, ctx, s, sp, g, "G1")
	f2 := commit(t, ctx, s, sp, f, "F2")

	t.Run("ForkSeesItsBranchAndItsSourceNotLaterMainNorSiblings", func(t *testing.T) {
		got := want(t, f, "F2", "F1", "B", "A")
		if len(got[2].Notes) != 1 || got[2].Notes[0].Text != "key point" {
			t.Fatalf("notes of B = %+v", got[2].Notes)
		}
	})
	t.Run("MainSessionSeesMainNewestFirst", func(t *testing.T) { want(t, main, "C", "B", "A") })
	t.Run("SiblingSeesOnlyItsOwnBranch", func(t *testing.T) { want(t, g, "G1", "B", "A") })
	t.Run("ABranchMergedIntoTheForkBecomesReachable", func(t *testing.T) {
		g1 := Get(s.LatestCheckpoints(ctx, sp.ID, "g", 1)).Must(t)[0]
		Get(s.CreateCheckpoint(ctx, smriti.CheckpointCreate{SpaceID: sp.ID, ParentID: &f2.ID, MergeParentID: &g1.ID, BranchName: "f",
			Content: smriti.Content{Message: "FM"}})).Must(t)
		want(t, f, "FM", "F2", "G1", "F1", "B", "A")
	})
	t.Run("UnattachedSessionSeesNothing", func(t *testing.T) {
		loose := Get(s.CreateSession(ctx, smriti.SessionCreate{Title: "loose"})).Must(t)
		if got := Get(s.ReachableCheckpoints(ctx, loose.ID)).Must(t); got == nil || len(got) != 0 {
			t.Fatalf("unattached = %v", got)
		}
	})
	t.Run("ForkWhoseSourceWasDeletedSeesMain", func(t *testing.T) {
		leaf := commit(t, ctx, s, sp, main, "D")
		h := Get(s.ForkSession(ctx, smriti.ForkCreate{SpaceID: sp.ID, CheckpointID: leaf.ID, BranchName: "h"})).Must(t)
		// Only a row deleted under the store leaves a fork without its
		// source (the store's own delete refuses or takes the fork along).
		if _, err := s.DB().Exec(s.Rebind(`DELETE FROM checkpoints WHERE id = ?`), leaf.ID); err != nil {
			t.Fatal(err)
		}
		want(t, h, "C", "B", "A")
	})
	t.Run("UnknownOrInvisibleSessionIsNotFound", func(t *testing.T) {
		_, err := s.ReachableCheckpoints(ctx, smriti.NewID())
		wantCode(t, err, smriti.ENOTFOUND)
		_, err = s.ReachableCheckpoints(userCtx(), f.ID)
		wantCode(t, err, smriti.ENOTFOUND)
	})
}

func testSpaceTree(t *testing.T, s *store.Store) {
	ctx := userCtx()
	h := buildHistory(t, ctx, s)
	Get(s.AddNote(ctx, h.b.ID, smriti.NoteCreate{Author: "me", Text: "1", Kind: smriti.NoteKindNote})).Must(t)
	Get(s.AddNote(ctx, h.b.ID, smriti.NoteCreate{Author: "me", Text: "2", Kind: smriti.NoteKindMilestone})).Must(t)
	Get(s.AddNote(ctx, h.b.ID, smriti.NoteCreate{Author: "me", Text: "3", Kind: smriti.NoteKindNote})).Must(t)
	Get(s.SetBranchDisposition(ctx, h.space.ID, "y", smriti.DispositionAbandoned)).Must(t)

	tree := Get(s.SpaceTree(ctx, h.space.ID)).Must(t)
	var got []string
	byName := map[string]lineage.TreeCheckpoint{}
	for _, c := range tree.Checkpoints {
		got = append(got, c.Message)
		byName[c.Message] = c
	}
	if want := []string{"A", "B", "X1", "C", "X2", "Y1", "Merge x into main", "X3"}; !slices.Equal(got, want) {
		t.Fatalf("tree checkpoints = %v, want oldest first %v", got, want)
	}
	m := byName["Merge x into main"]
	if m.ParentID == nil || *m.ParentID != h.c.ID || m.MergeParentID == nil || *m.MergeParentID != h.x2.ID || m.BranchName != "main" {
		t.Fatalf("merge node = %+v", m)
	}
	if x1 := byName["X1"]; x1.ParentID == nil || *x1.ParentID != h.a.ID || x1.BranchName != "x" || x1.Hash != h.x1.Hash ||
		x1.Summary != "summary of X1" || x1.AuthorAgent != nil {
		t.Fatalf("X1 node = %+v", x1)
	}
	if b := byName["B"]; b.NoteCount != 3 || !slices.Equal(b.NoteKinds, []string{"milestone", "note"}) {
		t.Fatalf("B notes = %d %v", b.NoteCount, b.NoteKinds)
	}
	if a := byName["A"]; a.NoteCount != 0 || a.NoteKinds == nil || len(a.NoteKinds) != 0 {
		t.Fatalf("A notes = %d %v", a.NoteCount, a.NoteKinds)
	}
	disp := map[string]string{}
	var order []smriti.ID
	for _, se := range tree.Sessions {
		disp[se.BranchName] = se.BranchDisposition
		order = append(order, se.ID)
	}
	if want := []smriti.ID{h.main.ID, h.forkX.ID, h.forkY.ID}; !slices.Equal(order, want) {
		t.Fatalf("sessions not oldest first: %v", order)
	}
	if disp["main"] != "active" || disp["x"] != "integrated" || disp["y"] != "abandoned" {
		t.Fatalf("dispositions = %v", disp)
	}
	empty := Get(s.SpaceTree(ctx, newSpace(t, ctx, s).ID)).Must(t)
	if empty.Checkpoints == nil || len(empty.Checkpoints) != 0 || empty.Sessions == nil || len(empty.Sessions) != 0 {
		t.Fatalf("empty tree = %+v", empty)
	}
	_, err := s.SpaceTree(ctx, smriti.NewID())
	wantCode(t, err, smriti.ENOTFOUND)
	_, err = s.SpaceTree(userCtx(), h.space.ID)
	wantCode(t, err, smriti.ENOTFOUND)
}
