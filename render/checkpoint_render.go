package render

import (
	"fmt"
	"smriti"
	"smriti/intelligence"
	"smriti/internal/textutil"
	"strings"
	"time"
)

// CheckpointRenderOptions control the markdown views of checkpoints.
type CheckpointRenderOptions struct {
	// Now is the time relative times are computed from.
	Now time.Time
	// Home, when set, is shown as ~ at the start of paths.
	Home string
	// FullArtifacts shows every artifact's content; otherwise each is cut
	// to ArtifactPreviewChars.
	FullArtifacts bool
	// FullHint names, in the truncation notice, how the reader asks for
	// the full content (a flag for the CLI, a tool argument for MCP).
	FullHint string
}

// RenderCheckpoint writes one checkpoint as markdown: title, a meta line,
// its content sections (empty ones left out), artifacts and notes. It is
// pure: the same checkpoint, options and clock give the same text.
func RenderCheckpoint(c *smriti.Checkpoint, o CheckpointRenderOptions) string {
	r := briefRenderer{o: BriefOptions{Now: o.Now, Home: o.Home}}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", oneLine(c.Message))
	meta := []string{"`" + textutil.ShortHash(c.Hash) + "`", r.rel(c.CreatedAt), "branch `" + c.BranchName + "`"}
	if c.AuthorAgent != nil && *c.AuthorAgent != "" {
		meta = append(meta, "by `"+authorName(*c.AuthorAgent)+"`")
	}
	if c.ProjectRoot != nil && *c.ProjectRoot != "" {
		meta = append(meta, "at `"+r.path(*c.ProjectRoot)+"`")
	}
	fmt.Fprintf(&b, "%s\nid: `%s`\n", strings.Join(meta, " · "), c.ID)
	if g := smriti.MetaOf(c.Metadata).Git; g != nil {
		fmt.Fprintf(&b, "git: %s\n", g.Line())
	}
	b.WriteString("\n")
	if c.Objective != "" {
		fmt.Fprintf(&b, "## Objective\n%s\n\n", block(c.Objective))
	}
	if c.Summary != "" {
		fmt.Fprintf(&b, "## Summary\n%s\n\n", block(c.Summary))
	}
	b.WriteString(markdownBullets("Decisions", c.Decisions))
	b.WriteString(markdownBullets("Assumptions", c.Assumptions))
	b.WriteString(markdownBullets("Tasks", taskLines(c.Tasks)))
	b.WriteString(markdownBullets("Open questions", c.OpenQuestions))
	b.WriteString(renderArtifacts(c.Artifacts, o))
	if len(c.Entities) > 0 {
		fmt.Fprintf(&b, "## Entities\n%s\n\n", oneLine(strings.Join(c.Entities, ", ")))
	}
	if len(c.Notes) > 0 {
		b.WriteString("## Notes\n")
		for _, n := range c.Notes {
			kind := ""
			if n.Kind != "" && n.Kind != smriti.NoteKindNote {
				kind = "[" + n.Kind + "] "
			}
			fmt.Fprintf(&b, "- %s%s · %s — %s\n", kind, oneLine(n.Author), r.rel(n.CreatedAt), oneLine(n.Text))
		}
	}
	return Inert(strings.TrimRight(b.String(), "\n") + "\n")
}

// RenderCheckpointList writes a checkpoint list, one line each, naming the
// branch of those not on main.
func RenderCheckpointList(cps []*smriti.Checkpoint, now time.Time) string {
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
		fmt.Fprintf(&b, "- `%s` (%s) %s · %s%s\n", textutil.ShortHash(c.Hash), c.ID, oneLine(c.Message), RelativeTime(c.CreatedAt, now), branch)
	}
	return Inert(b.String())
}

// reviewLabels are the headings review issues are shown under; an unknown
// type is shown as itself.
var reviewLabels = map[string]string{
	intelligence.IssueContradiction:         "Possible contradiction",
	intelligence.IssueHiddenAssumption:      "Hidden assumption",
	intelligence.IssueResolvedQuestion:      "Possibly resolved",
	intelligence.IssueUnusedEntity:          "Possibly unused entity",
	intelligence.IssueSuspiciousInstruction: "Reads like an instruction to a model",
}

// RenderReview writes a checkpoint review: numbered issues, then
// suggestions, or one line saying nothing was found.
func RenderReview(rv *intelligence.Review) string {
	if len(rv.Issues) == 0 && len(rv.Suggestions) == 0 {
		return "No issues found — reasoning looks consistent.\n"
	}
	var b strings.Builder
	b.WriteString("# Checkpoint review\n\n")
	if len(rv.Issues) > 0 {
		fmt.Fprintf(&b, "Found %d issue(s):\n\n", len(rv.Issues))
		for i, is := range rv.Issues {
			label := reviewLabels[is.Type]
			if label == "" {
				label = is.Type
			}
			fmt.Fprintf(&b, "%d. **%s**\n   %s\n\n", i+1, label, oneLine(is.Description))
		}
	}
	b.WriteString(markdownBullets("Suggestions", rv.Suggestions))
	return Inert(strings.TrimRight(b.String(), "\n") + "\n")
}

// renderArtifacts writes the "Attached artifacts" section, each artifact
// in full or cut to ArtifactPreviewChars with a notice naming o.FullHint;
// nothing when there are none.
func renderArtifacts(arts []smriti.Artifact, o CheckpointRenderOptions) string {
	if len(arts) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Attached artifacts\n\n")
	for _, a := range arts {
		label := a.Label
		if label == "" {
			label = "Untitled"
		}
		content := a.Content
		if rs := []rune(content); !o.FullArtifacts && len(rs) > ArtifactPreviewChars {
			content = string(rs[:ArtifactPreviewChars]) + "\n\n[… truncated, use " + o.FullHint + " to see all]"
		}
		fmt.Fprintf(&b, "### %s\n%s\n\n", oneLine(label), content)
	}
	return b.String()
}

// markdownBullets writes a "## title" section of "- item" lines followed by
// a blank line; nothing when items is empty.
func markdownBullets(title string, items []string) string {
	if len(items) == 0 {
		return ""
	}
	return listSection(title, items) + "\n"
}

// taskLines renders each task as one line (Task.render).
func taskLines(ts []smriti.Task) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = oneLine(t.Display())
	}
	return out
}

// RenderRestore writes the continuation brief of one checkpoint: the space it
// belongs to, then what an agent resuming from it needs (objective, where
// things stand, decisions, assumptions, open questions, tasks, artifacts,
// entities), without branches or claims.
func RenderRestore(sp *smriti.Space, c *smriti.Checkpoint, o CheckpointRenderOptions) string {
	r := briefRenderer{o: BriefOptions{Now: o.Now, Home: o.Home}}
	var b strings.Builder
	fmt.Fprintf(&b, "_Continuation brief for checkpoint `%s`_\n\n", textutil.ShortHash(c.Hash))
	name := sp.Name
	if name == "" {
		name = "Untitled space"
	}
	fmt.Fprintf(&b, "# %s\n", oneLine(name))
	if d := strings.TrimSpace(sp.Description); d != "" {
		b.WriteString(block(d) + "\n")
	}
	if sp.ProjectRoot != nil && *sp.ProjectRoot != "" {
		fmt.Fprintf(&b, "Project root: %s\n", r.path(*sp.ProjectRoot))
	}
	// The checkpoint restored, which need not be its branch's newest.
	label := "Restored checkpoint: `" + textutil.ShortHash(c.Hash) + "`"
	if c.BranchName != "" {
		label += " on `" + c.BranchName + "`"
	}
	meta := []string{label}
	if c.AuthorAgent != nil && *c.AuthorAgent != "" {
		meta = append(meta, "by `"+authorName(*c.AuthorAgent)+"`")
	}
	meta = append(meta, r.rel(c.CreatedAt))
	fmt.Fprintf(&b, "\n%s\n\n", strings.Join(meta, " · "))
	if g := smriti.MetaOf(c.Metadata).Git; g != nil {
		if cmd := g.RestoreCommand(); cmd != "" {
			fmt.Fprintf(&b, "## Code\nWritten at git %s. To get the code there:\n    %s\n\n", g.Line(), cmd)
		} else {
			fmt.Fprintf(&b, "## Code\nThe checkpoint's git state is an %s, so no command to get the code back is offered.\n\n", g.Line())
		}
	}
	if c.Objective != "" {
		fmt.Fprintf(&b, "## Current objective\n%s\n\n", block(c.Objective))
	}
	if c.Summary != "" {
		fmt.Fprintf(&b, "## Where we are\n%s\n\n", block(c.Summary))
	}
	b.WriteString(markdownBullets("Decisions", c.Decisions))
	b.WriteString(markdownBullets("Assumptions we are relying on", c.Assumptions))
	b.WriteString(markdownBullets("Open questions", c.OpenQuestions))
	open, done := splitDone(c.Tasks)
	b.WriteString(markdownBullets("In progress", taskLines(open)))
	b.WriteString(markdownBullets("Done", taskLines(done)))
	b.WriteString(renderArtifacts(c.Artifacts, o))
	if len(c.Entities) > 0 {
		fmt.Fprintf(&b, "## Key entities\n%s\n", oneLine(strings.Join(c.Entities, ", ")))
	}
	return Inert(strings.TrimRight(b.String(), "\n") + "\n")
}

// RenderCompare writes the comparison of checkpoints a and b: their common
// ancestor (nil: unrelated histories; named by its short hash, as every
// checkpoint is, when ancestorHash is known), summary and objective side by
// side or marked identical, then the shared and one-sided items of each
// list in d.
func RenderCompare(a, b *smriti.Checkpoint, d smriti.CheckpointDiff, ancestor *smriti.ID, ancestorHash string) string {
	a7, b7 := textutil.ShortHash(a.Hash), textutil.ShortHash(b.Hash)
	var s strings.Builder
	fmt.Fprintf(&s, "# Compare `%s` ↔ `%s`\n\n", a7, b7)
	if ancestor != nil && ancestorHash != "" {
		fmt.Fprintf(&s, "Common ancestor: `%s` (%s)\n\n", textutil.ShortHash(ancestorHash), ancestor)
	} else if ancestor != nil {
		fmt.Fprintf(&s, "Common ancestor: `%s`\n\n", ancestor)
	} else {
		s.WriteString("Common ancestor: _none — unrelated histories_\n\n")
	}
	fmt.Fprintf(&s, "- A: `%s` on `%s` — %s\n- B: `%s` on `%s` — %s\n\n", a7, a.BranchName, oneLine(a.Message), b7, b.BranchName, oneLine(b.Message))
	for _, sc := range []struct{ title, x, y string }{{"Summary", d.SummaryA, d.SummaryB}, {"Objective", d.ObjectiveA, d.ObjectiveB}} {
		switch {
		case sc.x != sc.y:
			fmt.Fprintf(&s, "## %s (A)\n%s\n\n## %s (B)\n%s\n\n", sc.title, block(sc.x), sc.title, block(sc.y))
		case sc.x != "":
			fmt.Fprintf(&s, "## %s (identical)\n%s\n\n", sc.title, block(sc.x))
		}
	}
	for _, l := range []struct {
		title string
		diff  smriti.ListDiff
	}{{"Decisions", d.Decisions}, {"Assumptions", d.Assumptions}, {"Tasks", d.Tasks}, {"Open questions", d.OpenQuestions}} {
		if len(l.diff.Shared)+len(l.diff.OnlyA)+len(l.diff.OnlyB) == 0 {
			continue
		}
		fmt.Fprintf(&s, "## %s\n\n", l.title)
		for _, g := range []struct {
			heading string
			items   []string
		}{{"Shared", l.diff.Shared}, {"Only in A (`" + a7 + "`)", l.diff.OnlyA}, {"Only in B (`" + b7 + "`)", l.diff.OnlyB}} {
			if len(g.items) > 0 {
				s.WriteString("#" + listSection(g.heading, g.items) + "\n")
			}
		}
	}
	return Inert(strings.TrimRight(s.String(), "\n") + "\n")
}

// splitDone separates the done tasks from the others, keeping their order.
func splitDone(ts []smriti.Task) (open, done []smriti.Task) {
	for _, t := range ts {
		if t.Status == smriti.TaskDone {
			done = append(done, t)
		} else {
			open = append(open, t)
		}
	}
	return open, done
}
