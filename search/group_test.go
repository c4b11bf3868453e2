package search

import (
	"errors"
	"smriti"
	"testing"
)

func TestGroup(t *testing.T) {
	space := smriti.NewID()
	c1, c2, c3 := smriti.NewID(), smriti.NewID(), smriti.NewID()
	hash := func(s string) *string { return &s }
	seq := int64(4)
	hits := []*SearchHit{
		{Kind: KindCheckpoint, ID: c3, SpaceID: space, CheckpointID: &c3, CommitHash: hash("333"), Branch: "main", Title: "Three"},
		{Kind: KindTurn, ID: smriti.NewID(), SpaceID: space, Seq: &seq, Snippet: "a turn"},
		{Kind: KindCheckpoint, ID: c2, SpaceID: space, CheckpointID: &c2, CommitHash: hash("222"), Branch: "fix", Title: "Two"},
		{Kind: KindCheckpoint, ID: c1, SpaceID: space, CheckpointID: &c1, CommitHash: hash("111"), Branch: "main", Title: "Rust in the title only"},
	}
	rust := smriti.Item{ID: "d-000001", Kind: smriti.KindDecision, Text: "Rewrite the parser in Rust", Status: smriti.ItemOpen}
	dropped := smriti.Item{ID: "d-000002", Kind: smriti.KindDecision, Text: "Keep the Rust parser", Status: "retracted"}
	items := map[smriti.ID][]smriti.Item{c3: {rust, dropped}, c2: {rust}, c1: {{ID: "d-000003", Kind: smriti.KindDecision, Text: "Use Go", Status: smriti.ItemOpen}}}
	of := func(id smriti.ID) ([]smriti.Item, error) { return items[id], nil }

	t.Run("CarriedItemIsOneGroupListingItsCheckpoints", func(t *testing.T) {
		got, err := Group(hits, []string{"rust"}, of, 20)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 {
			t.Fatalf("want 3 groups (item, turn, title-only checkpoint), got %+v", got)
		}
		g := got[0]
		if g.Kind != GroupItem || g.Item.ID != "d-000001" || g.Hit.Snippet != "Rewrite the parser in <mark>Rust</mark>" ||
			len(g.Checkpoints) != 2 || g.Checkpoints[0].CommitHash != "333" || g.Checkpoints[1].CommitHash != "222" || g.Checkpoints[1].Branch != "fix" {
			t.Errorf("item group = %+v %+v", g, g.Checkpoints)
		}
		if got[1].Kind != KindTurn || got[1].Item != nil || got[2].Kind != KindCheckpoint || got[2].Hit.ID != c1 {
			t.Errorf("other groups = %+v, %+v", got[1], got[2])
		}
	})
	t.Run("EveryTermMustBeInTheItem", func(t *testing.T) {
		got, _ := Group(hits[:1], []string{"rust", "title"}, of, 20)
		if len(got) != 1 || got[0].Kind != KindCheckpoint {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("LimitCutsGroups", func(t *testing.T) {
		got, _ := Group(hits, []string{"rust"}, of, 1)
		if len(got) != 1 || got[0].Kind != GroupItem {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("ItemsErrorIsReturned", func(t *testing.T) {
		boom := errors.New("boom")
		if _, err := Group(hits, []string{"rust"}, func(smriti.ID) ([]smriti.Item, error) { return nil, boom }, 20); !errors.Is(err, boom) {
			t.Errorf("err = %v", err)
		}
	})
}
