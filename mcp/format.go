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

func relTime(t time.Time) string {
	if t.IsZero() {
		return "?"
	}
	d := time.Since(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh ago", int(d/time.Hour))
	case d < 30*24*time.Hour:
		return fmt.Sprintf("%dd ago", int(d/(24*time.Hour)))
	}
	return t.UTC().Format("2006-01-02")
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func bullets(b *strings.Builder, title string, items []string) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(b, "## %s\n", title)
	for _, it := range items {
		fmt.Fprintf(b, "- %s\n", it)
	}
	b.WriteString("\n")
}

func taskLines(ts []smriti.Task) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Render()
	}
	return out
}

const previewChars = 800

func artifacts(b *strings.Builder, arts []smriti.Artifact, full bool) {
	if len(arts) == 0 {
		return
	}
	b.WriteString("## Attached artifacts\n\n")
	for _, a := range arts {
		label := a.Label
		if label == "" {
			label = "Untitled"
		}
		content := a.Content
		if r := []rune(content); !full && len(r) > previewChars {
			content = string(r[:previewChars]) + "\n\n[… truncated, use full_artifacts=true to see all]"
		}
		fmt.Fprintf(b, "### %s\n%s\n\n", label, content)
	}
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

func formatCheckpoint(c *smriti.Checkpoint, full bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", c.Message)
	meta := []string{"`" + short(c.Hash) + "`", relTime(c.CreatedAt), "branch `" + c.BranchName + "`"}
	if a := deref(c.AuthorAgent); a != "" {
		meta = append(meta, "by `"+a+"`")
	}
	if r := deref(c.ProjectRoot); r != "" {
		meta = append(meta, "at `"+r+"`")
	}
	fmt.Fprintf(&b, "%s\nid: `%s`\n\n", strings.Join(meta, " · "), c.ID)
	if c.Objective != "" {
		fmt.Fprintf(&b, "## Objective\n%s\n\n", c.Objective)
	}
	if c.Summary != "" {
		fmt.Fprintf(&b, "## Summary\n%s\n\n", c.Summary)
	}
	bullets(&b, "Decisions", c.Decisions)
	bullets(&b, "Assumptions", c.Assumptions)
	bullets(&b, "Tasks", taskLines(c.Tasks))
	bullets(&b, "Open questions", c.OpenQuestions)
	artifacts(&b, c.Artifacts, full)
	if len(c.Entities) > 0 {
		fmt.Fprintf(&b, "## Entities\n%s\n\n", strings.Join(c.Entities, ", "))
	}
	if len(c.Notes) > 0 {
		b.WriteString("## Notes\n")
		for _, n := range c.Notes {
			kind := ""
			if n.Kind != "" && n.Kind != smriti.NoteKindNote {
				kind = "[" + n.Kind + "] "
			}
			fmt.Fprintf(&b, "- %s%s · %s — %s\n", kind, n.Author, relTime(n.CreatedAt), n.Text)
		}
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

func formatCheckpoints(cps []*smriti.Checkpoint) string {
	if len(cps) == 0 {
		return "No checkpoints yet.\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d checkpoint(s):\n\n", len(cps))
	for _, c := range cps {
		branch := ""
		if c.BranchName != "main" {
			branch = " (branch: " + c.BranchName + ")"
		}
		fmt.Fprintf(&b, "- `%s` (%s) %s · %s%s\n", short(c.Hash), c.ID, c.Message, relTime(c.CreatedAt), branch)
	}
	return b.String()
}

var reviewLabels = map[string]string{
	smriti.IssueContradiction:         "Possible contradiction",
	smriti.IssueHiddenAssumption:      "Hidden assumption",
	smriti.IssueResolvedQuestion:      "Possibly resolved",
	smriti.IssueUnusedEntity:          "Possibly unused entity",
	smriti.IssueSuspiciousInstruction: "Reads like an instruction to a model",
}

func formatReview(r *smriti.Review) string {
	if len(r.Issues) == 0 && len(r.Suggestions) == 0 {
		return "No issues found — reasoning looks consistent.\n"
	}
	var b strings.Builder
	b.WriteString("# Checkpoint review\n\n")
	if len(r.Issues) > 0 {
		fmt.Fprintf(&b, "Found %d issue(s):\n\n", len(r.Issues))
		for i, is := range r.Issues {
			label := reviewLabels[is.Type]
			if label == "" {
				label = is.Type
			}
			fmt.Fprintf(&b, "%d. **%s**\n   %s\n\n", i+1, label, is.Description)
		}
	}
	bullets(&b, "Suggestions", r.Suggestions)
	return strings.TrimRight(b.String(), "\n") + "\n"
}

func formatRestore(sp *smriti.Space, cp *smriti.Checkpoint, full bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "_Continuation brief for checkpoint `%s`_\n\n", short(cp.Hash))
	name := sp.Name
	if name == "" {
		name = "Untitled space"
	}
	fmt.Fprintf(&b, "# %s\n", name)
	if d := strings.TrimSpace(sp.Description); d != "" {
		b.WriteString(d + "\n")
	}
	if r := deref(sp.ProjectRoot); r != "" {
		fmt.Fprintf(&b, "Project root: %s\n", r)
	}
	meta := []string{"Latest checkpoint: `" + short(cp.Hash) + "`"}
	if a := deref(cp.AuthorAgent); a != "" {
		meta = append(meta, "by `"+a+"`")
	}
	meta = append(meta, relTime(cp.CreatedAt))
	fmt.Fprintf(&b, "\n%s\n\n", strings.Join(meta, " · "))
	if cp.Objective != "" {
		fmt.Fprintf(&b, "## Current objective\n%s\n\n", cp.Objective)
	}
	if cp.Summary != "" {
		fmt.Fprintf(&b, "## Where we are\n%s\n\n", cp.Summary)
	}
	bullets(&b, "Decisions", cp.Decisions)
	bullets(&b, "Assumptions we are relying on", cp.Assumptions)
	bullets(&b, "Open questions", cp.OpenQuestions)
	bullets(&b, "In progress", taskLines(cp.Tasks))
	artifacts(&b, cp.Artifacts, full)
	if len(cp.Entities) > 0 {
		fmt.Fprintf(&b, "## Key entities\n%s\n", strings.Join(cp.Entities, ", "))
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
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
