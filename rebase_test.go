package smriti

import (
	"fmt"
	"reflect"
	"testing"
)

// side is a checkpoint written as content onto parent (nil: a root).
func side(c Content, parent *MergeSide) *MergeSide {
	var p []Item
	if parent != nil {
		p = parent.Items
	}
	return &MergeSide{Content: c, Items: AssignItems(&c, p, nil, ItemOrigin{})}
}

func liveIDs(items []Item) map[string]string {
	m := map[string]string{}
	for _, it := range items {
		if it.Live() {
			m[it.ID] = it.Text
		}
	}
	return m
}

func TestRebaseChange(t *testing.T) {
	c1 := side(Content{Message: "C1", Summary: "s1", Decisions: []string{"Use Go", "Ship releases weekly"},
		Tasks: []Task{{Text: "Write the importer"}, {Text: "Fix login"}}}, nil)
	id := func(text string) string {
		for _, it := range c1.Items {
			if it.Text == text {
				return it.ID
			}
		}
		t.Fatalf("no item %q", text)
		return ""
	}
	// B saved C2 on the branch: added a decision, retracted a task.
	c2 := side(Content{Message: "C2", Summary: "s1", Decisions: []string{"Use Go", "Ship releases weekly", "Budget is 40k"},
		Tasks: []Task{{Text: "Write the importer"}}}, c1)

	t.Run("DisjointChangesBothSurvive", func(t *testing.T) {
		// A drafted on C1: added a decision, reworded another.
		mine := Content{Message: "A's work", Summary: "s1", Decisions: []string{"Use Go", "Ship releases weekly on Monday", "Deploy with systemd"},
			Tasks: []Task{{Text: "Write the importer"}, {Text: "Fix login"}}}
		r, err := RebaseChange(c1, c2, &mine, nil, nil)
		if err != nil || len(r.Conflicts) != 0 {
			t.Fatalf("err %v conflicts %+v", err, r.Conflicts)
		}
		if want := []string{"Use Go", "Ship releases weekly on Monday", "Budget is 40k", "Deploy with systemd"}; !reflect.DeepEqual(r.Merged.Decisions, want) {
			t.Fatalf("decisions %q, want %q", r.Merged.Decisions, want)
		}
		if want := []Task{{Text: "Write the importer"}}; !reflect.DeepEqual(r.Merged.Tasks, want) {
			t.Fatalf("tasks %+v: the task B retracted came back", r.Merged.Tasks)
		}
		if r.Merged.Message != "A's work" {
			t.Fatalf("title %q", r.Merged.Message)
		}
		if got := liveIDs(r.Items)[id("Ship releases weekly")]; got != "Ship releases weekly on Monday" {
			t.Fatalf("the reworded item lost its id: %q", got)
		}
	})

	t.Run("SameItemChangedOnBothSidesConflicts", func(t *testing.T) {
		// Both writers send ids (weekly → monthly is no near copy).
		ship := id("Ship releases weekly")
		c2c := Content{Message: "C2", Decisions: []string{"Use Go", "Ship releases monthly"}, Tasks: c1.Content.Tasks}
		c2b := &MergeSide{Content: c2c, Items: AssignItems(&c2c, c1.Items, []Item{{ID: ship, Kind: KindDecision, Text: "Ship releases monthly", Status: ItemOpen}}, ItemOrigin{})}
		mine := Content{Message: "A", Decisions: []string{"Use Go", "Ship releases daily"}, Tasks: c1.Content.Tasks}
		hints := []Item{{ID: ship, Kind: KindDecision, Text: "Ship releases daily", Status: ItemOpen}}
		r, err := RebaseChange(c1, c2b, &mine, hints, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := []MergeConflict{{Field: "decisions", Key: ship, Kind: conflictBothChanged, Base: "Ship releases weekly", Ours: "Ship releases monthly", Theirs: "Ship releases daily"}}
		if !reflect.DeepEqual(r.Conflicts, want) {
			t.Fatalf("conflicts %+v, want %+v", r.Conflicts, want)
		}
		r, err = RebaseChange(c1, c2b, &mine, hints, []MergeResolution{{Field: "decisions", Key: ship, Choice: ChooseTheirs}})
		if err != nil || len(r.Conflicts) != 0 || !reflect.DeepEqual(r.Merged.Decisions, []string{"Use Go", "Ship releases daily"}) {
			t.Fatalf("resolved: err %v conflicts %+v decisions %q", err, r.Conflicts, r.Merged.Decisions)
		}
	})

	t.Run("ChangingWhatTheOtherRetractedConflicts", func(t *testing.T) {
		mine := Content{Message: "A", Decisions: c1.Content.Decisions, Tasks: []Task{{Text: "Write the importer"}, {Text: "Fix login", Status: "done", Structured: true}}}
		r, err := RebaseChange(c1, c2, &mine, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Conflicts) != 1 || r.Conflicts[0].Key != id("Fix login") || r.Conflicts[0].Kind != conflictRemovedVsEdited {
			t.Fatalf("conflicts %+v, want removed_vs_edited on %s", r.Conflicts, id("Fix login"))
		}
	})

	t.Run("ScalarsTakeTheWritersChangeElseTheHeads", func(t *testing.T) {
		head := side(Content{Message: "C2", Summary: "head summary", Objective: "head objective", Decisions: c1.Content.Decisions, Tasks: c1.Content.Tasks}, c1)
		mine := Content{Message: "A", Summary: "my summary", Decisions: c1.Content.Decisions, Tasks: c1.Content.Tasks}
		r, _ := RebaseChange(c1, head, &mine, nil, nil)
		if r.Merged.Summary != "my summary" || r.Merged.Objective != "head objective" || len(r.Conflicts) != 0 {
			t.Fatalf("summary %q objective %q conflicts %+v", r.Merged.Summary, r.Merged.Objective, r.Conflicts)
		}
	})

	t.Run("AResolutionOfNoConflictIsRefused", func(t *testing.T) {
		mine := c1.Content
		_, err := RebaseChange(c1, c2, &mine, nil, []MergeResolution{{Field: "decisions", Key: "d-000000", Choice: ChooseOurs}})
		if ErrorCode(err) != EUNPROCESSABLE {
			t.Fatalf("err %v, want EUNPROCESSABLE", err)
		}
	})
}

// A rebase of a 500-item change onto a head that moved by 50 changes.
func BenchmarkRebase500(b *testing.B) {
	var ds []string
	for i := 0; i < 500; i++ {
		ds = append(ds, fmt.Sprintf("Decision %d: component %d talks to store %d", i, i*7, i*13))
	}
	base := side(Content{Message: "base", Decisions: ds}, nil)
	headDs := append([]string(nil), ds[25:]...)
	for i := 0; i < 25; i++ {
		headDs = append(headDs, fmt.Sprintf("Head added %d", i))
	}
	head := side(Content{Message: "head", Decisions: headDs}, base)
	mine := append([]string(nil), ds[:450]...)
	for i := 0; i < 50; i++ {
		mine = append(mine, fmt.Sprintf("Mine added %d", i))
	}
	c := Content{Message: "mine", Decisions: mine}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := RebaseChange(base, head, &c, nil, nil)
		if err != nil || len(r.Conflicts) != 0 {
			b.Fatal(err, r.Conflicts)
		}
	}
}
