package render_test

import (
	"strings"
	"testing"

	"smriti"
	"smriti/coderef"
	"smriti/render"
)

func TestRefChecksComeFirstAndMarkTheirItems(t *testing.T) {
	commit := "0123456789abcdef0123456789abcdef01234567"
	c := &smriti.Checkpoint{Content: smriti.Content{Decisions: []string{"Use Go", "Sends go through app.Send"},
		Tasks: []smriti.Task{{Text: "Fix retries"}}}}
	checks := coderef.ByItem([]coderef.Finding{
		{ItemID: "d-000001", Kind: smriti.KindDecision, Text: "Use Go", Status: coderef.Fresh, Ref: smriti.ItemRef{Path: "go.mod", Commit: commit}},
		{ItemID: "t-000001", Kind: smriti.KindTask, Text: "Fix retries", Status: coderef.Gone, CommitsSince: 2, Deleted: 40, Ref: smriti.ItemRef{Path: "retry.go", Commit: commit}},
		{ItemID: "d-000002", Kind: smriti.KindDecision, Text: "Sends go through app.Send", Status: coderef.Moved,
			Lines: &smriti.LineRange{From: 8, To: 11}, Ref: smriti.ItemRef{Path: "app/send.go", Lines: &smriti.LineRange{From: 4, To: 7}, Commit: commit}},
	})
	want := "## Check before relying on\n" +
		"The code these items cite is not as it was when they were written (`smriti check` shows each ref with its diff stat):\n" +
		"- [gone] task t-000001: Fix retries — retry.go is gone: the file was deleted; 2 commits since 0123456, +0 -40\n" +
		"- [moved] decision d-000002: Sends go through app.Send — app/send.go:4-7 moved to lines 8-11\n"
	if got := render.RefCheckSection(checks); got != want {
		t.Errorf("RefCheckSection =\n%s\nwant\n%s", got, want)
	}
	m := render.MarkStale(c, checks)
	if strings.Join(m.Decisions, "|") != "Use Go|Sends go through app.Send [check: moved]" || m.Tasks[0].Text != "Fix retries [check: gone]" {
		t.Errorf("marked = %q %q", m.Decisions, m.Tasks[0].Text)
	}
	if c.Decisions[1] != "Sends go through app.Send" || c.Tasks[0].Text != "Fix retries" {
		t.Errorf("MarkStale changed its input: %q %q", c.Decisions, c.Tasks[0].Text)
	}
	if got := render.WithRefChecks("# brief\n", checks[2:]); got != "# brief\n" {
		t.Errorf("fresh refs add %q", got)
	}
}

func TestRefChecksCiteTheItemVersion(t *testing.T) {
	commit := "0123456789abcdef0123456789abcdef01234567"
	version := "3f9a1c2b7d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccddeef"
	checks := coderef.ByItem([]coderef.Finding{
		{ItemID: "d-7f3a9c", Version: version, Kind: smriti.KindDecision, Text: "Retries live in client/retry.go", Status: coderef.Gone,
			CommitsSince: 1, Deleted: 12, Ref: smriti.ItemRef{Path: "client/retry.go", Commit: commit}},
		{ItemID: "t-000001", Kind: smriti.KindTask, Text: "Fix retries", Status: coderef.Gone, CommitsSince: 1, Deleted: 12,
			Ref: smriti.ItemRef{Path: "client/retry.go", Commit: commit}},
	})
	want := "## Check before relying on\n" +
		"The code these items cite is not as it was when they were written (`smriti check` shows each ref with its diff stat):\n" +
		"- [gone] decision d-7f3a9c@3f9a1c2b7d4e: Retries live in client/retry.go — client/retry.go is gone: the file was deleted; 1 commit since 0123456, +0 -12\n" +
		"- [gone] task t-000001: Fix retries — client/retry.go is gone: the file was deleted; 1 commit since 0123456, +0 -12\n"
	if got := render.RefCheckSection(checks); got != want {
		t.Errorf("RefCheckSection =\n%s\nwant\n%s", got, want)
	}
	if got := render.RenderCheck("/repo", checks); !strings.Contains(got, "\n## [gone] decision d-7f3a9c@3f9a1c2b7d4e\n") {
		t.Errorf("RenderCheck does not cite the version:\n%s", got)
	}
}
