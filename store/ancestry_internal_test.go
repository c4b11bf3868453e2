package store

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"smriti"
)

// TestSkipPointersAgreeWithTheWalk builds a random tree of checkpoints (no
// merges) and checks that, for many pairs, the skip-pointer answer equals
// the recursive walk's.
func TestSkipPointersAgreeWithTheWalk(t *testing.T) {
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "a.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	sp, err := s.CreateSpace(ctx, smriti.SpaceCreate{Name: "tree"})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var ids []smriti.ID
	for i := 0; i < 400; i++ {
		var parent *smriti.ID
		switch {
		case i == 0 || i == 150: // two unrelated roots
		case rng.IntN(4) == 0: // a fork from anywhere
			p := ids[rng.IntN(len(ids))]
			parent = &p
		default: // extend the newest
			p := ids[len(ids)-1]
			parent = &p
		}
		c, err := s.CreateCheckpoint(ctx, smriti.CheckpointCreate{SpaceID: sp.ID, ParentID: parent, Content: smriti.Content{Message: "c"}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.ID)
	}
	for i := 0; i < 300; i++ {
		a, b := ids[rng.IntN(len(ids))], ids[rng.IntN(len(ids))]
		if a == b {
			continue
		}
		_, older, newer, err := s.sameSpace(ctx, a, b)
		if err != nil {
			t.Fatal(err)
		}
		fast, ok, err := s.fastCommonAncestor(ctx, sp.ID, older, newer)
		if err != nil || !ok {
			t.Fatalf("fast path unavailable: ok=%v err=%v", ok, err)
		}
		walked, err := s.walkCommonAncestor(ctx, sp.ID, older, newer)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case fast == nil && walked == nil:
		case fast == nil || walked == nil || *fast != walked.ID:
			t.Fatalf("pair %d: skip pointers say %v, the walk says %v", i, fast, walked)
		}
	}
}
