package smriti

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestMergeLists(t *testing.T) {
	tests := []struct {
		name               string
		base, ours, theirs []string
		want               []string
	}{
		{"AddedOneSideKept", []string{"a"}, []string{"a", "ours new"}, []string{"a"}, []string{"a", "ours new"}},
		{"AddedOtherSideKept", []string{"a"}, []string{"a"}, []string{"a", "theirs new"}, []string{"a", "theirs new"}},
		{"AddedBothSidesOnceInOursWording", []string{}, []string{"Use Go"}, []string{"use go!", "x"}, []string{"Use Go", "x"}},
		{"RemovedOneSideUntouchedOtherIsRemoved", []string{"a", "b"}, []string{"a"}, []string{"a", "b"}, []string{"a"}},
		{"RemovedByTheirsIsRemoved", []string{"a", "b"}, []string{"a", "b"}, []string{"b"}, []string{"b"}},
		{"RemovedBothSidesIsRemoved", []string{"a", "b"}, []string{"b"}, []string{"b"}, []string{"b"}},
		{"RewordedByTheirsTakesTheirsWording", []string{"use go"}, []string{"use go"}, []string{"Use Go."}, []string{"Use Go."}},
		{"OrderIsOursThenTheirsAdditions", []string{"m"}, []string{"o2", "m", "o1"}, []string{"t1", "m", "t2"}, []string{"o2", "m", "o1", "t1", "t2"}},
		{"DuplicatesWithinASideCollapse", nil, []string{"x", "X"}, []string{"x."}, []string{"x"}},
		{"PunctuationOnlyItemsMatchExactly", []string{"---"}, []string{"---", "..."}, []string{"---"}, []string{"---", "..."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := merged(&Content{Decisions: tt.base}, &Content{Decisions: tt.ours}, &Content{Decisions: tt.theirs})
			if !reflect.DeepEqual(r.Merged.Decisions, tt.want) || len(r.Conflicts) != 0 {
				t.Fatalf("merged %q conflicts %+v, want %q", r.Merged.Decisions, r.Conflicts, tt.want)
			}
		})
	}
}

func TestMerge(t *testing.T) {
	task := func(text, status string) Task { return Task{Text: text, Status: status, Structured: true} }
	base := &Content{Message: "m", Summary: "base summary", Objective: "obj",
		Decisions: []string{"keep", "drop"}, Tasks: []Task{task("Book hotel", ""), task("Buy map", "")},
		Entities: []string{"Sydney"}, Artifacts: []Artifact{{ID: "a1", Content: "v1"}}}

	t.Run("NilBaseKeepsEverythingFromBothSides", func(t *testing.T) {
		r := merged(nil, &Content{Decisions: []string{"x"}, Summary: "s"}, &Content{Decisions: []string{"y"}, Summary: "s"})
		if !reflect.DeepEqual(r.Merged.Decisions, []string{"x", "y"}) || r.Merged.Summary != "s" || len(r.Conflicts) != 0 {
			t.Fatalf("%+v", r)
		}
	})

	t.Run("NilBaseDifferentSummariesConflict", func(t *testing.T) {
		r := merged(nil, &Content{Summary: "a"}, &Content{Summary: "b"})
		if len(r.Conflicts) != 1 || r.Conflicts[0] != (MergeConflict{Field: "summary", Kind: conflictBothChanged, Ours: "a", Theirs: "b"}) {
			t.Fatalf("%+v", r.Conflicts)
		}
	})

	t.Run("ScalarChangedOneSideTakesThatSide", func(t *testing.T) {
		ours, theirs := *base, *base
		ours.Objective = "new objective"
		theirs.Summary = "new summary"
		r := merged(base, &ours, &theirs)
		if r.Merged.Objective != "new objective" || r.Merged.Summary != "new summary" || len(r.Conflicts) != 0 {
			t.Fatalf("%+v", r)
		}
	})

	t.Run("SummaryEditedOnBothSidesConflicts", func(t *testing.T) {
		ours, theirs := *base, *base
		ours.Summary, theirs.Summary = "ours summary", "theirs summary"
		r := merged(base, &ours, &theirs)
		want := MergeConflict{Field: "summary", Kind: conflictBothChanged, Base: "base summary", Ours: "ours summary", Theirs: "theirs summary"}
		if len(r.Conflicts) != 1 || r.Conflicts[0] != want || r.Merged.Summary != "ours summary" {
			t.Fatalf("conflicts %+v merged summary %q", r.Conflicts, r.Merged.Summary)
		}
	})

	t.Run("SameEditOnBothSidesIsNoConflict", func(t *testing.T) {
		ours, theirs := *base, *base
		ours.Summary, theirs.Summary = "same", "same "
		if r := merged(base, &ours, &theirs); len(r.Conflicts) != 0 {
			t.Fatalf("%+v", r.Conflicts)
		}
	})

	t.Run("TaskRemovedOneSideEditedOtherKeptAndConflicts", func(t *testing.T) {
		ours, theirs := *base, *base
		ours.Tasks = []Task{task("Book hotel", "")}                            // removed "Buy map"
		theirs.Tasks = []Task{task("Book hotel", ""), task("Buy map", "done")} // edited it
		r := merged(base, &ours, &theirs)
		if len(r.Merged.Tasks) != 2 || r.Merged.Tasks[1].Status != "done" {
			t.Fatalf("tasks %+v", r.Merged.Tasks)
		}
		// Items are matched by id; a resolution may still name the item by its
		// normalised text ("buy map" below).
		want := MergeConflict{Field: "tasks", Key: newItemIDs().mint(KindTask, "Buy map"), Kind: conflictRemovedVsEdited, Base: "Buy map", Ours: "", Theirs: "Buy map (done)"}
		if len(r.Conflicts) != 1 || r.Conflicts[0] != want {
			t.Fatalf("conflicts %+v", r.Conflicts)
		}

		t.Run("ResolvedOursRemovesIt", func(t *testing.T) {
			c, left, err := resolved(base, &ours, &theirs, []MergeResolution{{Field: "tasks", Key: "buy map", Choice: ChooseOurs}})
			if err != nil || len(left) != 0 || len(c.Tasks) != 1 {
				t.Fatalf("tasks %+v left %+v err %v", c.Tasks, left, err)
			}
		})
		t.Run("ResolvedCustomRenamesEditedTask", func(t *testing.T) {
			c, _, err := resolved(base, &ours, &theirs, []MergeResolution{{Field: "tasks", Key: "buy map", Choice: ChooseCustom, Value: "Buy two maps"}})
			if err != nil || c.Tasks[1].Text != "Buy two maps" || c.Tasks[1].Status != "done" {
				t.Fatalf("tasks %+v err %v", c.Tasks, err)
			}
		})
	})

	t.Run("TaskRemovedOneSideUntouchedOtherIsRemoved", func(t *testing.T) {
		ours := *base
		ours.Tasks = []Task{task("Book hotel", "")}
		r := merged(base, &ours, base)
		if len(r.Merged.Tasks) != 1 || len(r.Conflicts) != 0 {
			t.Fatalf("%+v", r)
		}
	})

	t.Run("TaskAnnotatedOnOneSideTakesAnnotation", func(t *testing.T) {
		theirs := *base
		theirs.Tasks = []Task{task("Book hotel", "done"), task("Buy map", "")}
		r := merged(base, base, &theirs)
		if r.Merged.Tasks[0].Status != "done" || len(r.Conflicts) != 0 {
			t.Fatalf("%+v", r)
		}
	})

	t.Run("ArtifactEditedBothSidesConflictsByID", func(t *testing.T) {
		ours, theirs := *base, *base
		ours.Artifacts = []Artifact{{ID: "a1", Content: "ours"}}
		theirs.Artifacts = []Artifact{{ID: "a1", Content: "theirs"}, {Label: "New", Content: "n"}}
		r := merged(base, &ours, &theirs)
		if len(r.Conflicts) != 1 || r.Conflicts[0].Key != "id:a1" || r.Conflicts[0].Theirs != "theirs" {
			t.Fatalf("%+v", r.Conflicts)
		}
		c, left, err := resolved(base, &ours, &theirs, []MergeResolution{{Field: "artifacts", Key: "id:a1", Choice: ChooseTheirs}})
		if err != nil || len(left) != 0 || c.Artifacts[0].Content != "theirs" || c.Artifacts[1].Label != "New" {
			t.Fatalf("%+v %+v %v", c.Artifacts, left, err)
		}
	})

	t.Run("ResolutionAppliedToSummary", func(t *testing.T) {
		ours, theirs := *base, *base
		ours.Summary, theirs.Summary, ours.Objective, theirs.Objective = "o", "t", "oo", "tt"
		c, left, err := resolved(base, &ours, &theirs, []MergeResolution{
			{Field: "summary", Choice: ChooseCustom, Value: "written by hand"},
		})
		if err != nil || c.Summary != "written by hand" || len(left) != 1 || left[0].Field != "objective" {
			t.Fatalf("summary %q left %+v err %v", c.Summary, left, err)
		}
		c, left, err = resolved(base, &ours, &theirs, []MergeResolution{{Field: "summary", Choice: ChooseBase}, {Field: "objective", Choice: ChooseTheirs}})
		if err != nil || c.Summary != "base summary" || c.Objective != "tt" || len(left) != 0 {
			t.Fatalf("%+v %+v %v", c, left, err)
		}
	})

	t.Run("ResolutionNamingNoConflictIsUnprocessable", func(t *testing.T) {
		_, _, err := resolved(base, base, base, []MergeResolution{{Field: "summary", Choice: ChooseOurs}})
		if ErrorCode(err) != EUNPROCESSABLE {
			t.Fatalf("err = %v", err)
		}
	})

	t.Run("UnknownChoiceIsUnprocessable", func(t *testing.T) {
		_, _, err := resolved(nil, &Content{Summary: "a"}, &Content{Summary: "b"}, []MergeResolution{{Field: "summary", Choice: "mine"}})
		if ErrorCode(err) != EUNPROCESSABLE || !strings.Contains(err.Error(), "ours, theirs, base or custom") {
			t.Fatalf("err = %v", err)
		}
	})

	t.Run("JSONHasSnakeCaseAndEmptyConflictList", func(t *testing.T) {
		b, _ := json.Marshal(merged(base, base, base))
		if !strings.Contains(string(b), `"conflicts":[]`) {
			t.Fatalf("%s", b)
		}
		b, _ = json.Marshal(MergeConflict{Field: "summary"})
		if string(b) != `{"field":"summary","key":"","kind":"","base":"","ours":"","theirs":""}` {
			t.Fatalf("%s", b)
		}
	})

	t.Run("InputsNotModified", func(t *testing.T) {
		ours := Content{Decisions: []string{"a", "b"}}
		theirs := Content{Decisions: []string{"b", "c"}}
		merged(nil, &ours, &theirs)
		if !reflect.DeepEqual(ours.Decisions, []string{"a", "b"}) || !reflect.DeepEqual(theirs.Decisions, []string{"b", "c"}) {
			t.Fatal("inputs changed")
		}
	})
}

// merged is Merge without resolutions, which cannot fail.
func merged(base, ours, theirs *Content) MergeResult {
	r, err := mergeContents(base, ours, theirs, nil)
	if err != nil {
		panic(err)
	}
	return r
}

// resolved is Merge with resolutions: the content and the conflicts left.
func resolved(base, ours, theirs *Content, res []MergeResolution) (Content, []MergeConflict, error) {
	r, err := mergeContents(base, ours, theirs, res)
	return r.Merged, r.Conflicts, err
}
