package mcp

import (
	"fmt"
	"smriti/app"
	"smriti/render"
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
func viewOptions(full bool) render.CheckpointRenderOptions {
	return render.CheckpointRenderOptions{Now: time.Now(), FullArtifacts: full, FullHint: "full_artifacts=true"}
}

func formatRestore(sp *smriti.Space, cp *smriti.Checkpoint, full bool) string {
	return render.RenderRestore(sp, cp, viewOptions(full))
}

func formatCompare(c *app.Comparison) string {
	if c.Ancestor == nil {
		return render.RenderCompare(c.A, c.B, c.Diff, nil, "")
	}
	return render.RenderCompare(c.A, c.B, c.Diff, &c.Ancestor.ID, c.Ancestor.Hash)
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

func formatMerge(o *app.MergeOutcome) string {
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
