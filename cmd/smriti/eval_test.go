package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"smriti/cli"
	"smriti/eval"
)

// scenarioDir is the repository's published scenarios.
var scenarioDir = filepath.Join("..", "..", "eval", "scenarios")

// evalFigures are the counts a run is judged by (not its timings or
// prime's, which name relative ages).
type evalFigures struct {
	Expected, Observed, Correct, Lost, Stale, Duplicated, Unexpected int
	ConflictsRight, ConflictsFound, ConflictsExpected                int
	Probes, Leaks, Missing, ProvenanceRight, Drafts                  int
}

func figures(s eval.Score) evalFigures {
	return evalFigures{s.Expected, s.Observed, s.Correct, s.Lost, s.Stale, s.Duplicated, s.Unexpected,
		s.ConflictsMatched, s.ConflictsFound, s.ConflictsExpected, s.Probes, s.Leaks, s.Missing, s.ProvenanceRight, s.Drafts}
}

func runEvalT(t *testing.T, o evalOptions) *eval.Report {
	t.Helper()
	rep, err := runEval(context.Background(), o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Overall.Err != "" {
		t.Fatalf("a scenario failed: %s", rep.Overall.Err)
	}
	return rep
}

// TestEvalOracle is the published state-fidelity eval with the oracle
// model: every scenario keeps its whole state — every true item carried
// with its text, status and source turn, nothing lost, stale, duplicated
// or invented, exactly the expected merge conflicts, no isolation leak —
// and both baselines, scored on the same scenarios with the same model,
// do worse by the exact figures below.
func TestEvalOracle(t *testing.T) {
	rep := runEvalT(t, evalOptions{provider: "oracle", scenarios: scenarioDir})
	md := rep.Markdown()
	fmt.Println(md) // the figures, in the test log of make test
	if len(rep.Rows) < 13 {
		t.Fatalf("%d scenarios, want at least 13", len(rep.Rows))
	}
	for _, row := range rep.Rows {
		s := row.Smriti
		if s.Recall != 1 || s.Precision != 1 || s.Provenance != 1 || s.Lost+s.Stale+s.Duplicated+s.Unexpected+s.Leaks+s.Missing != 0 ||
			s.ConflictsMatched != s.ConflictsExpected || s.ConflictsFound != s.ConflictsExpected {
			t.Errorf("%s: %+v", row.Scenario, s)
		}
		if s.PrimeTokens <= 0 || s.PrimeTokens > cli.PrimeBudget {
			t.Errorf("%s: prime costs %d tokens, want 1 to %d", row.Scenario, s.PrimeTokens, cli.PrimeBudget)
		}
		if row.FullContext == nil || row.Notes == nil || row.FullContext.Err != "" || row.Notes.Err != "" {
			t.Errorf("%s: a baseline did not score: %+v %+v", row.Scenario, row.FullContext, row.Notes)
		}
	}
	checkOracleFigures(t, rep)
}

// The oracle run's figures: Smriti's, then the two baselines'.
var (
	oracleSmriti = evalFigures{Expected: 160, Observed: 160, Correct: 160, ConflictsRight: 4, ConflictsFound: 4, ConflictsExpected: 4,
		Probes: 11, ProvenanceRight: 160, Drafts: 83}
	oracleFull  = evalFigures{Expected: 160, Observed: 116, Correct: 114, Lost: 45, Stale: 1, Unexpected: 1, ConflictsExpected: 4, ProvenanceRight: 109, Drafts: 13}
	oracleNotes = evalFigures{Expected: 160, Observed: 186, Correct: 134, Lost: 6, Stale: 20, Duplicated: 17, Unexpected: 15, ConflictsExpected: 4, ProvenanceRight: 134, Drafts: 79}
)

func checkOracleFigures(t *testing.T, rep *eval.Report) {
	t.Helper()
	if got := figures(rep.Overall); got != oracleSmriti {
		t.Errorf("overall = %+v\nwant      %+v", got, oracleSmriti)
	}
	if got := figures(*rep.FullContext); got != oracleFull {
		t.Errorf("full context = %+v\nwant           %+v", got, oracleFull)
	}
	if got := figures(*rep.Notes); got != oracleNotes {
		t.Errorf("notes file = %+v\nwant         %+v", got, oracleNotes)
	}
}

// TestEvalBlindOracleFails proves the eval can fail: an oracle that ignores
// the base it is sent (as a server that stopped sending the base would
// make it), or every other user turn (as one that dropped turns),
// scores lower recall and lower precision.
func TestEvalBlindOracleFails(t *testing.T) {
	for _, tc := range []struct {
		blind string
		want  evalFigures
	}{
		{"base", evalFigures{Expected: 160, Observed: 200, Correct: 139, Stale: 21, Duplicated: 23, Unexpected: 17,
			ConflictsExpected: 4, Probes: 11, ProvenanceRight: 145, Drafts: 83}},
		{"turns", evalFigures{Expected: 160, Observed: 115, Correct: 105, Lost: 51, Stale: 4, Unexpected: 6,
			ConflictsRight: 2, ConflictsFound: 2, ConflictsExpected: 4, Probes: 11, ProvenanceRight: 109, Drafts: 83}},
	} {
		t.Run("Blind"+tc.blind, func(t *testing.T) {
			rep := runEvalT(t, evalOptions{provider: "oracle", scenarios: scenarioDir, blind: tc.blind, noBaselines: true})
			o := rep.Overall
			t.Logf("blind %s: recall %.3f precision %.3f lost %d stale %d dup %d unexpected %d", tc.blind, o.Recall, o.Precision, o.Lost, o.Stale, o.Duplicated, o.Unexpected)
			if o.Recall >= 0.95 || o.Precision >= 0.95 {
				t.Errorf("blind %s scores recall %.3f precision %.3f; the eval should fail it", tc.blind, o.Recall, o.Precision)
			}
			if got := figures(o); got != tc.want {
				t.Errorf("blind %s = %+v\nwant       %+v", tc.blind, got, tc.want)
			}
		})
	}
}

// TestEvalProbesCatchLeaks: a probe that forbids what the session was
// rightly given, expects the wrong mode, or promises a checkpoint the
// session does not see, counts leaks and missing items — the isolation
// measure can fail too.
func TestEvalProbesCatchLeaks(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "leak.txtar"), []byte(`-- scenario --
name: leak
-- script --
session s1
say s1 [decide d:a] Alpha is VISIBLE-1
save s1 as c1
say s1 [decide d:b] Beta is VISIBLE-2
save s1 as c2
session s2
probe s2 HEAD forbid VISIBLE-2
probe s2 MOUNTED
mount s2 c1
probe s2 MOUNTED sees c2
`), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := runEvalT(t, evalOptions{provider: "oracle", scenarios: dir, noBaselines: true})
	s := rep.Overall
	// VISIBLE-2 is in c2, which HEAD gives s2; the second probe is in HEAD
	// mode; c2's second item is not in the mounted c1.
	if s.Probes != 3 || s.Leaks != 2 || s.Missing != 1 {
		t.Fatalf("probes %d leaks %d missing %d; want 3, 2 and 1", s.Probes, s.Leaks, s.Missing)
	}
}

// TestREADMEEvalTableIsCurrent: the README's eval table lists every
// published scenario with its current hash, so a changed scenario cannot
// keep an old figure there.
func TestREADMEEvalTableIsCurrent(t *testing.T) {
	raw, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	scenarios, err := eval.LoadDir(scenarioDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range scenarios {
		if row := "| " + sc.Name + " | `" + sc.Hash + "` |"; !strings.Contains(string(raw), row) {
			t.Errorf("README has no eval row %q: run `smriti eval` and paste its table into the State-fidelity eval section", row)
		}
	}
}
