package store_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"smriti"
	"smriti/store"
)

// chain writes n main checkpoints, each the parent of the next, and returns
// them oldest first.
func chain(b *testing.B, ctx context.Context, s *store.Store, space smriti.ID, n int) []*smriti.Checkpoint {
	b.Helper()
	out := make([]*smriti.Checkpoint, 0, n)
	var parent *smriti.ID
	for i := 0; i < n; i++ {
		c, err := s.CreateCheckpoint(ctx, smriti.CheckpointCreate{SpaceID: space, ParentID: parent, BranchName: smriti.MainBranch,
			Content: smriti.Content{Message: fmt.Sprint("checkpoint ", i), Summary: "summary", Decisions: []string{fmt.Sprint("decision ", i%50)}}})
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, c)
		parent = &c.ID
	}
	return out
}

func benchStore(b *testing.B) (*store.Store, context.Context, *smriti.Space) {
	b.Helper()
	s, err := store.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	ctx := context.Background()
	sp, err := s.CreateSpace(ctx, smriti.SpaceCreate{Name: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	return s, ctx, sp
}

// BenchmarkCommonAncestorDeepChain measures LCA and compare over a
// 5,000-deep chain on SQLite (SPEC §7: ≤ 5 ms). Every case walks the whole
// chain from the head.
func BenchmarkCommonAncestorDeepChain(b *testing.B) {
	s, ctx, sp := benchStore(b)
	cps := chain(b, ctx, s, sp.ID, 5000)
	root, head := cps[0], cps[len(cps)-1]
	// A branch forked at the root: its LCA with the head is the root.
	side, err := s.CreateCheckpoint(ctx, smriti.CheckpointCreate{SpaceID: sp.ID, ParentID: &root.ID, BranchName: "side",
		Content: smriti.Content{Message: "side"}})
	if err != nil {
		b.Fatal(err)
	}
	lca := func(b *testing.B, x, y, want *smriti.Checkpoint) {
		for b.Loop() {
			got, err := s.CommonAncestor(ctx, x.ID, y.ID)
			if err != nil || got == nil || got.ID != want.ID {
				b.Fatalf("LCA = %v, %v", got, err)
			}
		}
	}
	b.Run("HeadAndRoot", func(b *testing.B) { lca(b, head, root, root) })
	b.Run("HeadAndBranchAtRoot", func(b *testing.B) { lca(b, head, side, root) })
	b.Run("HeadAndMiddle", func(b *testing.B) { lca(b, head, cps[2500], cps[2500]) })
	// Compare is what the compare endpoint does: both checkpoints, their
	// LCA and the diff.
	b.Run("CompareHeadAndBranchAtRoot", func(b *testing.B) {
		for b.Loop() {
			x, err := s.Checkpoint(ctx, head.ID)
			if err != nil {
				b.Fatal(err)
			}
			y, err := s.Checkpoint(ctx, side.ID)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.CommonAncestor(ctx, x.ID, y.ID); err != nil {
				b.Fatal(err)
			}
			_ = smriti.DiffCheckpoints(x, y)
		}
	})
}

// BenchmarkSpaceTree measures the branch tree of a space with 10,000
// checkpoints on SQLite.
func BenchmarkSpaceTree(b *testing.B) {
	s, ctx, sp := benchStore(b)
	cps := chain(b, ctx, s, sp.ID, 10000)
	for i := 0; i < 100; i++ {
		if _, err := s.AddNote(ctx, cps[i*97].ID, smriti.NoteCreate{Author: "bench", Text: "n", Kind: smriti.NoteKindMilestone}); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		t, err := s.SpaceTree(ctx, sp.ID)
		if err != nil || len(t.Checkpoints) != 10000 {
			b.Fatalf("tree = %v", err)
		}
	}
}
