package smriti

import (
	"reflect"
	"testing"
)

func TestKeepCheckboxState(t *testing.T) {
	doc := "# Tasks\n- [x] Write the migration\n* [ ] Update the docs\n1. [X] Review it\n- plain item\n" +
		"```\n- [x] Inside a fence\n```\n"
	for _, tt := range []struct {
		name string
		in   []Task
		want []Task
	}{
		{"ModelStrippedMarkers", []Task{{Text: "Write the migration"}, {Text: "update the docs."}, {Text: "Review it"}},
			[]Task{{Text: "Write the migration", Status: TaskDone}, {Text: "update the docs.", Status: TaskOpen}, {Text: "Review it", Status: TaskDone}}},
		{"ModelKeptMarkers", []Task{{Text: "[x] Write the migration"}, {Text: "[ ] Something new"}},
			[]Task{{Text: "Write the migration", Status: TaskDone}, {Text: "Something new", Status: TaskOpen}}},
		{"NoCheckboxKeepsStatus", []Task{{Text: "plain item", Status: TaskDone}, {Text: "other"}},
			[]Task{{Text: "plain item", Status: TaskDone}, {Text: "other"}}},
		{"FencedItemsAreNotTasks", []Task{{Text: "Inside a fence"}}, []Task{{Text: "Inside a fence"}}},
		{"DocumentStateWinsOverModel", []Task{{Text: "Write the migration", Status: TaskOpen}},
			[]Task{{Text: "Write the migration", Status: TaskDone}}},
		{"NotAMarker", []Task{{Text: "[link] text"}}, []Task{{Text: "[link] text"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := keepCheckboxState(tt.in, doc); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestDocumentCheckboxes(t *testing.T) {
	got := documentCheckboxes("- [x] A\n- [ ] B\n+ [X] C\n2) [ ] D\n- E\n[x] not a list item\n- [x]\n")
	want := map[string]string{"a": TaskDone, "b": TaskOpen, "c": TaskDone, "d": TaskOpen}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}
