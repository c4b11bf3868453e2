package mcp

import (
	"fmt"
	"strings"
	"time"

	"smriti"
)

// The tools answer in markdown, shaped like the CLI's output.

func short(s string) string {
	if len(s) > 7 {
		return s[:7]
	}
	return s
}

// viewOptions are the checkpoint view options of the tools: the server's
// clock and the argument that shows artifacts in full.
func viewOptions(full bool) smriti.CheckpointRenderOptions {
	return smriti.CheckpointRenderOptions{Now: time.Now(), FullArtifacts: full, FullHint: "full_artifacts=true"}
}

func formatSpaces(spaces []*smriti.Space) string {
	if len(spaces) == 0 {
		return "No spaces yet. Create one with smriti_create_space.\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d space(s):\n\n", len(spaces))
	for _, s := range spaces {
		fmt.Fprintf(&b, "- **%s** `%s`\n", s.Name, s.ID)
		if d := strings.TrimSpace(s.Description); d != "" {
			fmt.Fprintf(&b, "  %s\n", d)
		}
	}
	return b.String()
}

func formatRestore(sp *smriti.Space, cp *smriti.Checkpoint, full bool) string {
	return smriti.RenderRestore(sp, cp, viewOptions(full))
}

func formatCompare(a, bb *smriti.Checkpoint, ancestor *smriti.ID) string {
	d := smriti.DiffCheckpoints(a, bb)
	a7, b7 := short(a.Hash), short(bb.Hash)
	var b strings.Builder
	fmt.Fprintf(&b, "# Compare `%s` ↔ `%s`\n\n", a7, b7)
	if ancestor != nil {
		fmt.Fprintf(&b, "Common ancestor: `%s`\n\n", ancestor)
	} else {
		b.WriteString("Common ancestor: _none — unrelated histories_\n\n")
	}
	fmt.Fprintf(&b, "- A: `%s` on `%s` — %s\n- B: `%s` on `%s` — %s\n\n", a7, a.BranchName, a.Message, b7, bb.BranchName, bb.Message)
	scalar := func(title, x, y string) {
		if x == y {
			if x != "" {
				fmt.Fprintf(&b, "## %s (identical)\n%s\n\n", title, x)
			}
			return
		}
		fmt.Fprintf(&b, "## %s (A)\n%s\n\n## %s (B)\n%s\n\n", title, x, title, y)
	}
	scalar("Summary", d.SummaryA, d.SummaryB)
	scalar("Objective", d.ObjectiveA, d.ObjectiveB)
	for _, l := range []struct {
		title string
		diff  smriti.ListDiff
	}{{"Decisions", d.Decisions}, {"Assumptions", d.Assumptions}, {"Tasks", d.Tasks}, {"Open questions", d.OpenQuestions}} {
		if len(l.diff.Shared)+len(l.diff.OnlyA)+len(l.diff.OnlyB) == 0 {
			continue
		}
		fmt.Fprintf(&b, "## %s\n\n", l.title)
		for _, g := range []struct {
			h     string
			items []string
		}{{"Shared", l.diff.Shared}, {"Only in A (`" + a7 + "`)", l.diff.OnlyA}, {"Only in B (`" + b7 + "`)", l.diff.OnlyB}} {
			if len(g.items) == 0 {
				continue
			}
			fmt.Fprintf(&b, "### %s\n", g.h)
			for _, it := range g.items {
				fmt.Fprintf(&b, "- %s\n", it)
			}
			b.WriteString("\n")
		}
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

func formatConflicts(b *strings.Builder, conflicts []smriti.MergeConflict) {
	for i, c := range conflicts {
		fmt.Fprintf(b, "%d. field `%s`", i+1, c.Field)
		if c.Key != "" {
			fmt.Fprintf(b, " key `%s`", c.Key)
		}
		fmt.Fprintf(b, " (%s)\n   base:   %s\n   ours:   %s\n   theirs: %s\n", c.Kind, orNone(c.Base), orNone(c.Ours), orNone(c.Theirs))
	}
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return strings.ReplaceAll(s, "\n", " ")
}

func formatMerge(o *smriti.MergeOutcome) string {
	var b strings.Builder
	if o.Checkpoint != nil {
		fmt.Fprintf(&b, "Merged into `%s`: created `%s` (%d conflict(s) resolved).\n", o.Checkpoint.BranchName, short(o.Checkpoint.Hash), o.Resolved)
		return b.String()
	}
	m := o.Merged
	fmt.Fprintf(&b, "# Merge preview (nothing written)\n\nMerged: %q · %d decision(s) · %d assumption(s) · %d task(s) · %d open question(s) · %d artifact(s)\n\n",
		m.Message, len(m.Decisions), len(m.Assumptions), len(m.Tasks), len(m.OpenQuestions), len(m.Artifacts))
	if len(o.Conflicts) == 0 {
		b.WriteString("No conflicts. Call again with commit=true to write the merge.\n")
		return b.String()
	}
	fmt.Fprintf(&b, "%d conflict(s) to resolve (pass resolutions with field, key, and choice ours|theirs|base|custom):\n\n", len(o.Conflicts))
	formatConflicts(&b, o.Conflicts)
	return b.String()
}

func formatPreview(p *ContextPreview) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Context: %s mode · %s/%s · ~%d tokens\n\n", p.Mode, p.Provider, p.Model, p.TokenEstimate)
	if len(p.Checkpoints) == 0 {
		b.WriteString("Checkpoints: none\n")
	} else {
		b.WriteString("Checkpoints:\n")
		for _, c := range p.Checkpoints {
			fmt.Fprintf(&b, "- `%s` on `%s` — %s\n", short(c.Hash), c.BranchName, c.Message)
		}
	}
	fmt.Fprintf(&b, "\nTurns: %d (%d dropped)\n", p.TurnCount, p.DroppedTurns)
	for _, m := range p.Messages {
		fmt.Fprintf(&b, "\n## %s\n%s\n", m.Role, m.Content)
	}
	return b.String()
}
