package coord

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"smriti"
)

func TestClaimCreateNormalize(t *testing.T) {
	d := func(x time.Duration) *time.Duration { return &x }
	for _, tc := range []struct {
		name string
		in   ClaimCreate
		want string // the normalised claim as "agent|scope|branch|intent|ttl|task", or the error
	}{
		{"defaults", ClaimCreate{Agent: " codex ", Scope: "  Index job "}, "codex|Index job|main|implement|4h0m0s|"},
		{"intent lower-cased", ClaimCreate{Scope: "s", Intent: " Review ", BranchName: " alt ", TaskID: " t1 ", TTL: d(time.Minute)}, "|s|alt|review|1m0s|t1"},
		{"longest ttl", ClaimCreate{Scope: "s", TTL: d(MaxClaimTTL)}, "|s|main|implement|168h0m0s|"},
		{"unknown intent", ClaimCreate{Scope: "s", Intent: "deploy"}, "invalid: Invalid intent_type 'deploy'. Must be one of: docs, implement, investigate, review, test"},
		{"ttl too short", ClaimCreate{Scope: "s", TTL: d(59 * time.Second)}, "unprocessable: ttl_hours must be between 1 minute (0.0167) and 7 days (168), got 0.01639 hours"},
		{"ttl too long", ClaimCreate{Scope: "s", TTL: d(MaxClaimTTL + time.Hour)}, "unprocessable: ttl_hours must be between 1 minute (0.0167) and 7 days (168), got 169 hours"},
		{"blank scope", ClaimCreate{Scope: "   "}, "unprocessable: scope must not be empty"},
		{"long scope", ClaimCreate{Scope: strings.Repeat("s", 2001)}, "unprocessable: scope must be at most 2000 characters"},
		{"long agent", ClaimCreate{Scope: "s", Agent: strings.Repeat("a", 101)}, "unprocessable: agent must be at most 100 characters"},
		{"long task", ClaimCreate{Scope: "s", TaskID: strings.Repeat("t", 101)}, "unprocessable: task_id must be at most 100 characters"},
	} {
		in := tc.in
		got := ""
		if err := in.Normalize(); err != nil {
			got = string(smriti.ErrorCode(err)) + ": " + smriti.ErrorMessage(err)
		} else {
			got = fmt.Sprintf("%s|%s|%s|%s|%s|%s", in.Agent, in.Scope, in.BranchName, in.Intent, *in.TTL, in.TaskID)
		}
		if got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestClaimTTLHours(t *testing.T) {
	for in, want := range map[float64]time.Duration{
		0: 0, 1: time.Hour, 0.5: 30 * time.Minute, -1: -1, 1e300: 2 * MaxClaimTTL, 400: 2 * MaxClaimTTL,
	} {
		if got := ClaimTTLHours(in); got != want {
			t.Errorf("ClaimTTLHours(%g) = %s, want %s", in, got, want)
		}
	}
	if got := ClaimTTLHours(math.NaN()); got != -1 {
		t.Errorf("ClaimTTLHours(NaN) = %s, want -1ns (refused as out of range)", got)
	}
}

func TestClaimCollidesAndFinishes(t *testing.T) {
	task := func(s string) *string { return &s }
	for _, tc := range []struct {
		a, b Claim
		want bool
	}{
		{Claim{TaskID: task("t1"), Scope: "x"}, Claim{TaskID: task("t1"), Scope: "y"}, true},
		{Claim{TaskID: task("t1"), Scope: "Index job"}, Claim{TaskID: task("t2"), Scope: "index JOB."}, true},
		{Claim{TaskID: task(""), Scope: "a"}, Claim{TaskID: task(""), Scope: "b"}, false},
		{Claim{Scope: "Index job"}, Claim{Scope: "Index jobs now"}, false},
		{Claim{Scope: "  "}, Claim{Scope: ""}, false},
	} {
		if got := tc.a.Collides(&tc.b); got != tc.want {
			t.Errorf("%+v collides with %+v = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	live := Claim{Status: ClaimActive, ExpiresAt: now.Add(time.Minute)}
	for _, tc := range []struct {
		c      Claim
		status string
		want   string
	}{
		{live, ClaimDone, ""},
		{live, ClaimAbandoned, ""},
		{live, "active", "invalid: Invalid status 'active'. Must be 'done' or 'abandoned'."},
		{Claim{Status: ClaimDone, ExpiresAt: now.Add(time.Minute)}, ClaimDone, "conflict: Claim is already 'done' — cannot update."},
		{Claim{Status: ClaimActive, ExpiresAt: now}, ClaimDone, "conflict: Claim expired at 2026-12-01T12:00:00Z — cannot update; claim the work again."},
	} {
		got := ""
		if err := tc.c.CheckFinish(tc.status, now); err != nil {
			got = string(smriti.ErrorCode(err)) + ": " + smriti.ErrorMessage(err)
		}
		if got != tc.want {
			t.Errorf("CheckFinish(%s) on %s claim = %q, want %q", tc.status, tc.c.Status, got, tc.want)
		}
	}
}

func TestComputeDivergence(t *testing.T) {
	head := &smriti.Checkpoint{Content: smriti.Content{Decisions: []string{"A", "B", "C", "D", "E"}}}
	var branches []BranchHead
	branches = append(branches, BranchHead{Branch: "same", Decisions: []string{"a.", "B", "C", "D", "E"}})
	for i := range DivergenceCap + 2 {
		branches = append(branches, BranchHead{Branch: fmt.Sprintf("b%02d", i), Hash: "h", Decisions: []string{"A", "X", "Y", "Z", "W"}})
	}
	pairs, more := ComputeDivergence(head, branches)
	if len(pairs) != DivergenceCap || more != 2 {
		t.Fatalf("%d pairs and %d more, want %d and 2", len(pairs), more, DivergenceCap)
	}
	if p := pairs[0]; p.Branch != "b00" || strings.Join(p.MainOnly, ",") != "B,C,D" || strings.Join(p.BranchOnly, ",") != "W,X,Y" {
		t.Fatalf("first pair = %+v, want b00 with main-only B,C,D and branch-only W,X,Y (three a side, sorted)", p)
	}
	if pairs, more := ComputeDivergence(nil, branches); len(pairs) != 0 || more != 0 {
		t.Fatalf("no head: %d pairs, %d more; want none", len(pairs), more)
	}
}

func TestMetricsView(t *testing.T) {
	m := SpaceMetrics{TotalCheckpoints: 8, TotalDecisions: 18, TotalTasks: 3, ClaimsDone: 2, ClaimsAbandoned: 1}
	v := m.View()
	if v.ClaimCompletionRate == nil || *v.ClaimCompletionRate != 0.67 || v.AvgDecisions != 2.3 || v.AvgTasks != 0.4 {
		t.Fatalf("view = rate %v, decisions %v, tasks %v; want 0.67, 2.3 (2.25 rounds up), 0.4", v.ClaimCompletionRate, v.AvgDecisions, v.AvgTasks)
	}
	empty := SpaceMetrics{}
	if v := empty.View(); v.ClaimCompletionRate != nil || v.AvgDecisions != 0 {
		t.Fatalf("empty view = %+v, want no rate and 0 averages", v)
	}
	for x, want := range map[float64]float64{2.675: 2.68, 0.125: 0.13, 1.005: 1.01, 2.5: 2.5, -0.125: -0.13} {
		if got := roundTo(x, 2); got != want {
			t.Errorf("roundTo(%g, 2) = %g, want %g", x, got, want)
		}
	}
}
