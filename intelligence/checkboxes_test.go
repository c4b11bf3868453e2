package intelligence

import (
	"reflect"
	"smriti"
	"testing"
)

func TestKeepCheckboxState(t *testing.T) {
	doc := "# Tasks\n- [x] Write the migration\n* [ ] Update the docs\n1. [X] Review it\n- plain item\n" +
		"```\n- [x] Inside a fence\n```\n"
	for _, tt := range []struct {
		name string
		in   []smriti.Task
		want []smriti.Task
	}{
		{"ModelStrippedMarkers", []smriti.Task{{Text: "Write the migration"}, {Text: "update the docs."}, {Text: "Review it"}},
			[]smriti.Task{{Text: "Write the migration", Status: smriti.TaskDone}, {Text: "update the docs.", Status: smriti.TaskOpen}, {Text: "Review it", Status: smriti.TaskDone}}},
		{"ModelKeptMarkers", []smriti.Task{{Text: "[x] Write the migration"}, {Text: "[ ] Something new"}},
			[]smriti.Task{{Text: "Write the migration", Status: smriti.TaskDone}, {Text: "Something new", Status: smriti.TaskOpen}}},
		{"NoCheckboxKeepsStatus", []smriti.Task{{Text: "plain item", Status: smriti.TaskDone}, {Text: "other"}},
			[]smriti.Task{{Text: "plain item", Status: smriti.TaskDone}, {Text: "other"}}},
		{"FencedItemsAreNotTasks", []smriti.Task{{Text: "Inside a fence"}}, []smriti.Task{{Text: "Inside a fence"}}},
		{"DocumentStateWinsOverModel", []smriti.Task{{Text: "Write the migration", Status: smriti.TaskOpen}},
			[]smriti.Task{{Text: "Write the migration", Status: smriti.TaskDone}}},
		{"NotAMarker", []smriti.Task{{Text: "[link] text"}}, []smriti.Task{{Text: "[link] text"}}},
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
	want := map[string]string{"a": smriti.TaskDone, "b": smriti.TaskOpen, "c": smriti.TaskDone, "d": smriti.TaskOpen}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}
