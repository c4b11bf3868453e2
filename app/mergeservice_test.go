package app

import (
	"context"
	"slices"
	"smriti"
	"smriti/contract"
	"smriti/lineage"
	"testing"
)

// fakeHistory is an in-memory MergeBackend: just enough storage to drive
// MergeCheckpoints. The interfaces it embeds are nil; a call outside the
// methods below would panic, which would be a test failure worth seeing.
type fakeHistory struct {
	contract.SpaceService
	contract.CheckpointService
	lineage.Service

	space   smriti.ID
	byID    map[smriti.ID]*smriti.Checkpoint
	order   []*smriti.Checkpoint
	created []smriti.CheckpointCreate
}

func newFakeHistory() *fakeHistory {
	return &fakeHistory{space: smriti.NewID(), byID: map[smriti.ID]*smriti.Checkpoint{}}
}

func (f *fakeHistory) add(branch string, parent *smriti.Checkpoint, c smriti.Content) *smriti.Checkpoint {
	cp := &smriti.Checkpoint{ID: smriti.NewID(), SpaceID: f.space, BranchName: branch, Hash: smriti.NewID().String() + smriti.NewID().String(), Content: c}
	if parent != nil {
		cp.ParentID = &parent.ID
	}
	f.byID[cp.ID] = cp
	f.order = append(f.order, cp)
	return cp
}

func (f *fakeHistory) Space(_ context.Context, id smriti.ID) (*smriti.Space, error) {
	if id != f.space {
		return nil, smriti.Errorf(smriti.ENOTFOUND, "Space not found")
	}
	return &smriti.Space{ID: id}, nil
}

// CheckpointItems answers no stored items, so the merge reads each side's
// content with ids from text.
func (f *fakeHistory) CheckpointItems(context.Context, smriti.ID) ([]smriti.Item, error) {
	return nil, nil
}

func (f *fakeHistory) ItemHistory(context.Context, smriti.ID, string) ([]smriti.ItemEvent, error) {
	return nil, smriti.Errorf(smriti.ENOTFOUND, "Item not found")
}

func (f *fakeHistory) Checkpoint(_ context.Context, id smriti.ID) (*smriti.Checkpoint, error) {
	if c, ok := f.byID[id]; ok {
		return c, nil
	}
	return nil, smriti.Errorf(smriti.ENOTFOUND, "Checkpoint not found")
}

func (f *fakeHistory) LatestCheckpoints(_ context.Context, _ smriti.ID, branch string, n int) ([]*smriti.Checkpoint, error) {
	for i := len(f.order) - 1; i >= 0; i-- {
		if f.order[i].BranchName == branch {
			return []*smriti.Checkpoint{f.order[i]}, nil
		}
	}
	return []*smriti.Checkpoint{}, nil
}

// CommonAncestor follows first parents only, which is all these tests need.
func (f *fakeHistory) CommonAncestor(_ context.Context, a, b smriti.ID) (*smriti.Checkpoint, error) {
	seen := map[smriti.ID]bool{}
	for c := f.byID[a]; c != nil; c = f.parent(c) {
		seen[c.ID] = true
	}
	for c := f.byID[b]; c != nil; c = f.parent(c) {
		if seen[c.ID] {
			return c, nil
		}
	}
	return nil, nil
}

func (f *fakeHistory) parent(c *smriti.Checkpoint) *smriti.Checkpoint {
	if c.ParentID == nil {
		return nil
	}
	return f.byID[*c.ParentID]
}

func (f *fakeHistory) CreateCheckpoint(_ context.Context, in smriti.CheckpointCreate) (*smriti.Checkpoint, error) {
	f.created = append(f.created, in)
	cp := f.add(in.BranchName, f.byID[*in.ParentID], in.Content)
	cp.MergeParentID, cp.AuthorType = in.MergeParentID, in.AuthorType
	return cp, nil
}

func TestMergeCheckpoints(t *testing.T) {
	ctx := context.Background()
	setup := func() (*fakeHistory, *smriti.Checkpoint, *smriti.Checkpoint, *smriti.Checkpoint) {
		f := newFakeHistory()
		base := f.add(smriti.MainBranch, nil, smriti.Content{Message: "Base", Summary: "s", Decisions: []string{"D1"}})
		theirs := f.add("feature", base, smriti.Content{Message: "Feature work", Summary: "s", Decisions: []string{"D1", "D2"}})
		ours := f.add(smriti.MainBranch, base, smriti.Content{Message: "Main work", Summary: "s", Decisions: []string{"D1", "D3"}})
		return f, base, ours, theirs
	}

	t.Run("TitlesTakeNoPartAndTheDefaultMessageNamesBothBranches", func(t *testing.T) {
		f, base, ours, theirs := setup()
		out, err := MergeCheckpoints(ctx, f, MergeRequest{SpaceID: f.space, SourceID: theirs.ID})
		if err != nil {
			t.Fatal(err)
		}
		if out.Base.ID != base.ID || out.Target.ID != ours.ID || len(out.Conflicts) != 0 {
			t.Fatalf("outcome = %+v", out)
		}
		if out.Merged.Message != "Merge feature into main" || !slices.Equal(out.Merged.Decisions, []string{"D1", "D3", "D2"}) {
			t.Fatalf("merged = %+v", out.Merged)
		}
		in := f.created[0]
		if *in.ParentID != ours.ID || *in.MergeParentID != theirs.ID || in.BranchName != smriti.MainBranch ||
			in.IntegrateBranch != "feature" || in.AuthorType != smriti.AuthorSystem {
			t.Fatalf("create = %+v", in)
		}
	})
	t.Run("DryRunWritesNothing", func(t *testing.T) {
		f, _, _, theirs := setup()
		out, err := MergeCheckpoints(ctx, f, MergeRequest{SpaceID: f.space, SourceID: theirs.ID, DryRun: true, Message: "mine"})
		if err != nil || out.Checkpoint != nil || len(f.created) != 0 || out.Merged.Message != "mine" {
			t.Fatalf("dry run = %+v, %v, created %d", out, err, len(f.created))
		}
	})
	t.Run("UnresolvedConflictIsConflictWithTheListAsData", func(t *testing.T) {
		f, base, _, _ := setup()
		theirs := f.add("feature", base, smriti.Content{Summary: "theirs"})
		f.add(smriti.MainBranch, base, smriti.Content{Summary: "ours"})
		_, err := MergeCheckpoints(ctx, f, MergeRequest{SpaceID: f.space, SourceID: theirs.ID})
		data, _ := smriti.ErrorData(err).(map[string]any)
		conflicts, _ := data["conflicts"].([]smriti.MergeConflict)
		if smriti.ErrorCode(err) != smriti.ECONFLICT || len(conflicts) != 1 || conflicts[0].Field != "summary" || data["message"] != smriti.ErrorMessage(err) {
			t.Fatalf("err = %v, data %+v", err, data)
		}
		out, err := MergeCheckpoints(ctx, f, MergeRequest{SpaceID: f.space, SourceID: theirs.ID,
			Resolutions: []smriti.MergeResolution{{Field: "summary", Choice: smriti.ChooseTheirs}}})
		if err != nil || out.Resolved != 1 || out.Checkpoint.Summary != "theirs" || f.created[0].AuthorType != smriti.AuthorUser {
			t.Fatalf("resolved merge = %+v, %v", out, err)
		}
	})
	t.Run("OlderCheckpointOfABranchLeavesTheBranchActive", func(t *testing.T) {
		f, _, _, theirs := setup()
		f.add("feature", theirs, smriti.Content{Summary: "s"})
		if _, err := MergeCheckpoints(ctx, f, MergeRequest{SpaceID: f.space, SourceID: theirs.ID}); err != nil {
			t.Fatal(err)
		}
		if f.created[0].IntegrateBranch != "" {
			t.Fatalf("integrated %q though its head was not merged", f.created[0].IntegrateBranch)
		}
	})
	t.Run("MergingMainIntoABranchIntegratesNothing", func(t *testing.T) {
		f, _, ours, theirs := setup()
		if _, err := MergeCheckpoints(ctx, f, MergeRequest{SpaceID: f.space, SourceID: ours.ID, TargetID: &theirs.ID}); err != nil {
			t.Fatal(err)
		}
		if in := f.created[0]; in.IntegrateBranch != "" || in.BranchName != "feature" {
			t.Fatalf("create = %+v", in)
		}
	})
	t.Run("NothingToMerge", func(t *testing.T) {
		f, base, ours, _ := setup()
		for _, src := range []smriti.ID{ours.ID, base.ID} {
			if _, err := MergeCheckpoints(ctx, f, MergeRequest{SpaceID: f.space, SourceID: src}); smriti.ErrorCode(err) != smriti.ECONFLICT {
				t.Fatalf("merge %s = %v, want conflict", src, err)
			}
		}
	})
	t.Run("EmptyMainHasNothingToMergeInto", func(t *testing.T) {
		f := newFakeHistory()
		src := f.add("feature", nil, smriti.Content{})
		if _, err := MergeCheckpoints(ctx, f, MergeRequest{SpaceID: f.space, SourceID: src.ID}); smriti.ErrorCode(err) != smriti.ECONFLICT {
			t.Fatalf("err = %v", err)
		}
	})
}
