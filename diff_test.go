package smriti

import (
	"reflect"
	"testing"
)

func TestNormalizeItem(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"LowerCases", "Use PostgreSQL", "use postgresql"},
		{"DropsPunctuation", "Use Postgres!!! (v15), ok?", "use postgres v15 ok"},
		{"DeletesInnerPunctuationWithoutSpace", "east-coast don't", "eastcoast dont"},
		{"CollapsesWhitespace", "  a \t\n b   c  ", "a b c"},
		{"KeepsUnicodeLetters", "Zürich ÉTÉ", "zürich été"},
		{"KeepsDevanagariMarks", "स्मृति", "स्मृति"},
		{"KeepsDigitsOfOtherScripts", "१२३ abc", "१२३ abc"},
		{"DropsSymbols", "a → b ✓", "a b"},
		{"PunctuationOnlyIsEmpty", "--- ... !!!", ""},
		{"EmptyIsEmpty", "", ""},
		{"WhitespaceOnlyIsEmpty", " \t\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NormalizeItem(tt.in); got != tt.want {
				t.Fatalf("NormalizeItem(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestDiffLists(t *testing.T) {
	tests := []struct {
		name string
		a, b []string
		want ListDiff
	}{
		{
			name: "BothEmptyGiveEmptyNonNilLists",
			want: ListDiff{OnlyA: []string{}, OnlyB: []string{}, Shared: []string{}},
		},
		{
			name: "MatchesIgnoringCasePunctuationWhitespace",
			a:    []string{"Use Postgres.", "Fly Qantas"},
			b:    []string{"use  postgres", "Drive"},
			want: ListDiff{OnlyA: []string{"Fly Qantas"}, OnlyB: []string{"Drive"}, Shared: []string{"Use Postgres."}},
		},
		{
			name: "SharedUsesAWording",
			a:    []string{"SYDNEY first"},
			b:    []string{"sydney first!"},
			want: ListDiff{OnlyA: []string{}, OnlyB: []string{}, Shared: []string{"SYDNEY first"}},
		},
		{
			name: "FirstDuplicateWinsWithinASide",
			a:    []string{"Plan A", "plan a!", "PLAN A"},
			b:    []string{},
			want: ListDiff{OnlyA: []string{"Plan A"}, OnlyB: []string{}, Shared: []string{}},
		},
		{
			name: "EmptyKeysAreUnmatchableAndKeepDuplicates",
			a:    []string{"---", "---", "x"},
			b:    []string{"---", "x"},
			want: ListDiff{OnlyA: []string{"---", "---"}, OnlyB: []string{"---"}, Shared: []string{"x"}},
		},
		{
			name: "UnicodeItemsDoNotCollide",
			a:    []string{"東京"},
			b:    []string{"大阪"},
			want: ListDiff{OnlyA: []string{"東京"}, OnlyB: []string{"大阪"}, Shared: []string{}},
		},
		{
			name: "ListsAreSortedByCodePoint",
			a:    []string{"b", "a", "C", "shared"},
			b:    []string{"z", "Y", "shared"},
			want: ListDiff{OnlyA: []string{"C", "a", "b"}, OnlyB: []string{"Y", "z"}, Shared: []string{"shared"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DiffLists(tt.a, tt.b)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("DiffLists = %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestDiffCheckpoints(t *testing.T) {
	a := &Checkpoint{Content: Content{
		Summary:   "A",
		Decisions: []string{"Go east", "Use trains"},
		Tasks:     []Task{{Text: "Book hotel", IntentHint: "implement", Structured: true}},
		Entities:  []string{"Sydney"},
	}}
	b := &Checkpoint{Content: Content{
		Objective: "obj",
		Decisions: []string{"use trains", "Go west"},
		Tasks:     []Task{{Text: "book hotel"}},
	}}

	t.Run("DiffsEveryListAndTasksByText", func(t *testing.T) {
		d := DiffCheckpoints(a, b)
		if d.SummaryA != "A" || d.SummaryB != "" || d.ObjectiveB != "obj" {
			t.Fatalf("scalars: %+v", d)
		}
		want := ListDiff{OnlyA: []string{"Go east"}, OnlyB: []string{"Go west"}, Shared: []string{"Use trains"}}
		if !reflect.DeepEqual(d.Decisions, want) {
			t.Fatalf("decisions = %+v", d.Decisions)
		}
		if !reflect.DeepEqual(d.Tasks.Shared, []string{"Book hotel"}) {
			t.Fatalf("tasks = %+v", d.Tasks)
		}
		if !reflect.DeepEqual(d.Entities.OnlyA, []string{"Sydney"}) {
			t.Fatalf("entities = %+v", d.Entities)
		}
	})
	t.Run("SelfCompareHasOnlyShared", func(t *testing.T) {
		d := DiffCheckpoints(a, a)
		if len(d.Decisions.OnlyA)+len(d.Decisions.OnlyB)+len(d.Tasks.OnlyA) != 0 || len(d.Decisions.Shared) != 2 {
			t.Fatalf("self diff = %+v", d)
		}
	})
}
