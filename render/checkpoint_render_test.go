package render_test

import (
	"smriti/intelligence"
	"smriti/render"
	"strings"
	"testing"
	"time"

	"smriti"
)

func TestRenderCheckpoint(t *testing.T) {
	id := fixedID(1)
	long := strings.Repeat("é", render.ArtifactPreviewChars+1)
	full := &smriti.Checkpoint{
		ID: id, Hash: hashOf('a'), BranchName: "main", AuthorAgent: strp("claude"),
		ProjectRoot: strp("/home/ana/proj"), CreatedAt: now.Add(-5 * time.Minute),
		Content: smriti.Content{Message: "Pick the store", Objective: "Ship v1", Summary: "SQLite chosen.",
			Decisions: []string{"Use SQLite"}, Assumptions: []string{"One writer"},
			Tasks:         []smriti.Task{{Text: "write migrations"}},
			OpenQuestions: []string{"Replicas?"}, Entities: []string{"SQLite", "Postgres"},
			Artifacts: []smriti.Artifact{{Label: "", Content: "short"}, {Label: "big", Content: long}}},
		Notes: []*smriti.Note{
			{Author: "ana", Text: "looks right", Kind: smriti.NoteKindNote, CreatedAt: now.Add(-2 * time.Hour)},
			{Author: "bot", Text: "shipped", Kind: "milestone", CreatedAt: now.Add(-3 * 24 * time.Hour)},
		},
	}
	fullText := "# Pick the store\n" +
		"`aaaaaaa` · 5m ago · branch `main` · by `claude` · at `~/proj`\n" +
		"id: `01010101-0101-0101-0101-010101010101`\n\n" +
		"## Objective\nShip v1\n\n## Summary\nSQLite chosen.\n\n" +
		"## Decisions\n- Use SQLite\n\n## Assumptions\n- One writer\n\n" +
		"## Tasks\n- write migrations\n\n## Open questions\n- Replicas?\n\n" +
		"## Attached artifacts\n\n### Untitled\nshort\n\n"
	bare := &smriti.Checkpoint{ID: id, Hash: "abc", BranchName: "idea", Content: smriti.Content{Message: "Bare"}}
	cases := []struct {
		name string
		c    *smriti.Checkpoint
		o    render.CheckpointRenderOptions
		want string
	}{
		{"preview with home and notes", full,
			render.CheckpointRenderOptions{Now: now, Home: "/home/ana/", FullHint: "--full-artifacts"},
			fullText + "### big\n" + strings.Repeat("é", render.ArtifactPreviewChars) +
				"\n\n[… truncated, use --full-artifacts to see all]\n\n" +
				"## Entities\nSQLite, Postgres\n\n" +
				"## Notes\n- ana · 2h ago — looks right\n- [milestone] bot · 3d ago — shipped\n"},
		{"full artifacts, no home", full,
			render.CheckpointRenderOptions{Now: now, FullArtifacts: true, FullHint: "full_artifacts=true"},
			strings.Replace(fullText, "at `~/proj`", "at `/home/ana/proj`", 1) + "### big\n" + long + "\n\n" +
				"## Entities\nSQLite, Postgres\n\n" +
				"## Notes\n- ana · 2h ago — looks right\n- [milestone] bot · 3d ago — shipped\n"},
		{"empty sections left out", bare, render.CheckpointRenderOptions{Now: now},
			"# Bare\n`abc` · ? · branch `idea`\nid: `01010101-0101-0101-0101-010101010101`\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := render.RenderCheckpoint(tc.c, tc.o); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestRenderCheckpointList(t *testing.T) {
	cps := []*smriti.Checkpoint{
		{ID: fixedID(2), Hash: hashOf('b'), BranchName: "main", Content: smriti.Content{Message: "Second"}, CreatedAt: now.Add(-40 * 24 * time.Hour)},
		{ID: fixedID(3), Hash: hashOf('c'), BranchName: "try-pg", Content: smriti.Content{Message: "Third"}, CreatedAt: now.Add(-30 * time.Second)},
	}
	cases := []struct {
		name string
		cps  []*smriti.Checkpoint
		want string
	}{
		{"none", nil, "No checkpoints yet.\n"},
		{"branch named off main", cps, "2 checkpoint(s):\n\n" +
			"- `bbbbbbb` (02020202-0202-0202-0202-020202020202) Second · 2026-02-02\n" +
			"- `ccccccc` (03030303-0303-0303-0303-030303030303) Third · just now (branch: try-pg)\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := render.RenderCheckpointList(tc.cps, now); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestRenderReview(t *testing.T) {
	cases := []struct {
		name string
		r    *intelligence.Review
		want string
	}{
		{"clean", &intelligence.Review{}, "No issues found — reasoning looks consistent.\n"},
		{"issues and suggestions", &intelligence.Review{
			Issues: []intelligence.ReviewIssue{
				{Type: intelligence.IssueContradiction, Description: "A and not A"},
				{Type: "novel_kind", Description: "unlabelled"},
			},
			Suggestions: []string{"Split the task"},
		}, "# Checkpoint review\n\nFound 2 issue(s):\n\n" +
			"1. **Possible contradiction**\n   A and not A\n\n" +
			"2. **novel_kind**\n   unlabelled\n\n" +
			"## Suggestions\n- Split the task\n"},
		{"suggestions only", &intelligence.Review{Suggestions: []string{"Add an objective"}},
			"# Checkpoint review\n\n## Suggestions\n- Add an objective\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := render.RenderReview(tc.r); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestRenderRestore(t *testing.T) {
	c := &smriti.Checkpoint{
		Hash: hashOf('b'), BranchName: "fork/store", AuthorAgent: strp("codex"), CreatedAt: now.Add(-3 * time.Hour),
		Content: smriti.Content{Message: "Resume", Objective: "Ship v1", Summary: "Half done.",
			Decisions: []string{"Use SQLite"}, Assumptions: []string{"One writer"}, OpenQuestions: []string{"Replicas?"},
			Tasks:    []smriti.Task{{Text: "write migrations"}, {Text: "pick a driver", Status: smriti.TaskDone}},
			Entities: []string{"SQLite", "Go"}},
	}
	sp := &smriti.Space{Name: "store", Description: "  the storage work \n", ProjectRoot: strp("/home/ana/proj")}
	for _, tt := range []struct {
		name string
		sp   *smriti.Space
		c    *smriti.Checkpoint
		o    render.CheckpointRenderOptions
		want string
	}{
		{"EverySectionWithHomeAsTilde", sp, c, render.CheckpointRenderOptions{Now: now, Home: "/home/ana"},
			"_Continuation brief for checkpoint `bbbbbbb`_\n\n# store\nthe storage work\nProject root: ~/proj\n\n" +
				"Restored checkpoint: `bbbbbbb` on `fork/store` · by `codex` · 3h ago\n\n## Current objective\nShip v1\n\n## Where we are\nHalf done.\n\n" +
				"## Decisions\n- Use SQLite\n\n## Assumptions we are relying on\n- One writer\n\n## Open questions\n- Replicas?\n\n" +
				"## In progress\n- write migrations\n\n## Done\n- pick a driver (done)\n\n## Key entities\nSQLite, Go\n"},
		{"UntitledSpaceAndBareCheckpoint", &smriti.Space{}, &smriti.Checkpoint{Hash: hashOf('c'), CreatedAt: now},
			render.CheckpointRenderOptions{Now: now},
			"_Continuation brief for checkpoint `ccccccc`_\n\n# Untitled space\n\nRestored checkpoint: `ccccccc` · just now\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := render.RenderRestore(tt.sp, tt.c, tt.o); got != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestRenderCompare(t *testing.T) {
	a := &smriti.Checkpoint{Hash: hashOf('a'), BranchName: "main",
		Content: smriti.Content{Message: "Train", Summary: "Same.", Objective: "Go north", Decisions: []string{"Book early", "Take the train"}}}
	b := &smriti.Checkpoint{Hash: hashOf('b'), BranchName: "bus",
		Content: smriti.Content{Message: "Bus", Summary: "Same.", Objective: "Go south", Decisions: []string{"Book early", "Take the bus"}}}
	anc := fixedID(7)
	want := "# Compare `aaaaaaa` ↔ `bbbbbbb`\n\nCommon ancestor: `ccccccc` (07070707-0707-0707-0707-070707070707)\n\n" +
		"- A: `aaaaaaa` on `main` — Train\n- B: `bbbbbbb` on `bus` — Bus\n\n" +
		"## Summary (identical)\nSame.\n\n## Objective (A)\nGo north\n\n## Objective (B)\nGo south\n\n" +
		"## Decisions\n\n### Shared\n- Book early\n\n### Only in A (`aaaaaaa`)\n- Take the train\n\n### Only in B (`bbbbbbb`)\n- Take the bus\n"
	if got := render.RenderCompare(a, b, smriti.DiffCheckpoints(a, b), &anc, hashOf('c')); got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	if got := render.RenderCompare(a, a, smriti.DiffCheckpoints(a, a), nil, ""); !strings.Contains(got, "Common ancestor: _none — unrelated histories_\n") {
		t.Errorf("unrelated: %q", got)
	}
}
