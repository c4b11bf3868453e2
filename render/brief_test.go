package render_test

import (
	"flag"
	"os"
	"path/filepath"
	"smriti/coord"
	"smriti/render"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"smriti"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// now is the fixed clock every brief is rendered against.
var now = time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)

func strp(s string) *string { return &s }

func hashOf(c byte) string { return strings.Repeat(string(c), 64) }

func fixedID(n byte) smriti.ID {
	var id uuid.UUID
	for i := range id {
		id[i] = n
	}
	return id
}

func space() *smriti.Space {
	return &smriti.Space{ID: fixedID(1), Name: "Research Agent Architecture", Description: "Enterprise RAG design\n",
		ProjectRoot: strp("/home/ada/src/rag")}
}

func mainHead() *smriti.Checkpoint {
	return &smriti.Checkpoint{ID: fixedID(2), Hash: hashOf('a'), BranchName: "main", AuthorAgent: strp("claude-code"),
		ProjectRoot: strp("/home/ada/src/rag"), CreatedAt: now.Add(-3 * time.Hour),
		Content: smriti.Content{
			Message:       "Two-stage retrieval",
			Objective:     "Design retrieval for an enterprise RAG system",
			Summary:       "We settled on a two-stage pipeline.",
			Decisions:     []string{"Vector index then cross-encoder reranker", "Local models only"},
			Assumptions:   []string{"Documents fit on one machine"},
			OpenQuestions: []string{"Which reranker?"},
			Entities:      []string{"FAISS", "bge-reranker"},
			Tasks: []smriti.Task{
				{Text: "Benchmark rerankers", ID: "t1", IntentHint: "investigate", Structured: true},
				{Text: "Write the indexing job", ID: "t2", IntentHint: "implement", BlockedBy: smriti.Blockers{"t1"}, Structured: true},
				{Text: "Draft the audit trail", Status: "done", Structured: true},
				{Text: "Plain string task"},
			},
			Artifacts: []smriti.Artifact{
				{ID: "a1", Type: "markdown", Label: "Pipeline sketch", Content: strings.Repeat("stage ", 200)},
				{ID: "a2", Type: "code", Label: "", Content: "print('hi')"},
			},
		}}
}

func threeBranches() []coord.BranchHead {
	return []coord.BranchHead{
		{Branch: "state-first", CheckpointID: fixedID(3), Hash: hashOf('b'), Message: "Scratchpad reasoning",
			AuthorAgent: strp("codex"), CreatedAt: now.Add(-20 * time.Minute),
			Decisions: []string{"No vector index", "Local models only", "Plan/act loop", "Auditable chain", "SQLite out"}},
		{Branch: "same-as-main", CheckpointID: fixedID(4), Hash: hashOf('c'), Message: "",
			CreatedAt: now.Add(-2 * 24 * time.Hour), Decisions: []string{"local models only!", "Vector index then cross-encoder reranker"}},
		{Branch: "hybrid", CheckpointID: fixedID(5), Hash: hashOf('d'), Message: "Hybrid search",
			AuthorAgent: strp("cursor"), CreatedAt: now.Add(-45 * 24 * time.Hour), Decisions: []string{"BM25 plus vectors"}},
	}
}

func claims() []coord.ActiveClaim {
	wt := fixedID(7)
	return []coord.ActiveClaim{
		{Claim: coord.Claim{ID: fixedID(6), Agent: "codex", BranchName: "state-first", Scope: "Prototype the plan/act loop",
			TaskID: strp("t2"), Intent: "implement", WorktreeID: &wt, ClaimedAt: now.Add(-5 * time.Minute)},
			BaseHash: hashOf('a'),
			Worktree: &coord.Worktree{ID: wt, Path: "/home/ada/.smriti/worktrees/rag/codex-1234abcd", BranchName: "smriti/codex/1234abcd"},
			Probe: &coord.WorktreeProbe{DirtyFiles: 5, DirtyPaths: []string{"loop.go", "a/very/long/path/that/goes/on/and/on/forever.go", "README.md"},
				Ahead: 2, Behind: 1, LastCommitSHA: "9f8e7d6", LastCommitAt: now.Add(-90 * time.Minute)}},
		{Claim: coord.Claim{ID: fixedID(8), Agent: "claude-code", BranchName: "main", Scope: "Review the reranker benchmark",
			Intent: "review", ClaimedAt: now.Add(-30 * time.Second)}},
		{Claim: coord.Claim{ID: fixedID(9), Agent: "", BranchName: "main", Scope: "Docs pass", Intent: "docs",
			WorktreeID: &wt, ClaimedAt: now.Add(-26 * time.Hour)}, BaseHash: hashOf('e')},
	}
}

func full() *coord.StateBrief {
	b := &coord.StateBrief{Space: space(), Head: mainHead(), Branches: threeBranches(), Claims: claims()}
	b.Divergence, b.MoreDivergent = coord.ComputeDivergence(b.Head, b.Branches)
	return b
}

func TestRenderBriefGolden(t *testing.T) {
	opts := render.BriefOptions{Now: now, Home: "/home/ada"}
	compact := opts
	compact.Mode = render.BriefCompact
	preview := opts
	preview.Mode = render.BriefPreview
	stats := compact
	stats.Stats = true
	statsFull := opts
	statsFull.Stats = true

	mainOnly := &coord.StateBrief{Space: space(), Head: mainHead()}
	tiny := &coord.StateBrief{Space: &smriti.Space{Name: "Tiny"}, Head: &smriti.Checkpoint{Hash: hashOf('f'), CreatedAt: now,
		Content: smriti.Content{Message: "m", Artifacts: []smriti.Artifact{{Label: "x", Content: "y"}}}}}
	noClaimsWorktree := full()
	noClaimsWorktree.Claims = noClaimsWorktree.Claims[1:2]
	changed := &coord.StateBrief{Space: space(), Head: mainHead(), Freshness: &coord.Freshness{Changed: true,
		SinceHash: hashOf('0'), CurrentHeadHash: hashOf('a'), NewCount: 7, New: []coord.FreshCheckpoint{
			{Hash: hashOf('a'), AuthorAgent: strp("claude-code"), Message: "Two-stage retrieval", CreatedAt: now.Add(-3 * time.Hour)},
			{Hash: hashOf('9'), Message: "Earlier", CreatedAt: now.Add(-50 * time.Hour)},
		}}}
	unchanged := &coord.StateBrief{Space: space(), Head: mainHead(), Freshness: &coord.Freshness{
		SinceHash: hashOf('a'), CurrentHeadHash: hashOf('a'), New: []coord.FreshCheckpoint{}}}
	capped := full()
	capped.MoreBranches, capped.MoreClaims, capped.MoreDivergent = 30, 4, 12
	withGit := &coord.StateBrief{Space: space(), Head: mainHead()}
	withGit.Head.Metadata = map[string]any{"git": map[string]any{"commit": strings.Repeat("0123456789", 4), "branch": "main",
		"dirty": true, "diff_sha256": hashOf('9')}}
	mounted := &coord.StateBrief{Space: space(), Head: mainHead(),
		Mount: &coord.MountedCheckpoint{SessionID: fixedID(10), CheckpointID: fixedID(2), Hash: hashOf('a'), Message: "Two-stage retrieval"}}

	cases := []struct {
		name string
		b    *coord.StateBrief
		o    render.BriefOptions
	}{
		{"empty_space", &coord.StateBrief{Space: space()}, opts},
		{"untitled_empty_space", &coord.StateBrief{Space: &smriti.Space{}}, opts},
		{"main_only_full", mainOnly, opts},
		{"main_only_compact", mainOnly, compact},
		{"main_only_preview", mainOnly, preview},
		{"three_branches_with_divergence_and_claims", full(), opts},
		{"claim_without_worktree", noClaimsWorktree, compact},
		{"freshness_changed", changed, compact},
		{"freshness_unchanged", unchanged, compact},
		{"stats_compact", mainOnly, stats},
		{"stats_without_compact", mainOnly, statsFull},
		{"stats_no_artifacts", &coord.StateBrief{Space: space()}, stats},
		{"stats_artifacts_too_small", tiny, stats},
		{"capped_lists", capped, compact},
		{"mounted_checkpoint", mounted, compact},
		{"git_dirty_compact", withGit, compact},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := render.RenderBrief(c.b, c.o)
			golden(t, filepath.Join("testdata", "brief", c.name+".md"), got)
		})
	}
}

// golden compares got with the file, or rewrites the file under -update.
func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to create it)", err, t.Name())
	}
	if got != string(want) {
		t.Fatalf("%s differs from the golden file\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}

func TestRelativeTime(t *testing.T) {
	cases := []struct {
		ago  time.Duration
		want string
	}{
		{-time.Hour, "just now"},
		{0, "just now"},
		{59 * time.Second, "just now"},
		{time.Minute, "1m ago"},
		{59*time.Minute + 59*time.Second, "59m ago"},
		{time.Hour, "1h ago"},
		{23*time.Hour + 59*time.Minute, "23h ago"},
		{24 * time.Hour, "1d ago"},
		{29*24*time.Hour + 23*time.Hour, "29d ago"},
		{30 * 24 * time.Hour, "2026-02-12"},
		{400 * 24 * time.Hour, "2025-02-07"},
	}
	for _, c := range cases {
		if got := render.RelativeTime(now.Add(-c.ago), now); got != c.want {
			t.Errorf("RelativeTime(now-%v) = %q, want %q", c.ago, got, c.want)
		}
	}
	if got := render.RelativeTime(time.Time{}, now); got != "?" {
		t.Errorf("RelativeTime(zero) = %q, want ?", got)
	}
}

func TestComputeDivergenceCoversEveryBranch(t *testing.T) {
	head := mainHead()
	var branches []coord.BranchHead
	for i := 0; i < coord.DivergenceCap+5; i++ {
		branches = append(branches, coord.BranchHead{Branch: "b" + string(rune('a'+i)), Hash: hashOf('b'),
			Decisions: []string{"Local models only", "Vector index then cross-encoder reranker"}})
	}
	// The last branch is the only divergent one: the first implementation,
	// which looked at two branches only, would have missed it.
	branches[len(branches)-1].Decisions = []string{"Local models only", "Hosted reranker", "a", "b", "c"}
	pairs, more := coord.ComputeDivergence(head, branches)
	if len(pairs) != 1 || more != 0 {
		t.Fatalf("pairs = %+v, more = %d; want the one divergent branch", pairs, more)
	}
	p := pairs[0]
	if p.Branch != branches[len(branches)-1].Branch || len(p.BranchOnly) != 3 ||
		strings.Join(p.MainOnly, "|") != "Vector index then cross-encoder reranker" {
		t.Fatalf("pair = %+v", p)
	}
	for i := range branches {
		branches[i].Decisions = []string{"different " + branches[i].Branch}
	}
	pairs, more = coord.ComputeDivergence(head, branches)
	if len(pairs) != coord.DivergenceCap || more != 5 {
		t.Fatalf("%d pairs, more %d; want %d and 5", len(pairs), more, coord.DivergenceCap)
	}
	if pairs, more := coord.ComputeDivergence(nil, branches); len(pairs) != 0 || more != 0 {
		t.Fatalf("no main head: pairs %v more %d", pairs, more)
	}
}

// The brief's code line: the head checkpoint's metadata.git in a few words,
// and nothing when the head recorded none (or something unreadable).
func TestRenderBriefCodeLine(t *testing.T) {
	commit := strings.Repeat("abcdef0123", 4)
	for _, c := range []struct {
		name string
		git  any
		want string
	}{
		{"clean", map[string]any{"commit": commit, "branch": "feat/x", "dirty": false, "diff_sha256": ""}, "Code: git abcdef0123ab on feat/x\n"},
		{"dirty", map[string]any{"commit": commit, "branch": "main", "dirty": true, "diff_sha256": hashOf('7')}, "Code: git abcdef0123ab on main, dirty\n"},
		{"detached", map[string]any{"commit": commit, "branch": "", "dirty": false}, "Code: git abcdef0123ab (detached)\n"},
		{"no commit", map[string]any{"branch": "main"}, ""},
		{"not an object", "abcdef0", ""},
		{"absent", nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := mainHead()
			if c.git != nil {
				h.Metadata = map[string]any{"git": c.git}
			}
			out := render.RenderBrief(&coord.StateBrief{Space: space(), Head: h}, render.BriefOptions{Now: now, Mode: render.BriefCompact})
			meta := "Latest checkpoint: `aaaaaaa` · by `claude-code` · 3h ago · at `/home/ada/src/rag`\n"
			i := strings.Index(out, meta)
			if i < 0 {
				t.Fatalf("no meta line in:\n%s", out)
			}
			rest := out[i+len(meta):]
			got := ""
			if strings.HasPrefix(rest, "Code: ") {
				got = rest[:strings.IndexByte(rest, '\n')+1]
			}
			if got != c.want {
				t.Fatalf("code line %q, want %q\n%s", got, c.want, out)
			}
		})
	}
}
