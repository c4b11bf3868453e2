package smriti

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestNormalizeTasks(t *testing.T) {
	tests := []struct {
		name string
		raw  []any
		want []Task
	}{
		{"NilGivesEmptyList", nil, []Task{}},
		{"StringsBecomeStructured", []any{" Book flights "}, []Task{{Text: "Book flights", Structured: true}}},
		{
			"ObjectsKeepValidAnnotations",
			[]any{map[string]any{"text": "Write docs", "id": " d1 ", "intent_hint": " DOCS ", "blocked_by": "impl-1", "status": "Done"}},
			[]Task{{Text: "Write docs", ID: "d1", IntentHint: "docs", BlockedBy: Blockers{"impl-1"}, Status: "done", Structured: true}},
		},
		{
			"InvalidAnnotationsAreDropped",
			[]any{map[string]any{"text": "x", "id": 3, "intent_hint": "design", "blocked_by": "  ", "status": "claimed", "extra": 1}},
			[]Task{{Text: "x", Structured: true}},
		},
		{
			"NullAnnotationsAreAbsent",
			[]any{map[string]any{"text": "x", "intent_hint": nil, "blocked_by": nil}},
			[]Task{{Text: "x", Structured: true}},
		},
		{
			"BlankAndNonStringItemsSkipped",
			[]any{"", "  ", nil, 42, map[string]any{"text": ""}, map[string]any{"id": "no-text"}, []any{"x"}},
			[]Task{},
		},
		{
			"DuplicatesByTrimmedTextFirstWins",
			[]any{"A", map[string]any{"text": " A ", "id": "later"}, "a"},
			[]Task{{Text: "A", Structured: true}, {Text: "a", Structured: true}},
		},
		{
			"TaskValuesAreCleanedToo",
			[]any{Task{Text: " t ", IntentHint: "TEST", Status: "wip"}},
			[]Task{{Text: "t", IntentHint: "test", Structured: true}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := NormalizeTasks(tt.raw)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("normalizeTasks = %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestTaskRender(t *testing.T) {
	tests := []struct {
		name string
		task Task
		want string
	}{
		{"PlainIsText", Task{Text: "Book"}, "Book"},
		{"AllAnnotationsAsText", Task{Text: "Ship", ID: "s1", IntentHint: "implement", Status: "done", BlockedBy: Blockers{"t2"}},
			"Ship [implement] (id: s1) (done) → blocked by: t2"},
		{"OnlyBlocker", Task{Text: "Ship", BlockedBy: Blockers{"review"}}, "Ship → blocked by: review"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.task.Display(); got != tt.want {
				t.Fatalf("Render = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCleanTasksKeepsEachTasksForm(t *testing.T) {
	in := []Task{
		{Text: "  plain  "},
		{Text: "Bench", ID: " t1 ", IntentHint: " TEST ", Status: "Done", BlockedBy: Blockers{" t0 "}, Structured: true},
		{Text: "odd intent", IntentHint: "refactor", Status: "open", Structured: true},
		{Text: "plain"},
		{Text: "   ", Structured: true},
	}
	got := cleanTasks(in)
	want := []Task{
		{Text: "plain"},
		{Text: "Bench", ID: "t1", IntentHint: "test", Status: "done", BlockedBy: Blockers{"t0"}, Structured: true},
		{Text: "odd intent", Status: "open", Structured: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("cleanTasks =\n%+v\nwant\n%+v", got, want)
	}
	if got := cleanTasks(nil); got == nil || len(got) != 0 {
		t.Fatalf("cleanTasks(nil) = %#v", got)
	}
}

func TestBlockedByTakesOneIDOrAList(t *testing.T) {
	for _, tt := range []struct{ in, want, back string }{
		{`{"text":"a","blocked_by":"t-1"}`, "t-1", `{"text":"a","blocked_by":"t-1"}`},
		{`{"text":"a","blocked_by":["t-1","t-2"]}`, "t-1, t-2", `{"text":"a","blocked_by":["t-1","t-2"]}`},
		{`{"text":"a","blocked_by":null}`, "", `{"text":"a"}`},
	} {
		var task Task
		if err := json.Unmarshal([]byte(tt.in), &task); err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		if got := task.BlockedBy.String(); got != tt.want {
			t.Fatalf("%s: blocked_by %q, want %q", tt.in, got, tt.want)
		}
		// One blocker is written back as a string, so old checkpoints hash as before.
		if b, _ := json.Marshal(task); string(b) != tt.back {
			t.Fatalf("%s: marshal %s, want %s", tt.in, b, tt.back)
		}
	}
	var task Task
	if err := json.Unmarshal([]byte(`{"text":"a","blocked_by":3}`), &task); err == nil {
		t.Fatal("a number as blocked_by was accepted")
	}
	got := NormalizeTasks([]any{map[string]any{"text": "x", "blocked_by": []any{" t-1 ", "t-2", "t-1", 7}}})
	if got[0].BlockedBy.String() != "t-1, t-2" {
		t.Fatalf("NormalizeTasks blocked_by = %q", got[0].BlockedBy)
	}
}
