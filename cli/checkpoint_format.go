package cli

import (
	"fmt"
	"os"
	"strings"

	"smriti"
	"smriti/render"
	"smriti/wire"
)

// viewOptions are the checkpoint view options of the CLI: the local clock
// and home directory, and the flag that shows artifacts in full.
func viewOptions(full bool) render.CheckpointRenderOptions {
	home, _ := os.UserHomeDir()
	return render.CheckpointRenderOptions{Now: now(), Home: home, FullArtifacts: full, FullHint: "--full-artifacts"}
}

// formatCheckpoint is `checkpoint show`.
func formatCheckpoint(c *wire.Commit, full bool) string {
	return render.RenderCheckpoint(c.Checkpoint(), viewOptions(full))
}

// formatCheckpointList is `checkpoint list`.
func formatCheckpointList(cps []wire.Commit) string {
	out := make([]*smriti.Checkpoint, len(cps))
	for i := range cps {
		out[i] = cps[i].Checkpoint()
	}
	return render.RenderCheckpointList(out, now())
}

// formatReview is `checkpoint review`.
func formatReview(r *wire.ReviewOut) string {
	return render.RenderReview(r.Review())
}

// changeList renders a draft's changes for review before saving.
func changeList(base *smriti.ID, changes []wire.ChangeOut) string {
	var b strings.Builder
	if base != nil {
		fmt.Fprintf(&b, "Changes to checkpoint %s:\n", base.String()[:8])
	} else {
		b.WriteString("A first checkpoint:\n")
	}
	if len(changes) == 0 {
		b.WriteString("  (no changes: the head is carried as it is)\n")
	}
	for _, c := range changes {
		text := ""
		switch {
		case c.After != nil && c.Before != nil:
			text = fmt.Sprintf("%q → %q", *c.Before, *c.After)
		case c.After != nil:
			text = fmt.Sprintf("%q", *c.After)
		case c.Before != nil:
			text = fmt.Sprintf("%q", *c.Before)
		}
		mark := map[string]string{"add": "+", "update": "~", "resolve": "✓", "retract": "-", "supersede": "»"}[c.Op]
		fmt.Fprintf(&b, "  %s %-9s %-13s %s %s", mark, c.Op, c.Kind, c.ID, text)
		if c.Reason != nil {
			fmt.Fprintf(&b, " (%s)", *c.Reason)
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// formatItems lists a checkpoint's items with their ids: the live ones by
// kind, then what the checkpoint retired.
func formatItems(items []wire.ItemOut) string {
	var b strings.Builder
	b.WriteString("\n## Items\n")
	if len(items) == 0 {
		b.WriteString("(none)\n")
	}
	for _, it := range items {
		change := ""
		if it.Change != nil {
			change = " — " + it.Change.Op + " here"
		}
		status := ""
		if it.Status != smriti.ItemOpen {
			status = " (" + it.Status + ")"
		}
		fmt.Fprintf(&b, "- `%s` %s: %s%s%s\n", it.ID, it.Kind, it.Text, status, change)
	}
	return b.String()
}
