package smriti

import (
	"encoding/json"
	"testing"

	"github.com/google/uuid"
)

// Provenance of a resolved merge conflict: the merged item records the
// chosen side's source, and every version turned down is kept as rejected,
// never as the item's text.

func provSource(session ID, from, to int64, quote string) ItemSource {
	return ItemSource{SessionID: &session, FromSeq: &from, ToSeq: &to, Quote: &quote}
}

func strPtr(s string) *string { return &s }

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestMergeProvenanceOfResolvedConflicts(t *testing.T) {
	mainSession, branchSession := uuid.MustParse("00000000-0000-0000-0000-00000000000a"), uuid.MustParse("00000000-0000-0000-0000-00000000000b")
	srcOurs := provSource(mainSession, 4, 5, "Decision: TTL is 30 minutes")
	srcTheirs := provSource(branchSession, 2, 3, "Decision: TTL is 5 minutes")
	const id = "d-00aa01"
	base := Item{ID: id, Kind: KindDecision, Text: "Access token TTL is 15 minutes", Status: ItemOpen}
	ours := base
	ours.Text = "Access token TTL is 30 minutes"
	ours.Change = &ItemChange{Op: OpUpdate, Before: strPtr(base.Text), Source: srcOurs}
	theirs := base
	theirs.Text = "Access token TTL is 5 minutes" // carried at the branch head: its change is in Changes
	sides := func() (*MergeSide, *MergeSide, *MergeSide) {
		return &MergeSide{Items: []Item{base}}, &MergeSide{Items: []Item{ours}},
			&MergeSide{Items: []Item{theirs}, Changes: map[string]*ItemChange{id: {Op: OpUpdate, Before: strPtr(base.Text), Source: srcTheirs}}}
	}
	cases := []struct {
		name, choice, value string
		text                string
		change              ItemChange
	}{
		{"TheirsRecordsTheBranchSourceAndRejectsOurs", ChooseTheirs, "", "Access token TTL is 5 minutes",
			ItemChange{Op: OpUpdate, Source: srcTheirs, Merge: &ItemMerge{Choice: ChooseTheirs,
				Rejected: []RejectedVersion{{Side: ChooseOurs, Text: strPtr("Access token TTL is 30 minutes"), Source: srcOurs}}}}},
		{"OursRecordsMainSourceAndRejectsTheirs", ChooseOurs, "", "Access token TTL is 30 minutes",
			ItemChange{Op: OpUpdate, Source: srcOurs, Merge: &ItemMerge{Choice: ChooseOurs,
				Rejected: []RejectedVersion{{Side: ChooseTheirs, Text: strPtr("Access token TTL is 5 minutes"), Source: srcTheirs}}}}},
		{"BaseRejectsBothSides", ChooseBase, "", "Access token TTL is 15 minutes",
			ItemChange{Op: OpUpdate, Merge: &ItemMerge{Choice: ChooseBase, Rejected: []RejectedVersion{
				{Side: ChooseOurs, Text: strPtr("Access token TTL is 30 minutes"), Source: srcOurs},
				{Side: ChooseTheirs, Text: strPtr("Access token TTL is 5 minutes"), Source: srcTheirs}}}}},
		{"CustomRejectsBothSides", ChooseCustom, "Access token TTL is 10 minutes", "Access token TTL is 10 minutes",
			ItemChange{Op: OpUpdate, Merge: &ItemMerge{Choice: ChooseCustom, Rejected: []RejectedVersion{
				{Side: ChooseOurs, Text: strPtr("Access token TTL is 30 minutes"), Source: srcOurs},
				{Side: ChooseTheirs, Text: strPtr("Access token TTL is 5 minutes"), Source: srcTheirs}}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, o, th := sides()
			r, err := MergeStates(b, o, th, []MergeResolution{{Field: "decisions", Key: id, Choice: tc.choice, Value: tc.value}})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Conflicts) != 0 || r.Resolved != 1 || len(r.Items) != 1 {
				t.Fatalf("conflicts %+v resolved %d items %+v", r.Conflicts, r.Resolved, r.Items)
			}
			it := r.Items[0]
			if it.ID != id || it.Text != tc.text || it.Status != ItemOpen || it.Change == nil {
				t.Fatalf("item = %+v", it)
			}
			if got, want := jsonOf(t, it.Change), jsonOf(t, tc.change); got != want {
				t.Errorf("change =\n%s\nwant\n%s", got, want)
			}
			if len(r.Merged.Decisions) != 1 || r.Merged.Decisions[0] != tc.text {
				t.Errorf("merged decisions = %q, want [%q]", r.Merged.Decisions, tc.text)
			}
		})
	}

	t.Run("OursRemovalKeptAsTombstoneRejectingTheirEdit", func(t *testing.T) {
		removed := base
		removed.Status = ItemRetracted
		removed.Change = &ItemChange{Op: OpRetract, Reason: strPtr("We use sessions"), Source: srcOurs}
		r, err := MergeStates(&MergeSide{Items: []Item{base}}, &MergeSide{Items: []Item{removed}},
			&MergeSide{Items: []Item{theirs}, Changes: map[string]*ItemChange{id: {Op: OpUpdate, Source: srcTheirs}}},
			[]MergeResolution{{Field: "decisions", Key: id, Choice: ChooseOurs}})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Items) != 1 || len(r.Merged.Decisions) != 0 || len(r.Removes) != 1 || r.Removes[0].Side != "ours" {
			t.Fatalf("items %+v decisions %q removes %+v", r.Items, r.Merged.Decisions, r.Removes)
		}
		it := r.Items[0]
		want := ItemChange{Op: OpRetract, Reason: strPtr("We use sessions"), Source: srcOurs, Merge: &ItemMerge{Choice: ChooseOurs,
			Rejected: []RejectedVersion{{Side: ChooseTheirs, Text: strPtr("Access token TTL is 5 minutes"), Source: srcTheirs}}}}
		if it.ID != id || it.Status != ItemRetracted || it.Text != base.Text || jsonOf(t, it.Change) != jsonOf(t, want) {
			t.Errorf("tombstone = %+v change %s, want status retracted, base text, change %s", it, jsonOf(t, it.Change), jsonOf(t, want))
		}
	})

	t.Run("OursEditKeptRejectsTheirRemoval", func(t *testing.T) {
		removed := base
		removed.Status = ItemRetracted
		removed.Change = &ItemChange{Op: OpRetract, Source: srcTheirs}
		r, err := MergeStates(&MergeSide{Items: []Item{base}}, &MergeSide{Items: []Item{ours}}, &MergeSide{Items: []Item{removed}},
			[]MergeResolution{{Field: "decisions", Key: id, Choice: ChooseOurs}})
		if err != nil {
			t.Fatal(err)
		}
		want := ItemChange{Op: OpUpdate, Source: srcOurs, Merge: &ItemMerge{Choice: ChooseOurs,
			Rejected: []RejectedVersion{{Side: ChooseTheirs, Text: nil, Source: srcTheirs}}}}
		if len(r.Items) != 1 || r.Items[0].Text != ours.Text || jsonOf(t, r.Items[0].Change) != jsonOf(t, want) {
			t.Errorf("items %+v, want %q with change %s", r.Items, ours.Text, jsonOf(t, want))
		}
	})

	t.Run("UnconflictedItemsHaveNoMergeRecord", func(t *testing.T) {
		earlier := theirs
		earlier.Change = &ItemChange{Op: OpUpdate, Source: srcTheirs, Merge: &ItemMerge{Choice: ChooseTheirs, Rejected: []RejectedVersion{}}}
		r, err := MergeStates(&MergeSide{Items: []Item{base}}, &MergeSide{Items: []Item{base}}, &MergeSide{Items: []Item{earlier}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := ItemChange{Op: OpUpdate, Source: srcTheirs}
		if len(r.Items) != 1 || jsonOf(t, r.Items[0].Change) != jsonOf(t, want) {
			t.Errorf("items %+v, want theirs' change without the earlier merge's record %s", r.Items, jsonOf(t, want))
		}
	})
}

// The merge checkpoint's items, as the store assigns them (parent = ours,
// hints = the merge's items then theirs'), keep the merge record even where
// the kept version equals the first parent's.
func TestAssignItemsKeepsMergeRecords(t *testing.T) {
	const id = "d-00aa02"
	base := Item{ID: id, Kind: KindDecision, Text: "Use REST", Status: ItemOpen}
	ours, theirs := base, base
	ours.Text, theirs.Text = "Use gRPC", "Use GraphQL"
	t.Run("OursKeptIsAChangeRow", func(t *testing.T) {
		r, err := MergeStates(&MergeSide{Items: []Item{base}}, &MergeSide{Items: []Item{ours}}, &MergeSide{Items: []Item{theirs}},
			[]MergeResolution{{Field: "decisions", Key: id, Choice: ChooseOurs}})
		if err != nil {
			t.Fatal(err)
		}
		got := AssignItems(&r.Merged, []Item{ours}, append(append([]Item(nil), r.Items...), theirs), ItemOrigin{})
		want := `{"op":"update","before":null,"by":null,"reason":null,"source":{"session_id":null,"from_seq":null,"to_seq":null,"quote":null},"merge":{"choice":"ours","rejected":[{"side":"theirs","text":"Use GraphQL","source":{"session_id":null,"from_seq":null,"to_seq":null,"quote":null}}]}}`
		if len(got) != 1 || got[0].ID != id || got[0].Text != "Use gRPC" || jsonOf(t, got[0].Change) != want {
			t.Errorf("items %+v change %s, want %s", got, jsonOf(t, got[0].Change), want)
		}
	})
	t.Run("TheirsKeptNamesOursAsBefore", func(t *testing.T) {
		r, err := MergeStates(&MergeSide{Items: []Item{base}}, &MergeSide{Items: []Item{ours}}, &MergeSide{Items: []Item{theirs}},
			[]MergeResolution{{Field: "decisions", Key: id, Choice: ChooseTheirs}})
		if err != nil {
			t.Fatal(err)
		}
		got := AssignItems(&r.Merged, []Item{ours}, append(append([]Item(nil), r.Items...), theirs), ItemOrigin{})
		if len(got) != 1 || got[0].Text != "Use GraphQL" || got[0].Change == nil || got[0].Change.Before == nil || *got[0].Change.Before != "Use gRPC" ||
			got[0].Change.Merge == nil || got[0].Change.Merge.Choice != ChooseTheirs {
			t.Errorf("items %+v change %s", got, jsonOf(t, got[0].Change))
		}
	})
	t.Run("OursRemovalWritesTheTombstone", func(t *testing.T) {
		removed := base
		removed.Status, removed.Change = ItemRetracted, &ItemChange{Op: OpRetract}
		r, err := MergeStates(&MergeSide{Items: []Item{base}}, &MergeSide{Items: []Item{removed}}, &MergeSide{Items: []Item{theirs}},
			[]MergeResolution{{Field: "decisions", Key: id, Choice: ChooseOurs}})
		if err != nil {
			t.Fatal(err)
		}
		got := AssignItems(&r.Merged, []Item{removed}, append(append([]Item(nil), r.Items...), theirs), ItemOrigin{})
		if len(got) != 1 || got[0].ID != id || got[0].Status != ItemRetracted || got[0].Change == nil || got[0].Change.Op != OpRetract ||
			got[0].Change.Merge == nil || len(got[0].Change.Merge.Rejected) != 1 || *got[0].Change.Merge.Rejected[0].Text != "Use GraphQL" {
			t.Errorf("items %+v change %s", got, jsonOf(t, got[0].Change))
		}
	})
}

func TestWithRejectionsListsTurnedDownVersionsBeforeTheMergeRow(t *testing.T) {
	const id = "d-00aa03"
	merge := uuid.MustParse("00000000-0000-0000-0000-0000000000c1")
	kept := Item{ID: id, Kind: KindDecision, Text: "Use gRPC", Status: ItemOpen,
		Change: &ItemChange{Op: OpUpdate, Merge: &ItemMerge{Choice: ChooseOurs, Rejected: []RejectedVersion{{Side: ChooseTheirs, Text: strPtr("Use GraphQL")}}}}}
	evs := ItemHistory([]ItemEvent{{CheckpointID: merge, Merge: true, Item: kept}}).WithRejections()
	if len(evs) != 2 {
		t.Fatalf("events %+v", evs)
	}
	if !evs[0].Rejected || evs[0].Item.Text != "Use GraphQL" || evs[0].KindFor(id) != EventRejected || evs[0].CheckpointID != merge {
		t.Errorf("first = %+v, want the rejected GraphQL version at the merge", evs[0])
	}
	if evs[1].Rejected || evs[1].Item.Text != "Use gRPC" || evs[1].KindFor(id) != EventChanged {
		t.Errorf("last = %+v, want the kept gRPC version", evs[1])
	}
}
