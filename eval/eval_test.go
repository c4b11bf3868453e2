package eval

import (
	"reflect"
	"strings"
	"testing"

	"smriti"
)

func TestParseMarkers(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want []Marker
	}{
		{"DecideIsAnAdd", "[decide d:pricing] Pricing is per-seat at $12",
			[]Marker{{Op: MarkAdd, Key: "d:pricing", Kind: smriti.KindDecision, Text: "Pricing is per-seat at $12"}}},
		{"OneMarkerALineProseIgnored", "we talked\n[change d:pricing] $14\n[resolve t:ship] in 1.4\nthanks",
			[]Marker{{Op: MarkChange, Key: "d:pricing", Kind: smriti.KindDecision, Text: "$14"},
				{Op: MarkResolve, Key: "t:ship", Kind: smriti.KindTask, Text: "in 1.4"}}},
		{"RetractOfAQuestion", "[retract q:trial] moot", []Marker{{Op: MarkRetract, Key: "q:trial", Kind: smriti.KindQuestion, Text: "moot"}}},
		{"UnknownVerbIsProse", "[ponder d:x] maybe", nil},
		{"UnknownKindLetterIsProse", "[decide z:x] maybe", nil},
		{"MarkerMidLineIsProse", "so [decide d:x] this", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ParseMarkers(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("ParseMarkers(%q) = %+v, want %+v", tc.in, got, tc.want)
			}
		})
	}
}

func TestSplitTag(t *testing.T) {
	for in, want := range map[string][2]string{
		"Pricing is $12 [d:pricing]": {"Pricing is $12", "d:pricing"},
		"Pricing is $12":             {"Pricing is $12", ""},
		"Use [brackets]":             {"Use [brackets]", ""},
		Tagged("Ship it", "t:ship"):  {"Ship it", "t:ship"},
	} {
		text, key := SplitTag(in)
		if text != want[0] || key != want[1] {
			t.Errorf("SplitTag(%q) = %q, %q; want %q, %q", in, text, key, want[0], want[1])
		}
	}
}

const forkScenario = `-- scenario --
name: t
-- script --
session s1
say s1 [decide d:p] Price is $12
say s1 [task t:docs] Write docs
say s1 [ask q:trial] How long is the trial?
save s1 as c1
fork f1 from c1 branch alt
say f1 [change d:p] Price is usage-based
say f1 [resolve q:trial] 30 days
save f1
say s1 [change d:p] Price is $14
say s1 [resolve t:docs] done
say s1 unsaved chatter
save s1
say s1 [decide d:late] Never saved
merge alt into main expect d:p resolve theirs
`

func TestReplayForkMerge(t *testing.T) {
	sc, err := Parse("t.txtar", []byte(forkScenario))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Replay(sc)
	if err != nil {
		t.Fatal(err)
	}
	want := []TruthItem{
		{Key: "d:p", Kind: smriti.KindDecision, Text: "Price is usage-based", Status: "open", Intro: 1, Texts: []string{"Price is $12", "Price is usage-based"}},
		{Key: "t:docs", Kind: smriti.KindTask, Text: "Write docs", Status: "done", Intro: 2, Texts: []string{"Write docs"}},
	}
	if !reflect.DeepEqual(tr.Final, want) {
		t.Fatalf("final = %+v\nwant %+v", tr.Final, want)
	}
	if got := tr.Conflicts[len(sc.Steps)-1]; !reflect.DeepEqual(got, []string{"d:p"}) {
		t.Fatalf("merge conflicts = %v, want [d:p]", got)
	}
	if !reflect.DeepEqual(tr.Lines, []int{1, 2, 3, 4, 5, 6, 7, 8}) {
		t.Fatalf("lines reaching main = %v, want turns 1-8 (turn 9 is never saved)", tr.Lines)
	}
	if sc.Turns != 9 || sc.Saves != 4 {
		t.Fatalf("turns %d saves %d, want 9 and 4", sc.Turns, sc.Saves)
	}
}

func TestParseRefusesInconsistentScripts(t *testing.T) {
	for name, script := range map[string]string{
		"ChangeOfAnUnknownKey":    "session s1\nsay s1 [change d:x] y\nsave s1",
		"WrongExpectedConflicts":  strings.Replace(forkScenario[strings.Index(forkScenario, "session"):], "expect d:p", "expect t:docs", 1),
		"SaveInASpacelessSession": "session s1 nospace\nsay s1 hi\nsave s1",
		"UnknownCheckpoint":       "session s1\nfork f1 from nowhere",
		"UnknownStep":             "session s1\nshout s1 hi",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Parse("x.txtar", []byte("-- scenario --\nname: x\n-- script --\n"+script+"\n")); err == nil {
				t.Fatal("parsed; want an error")
			}
		})
	}
}

func TestRepeatExpands(t *testing.T) {
	sc, err := Parse("r.txtar", []byte("-- scenario --\nname: r\n-- script --\nsession s1\nrepeat 3: say s1 [decide d:k{i}] Knob {i}; save s1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Turns != 3 || sc.Saves != 3 || sc.Steps[5].Text != "[decide d:k3] Knob 3" {
		t.Fatalf("turns %d saves %d last say %q", sc.Turns, sc.Saves, sc.Steps[5].Text)
	}
}

// TestScoreRun: each kind of failure is counted where it belongs.
func TestScoreRun(t *testing.T) {
	sc, _ := Parse("t.txtar", []byte(forkScenario))
	tr, _ := Replay(sc)
	ob := &Observation{
		Final: []ObservedItem{
			{Kind: "decision", Text: "Price is usage-based [d:p]", Status: "open", Turn: 1},   // right
			{Kind: "decision", Text: "Price is $12 [d:p]", Status: "open", Turn: 1},           // a duplicate
			{Kind: "task", Text: "Write docs", Status: "open", Turn: 5},                       // stale status, untagged, wrong turn
			{Kind: "open_question", Text: "How long is the trial? [q:trial]", Status: "open"}, // answered: unexpected
			{Kind: "entity", Text: "Invented"},                                                // unexpected
		},
		Conflicts: map[int][]string{len(sc.Steps) - 1: {"d:p", "t:docs"}},
		Probes:    []ProbeResult{{Want: "HEAD", Mode: "MOUNTED", Leaks: []string{"context:X"}, Missing: 2}},
	}
	s := ScoreRun(sc, tr, ob)
	want := Score{Scenario: "t", Hash: sc.Hash, Expected: 2, Observed: 5, Correct: 1, Stale: 1, Duplicated: 1, Unexpected: 2,
		Recall: 0.5, Precision: 0.2, ConflictsExpected: 1, ConflictsFound: 2, ConflictsMatched: 1,
		Probes: 1, Leaks: 2, Missing: 2, ProvenanceChecked: 2, ProvenanceRight: 1, Provenance: 0.5}
	if s != want {
		t.Fatalf("score = %+v\nwant    %+v", s, want)
	}
}
