package app_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"smriti"
	"smriti/app"
	"smriti/store"
)

// TestCompareIsOneRuleForEveryEntryPoint: Compare diffs checkpoints of two
// spaces with no common ancestor (the HTTP answer), where the MCP tool,
// which asked for the common ancestor itself, refused them as "of
// different spaces"; within a space it names the common ancestor.
func TestCompareIsOneRuleForEveryEntryPoint(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(t.TempDir(), "smriti.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	a := app.New(app.Config{Store: s})
	commit := func(space smriti.ID, msg string, decisions ...string) *smriti.Checkpoint {
		t.Helper()
		c, err := a.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: space, Content: smriti.Content{Message: msg, Decisions: decisions}})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	one, err := a.CreateSpace(ctx, smriti.SpaceCreate{Name: "one"})
	if err != nil {
		t.Fatal(err)
	}
	two, err := a.CreateSpace(ctx, smriti.SpaceCreate{Name: "two"})
	if err != nil {
		t.Fatal(err)
	}
	root := commit(one.ID, "Root", "Use Go")
	head := commit(one.ID, "Head", "Use Go", "Use SQLite")
	other := commit(two.ID, "Other", "Use Go", "Use Rust")

	t.Run("AcrossSpacesDiffsWithNoAncestor", func(t *testing.T) {
		cmp, err := a.Compare(ctx, head.ID, other.ID)
		if err != nil {
			t.Fatal(err)
		}
		if cmp.Ancestor != nil || cmp.A.ID != head.ID || cmp.B.ID != other.ID {
			t.Fatalf("compare = %s vs %s, ancestor %v; want %s vs %s with none", cmp.A.ID, cmp.B.ID, cmp.Ancestor, head.ID, other.ID)
		}
		d := cmp.Diff.Decisions
		if !slices.Equal(d.Shared, []string{"Use Go"}) || !slices.Equal(d.OnlyA, []string{"Use SQLite"}) || !slices.Equal(d.OnlyB, []string{"Use Rust"}) {
			t.Fatalf("decisions = %+v; want shared [Use Go], only A [Use SQLite], only B [Use Rust]", d)
		}
	})
	t.Run("WithinASpaceNamesTheCommonAncestor", func(t *testing.T) {
		cmp, err := a.Compare(ctx, root.ID, head.ID)
		if err != nil {
			t.Fatal(err)
		}
		if cmp.Ancestor == nil || cmp.Ancestor.ID != root.ID {
			t.Fatalf("ancestor = %v; want %s", cmp.Ancestor, root.ID)
		}
	})
	t.Run("UnknownCheckpointIsNotFound", func(t *testing.T) {
		if _, err := a.Compare(ctx, head.ID, smriti.NewID()); smriti.ErrorCode(err) != smriti.ENOTFOUND {
			t.Fatalf("err = %v; want ENOTFOUND", err)
		}
	})
}
