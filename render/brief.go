package render

import (
	"fmt"
	"math"
	"smriti"
	"smriti/coord"
	"smriti/internal/textutil"
	"strings"
	"time"
)

// BriefMode chooses how the brief shows artifacts.
type BriefMode int

const (
	// BriefFull shows every artifact's content (the default).
	BriefFull BriefMode = iota
	// BriefCompact lists artifact labels only, with the command that shows
	// their content; agents start sessions with it to save context.
	BriefCompact
	// BriefPreview cuts each artifact's content to ArtifactPreviewChars.
	BriefPreview
)

// Brief rendering limits.
const (
	ArtifactPreviewChars = 800
	dirtyPathChars       = 40
)

// BriefOptions control RenderBrief.
type BriefOptions struct {
	Mode BriefMode
	// Stats appends a footer measuring what compact mode saved.
	Stats bool
	// Now is the time relative times are computed from.
	Now time.Time
	// Home, when set, is shown as ~ at the start of paths.
	Home string
	// Digest counts what a session can start without, instead of listing
	// it: done tasks, and each branch's decisions that differ from main's
	// (what `smriti prime` shows).
	Digest bool
	// Tokens, when set, counts tokens: the brief then ends with a line
	// "~N tokens", N being the count of the whole text, that line included.
	Tokens func(string) int
	// Budget, when positive, is the most tokens the brief may cost (its
	// token line included), counted by Count (else Tokens): items are shown
	// newest and open first until it is reached, and each kind left out is
	// counted with the command that lists it. Zero lists every item.
	Budget int
	Count  func(string) int
}

// RenderBrief writes the state brief as markdown, the way agents read it at
// the start of a session. Sections are separated by one blank line and
// empty sections are left out. It is pure: the same brief, options and clock
// give the same text.
func RenderBrief(b *coord.StateBrief, o BriefOptions) string {
	count := o.Count
	if count == nil {
		count = o.Tokens
	}
	if o.Budget <= 0 || count == nil || b.Head == nil {
		return Inert(renderBrief(b, o, nil))
	}
	out := renderBrief(b, o, nil)
	if count(out) <= o.Budget {
		return Inert(out)
	}
	none := briefPick{}
	b = fitText(b, o.Budget, func(x *coord.StateBrief) int { return count(renderBrief(x, o, &none)) })
	open, done := splitDone(b.Head.Tasks)
	l := briefLists{b.Head.Decisions, b.Head.Assumptions, b.Head.OpenQuestions, open, done, b.Head.Entities}
	allowance := o.Budget - count(renderBrief(b, o, &none))
	for range 6 {
		p := l.pickWithin(allowance, count)
		out = renderBrief(b, o, &p)
		over := count(out) - o.Budget
		if over <= 0 || p == none {
			return Inert(out)
		}
		allowance -= over + 8
	}
	return Inert(renderBrief(b, o, &none))
}

// renderBrief renders the brief showing pick's newest items of each list
// (every item when pick is nil).
func renderBrief(b *coord.StateBrief, o BriefOptions, pick *briefPick) string {
	r := briefRenderer{o: o}
	var sections []string
	add := func(s string) {
		if s != "" {
			sections = append(sections, s)
		}
	}
	add(r.freshness(b.Freshness))
	add(r.header(b.Space))
	add(r.compaction(b.Compaction))
	add(r.proposals(b.Proposals))
	add(r.remotes(b.Remotes))
	artifactsFull, artifactsCompact := "", ""
	if b.Head == nil {
		add("No checkpoints yet. Create one with `smriti checkpoint create`.\n")
	} else {
		c := b.Head
		add(r.meta(c))
		add(r.mount(b.Mount))
		add(textSection("Current objective", c.Objective))
		add(textSection("Where we are", c.Summary))
		// Done tasks are not in progress: they get their own section.
		open, done := splitDone(c.Tasks)
		decisions, assumptions, questions, shownOpen, shownDone := c.Decisions, c.Assumptions, c.OpenQuestions, open, done
		entities := c.Entities
		if pick != nil {
			decisions, assumptions, questions = newest(decisions, pick.decisions), newest(assumptions, pick.assumptions), newest(questions, pick.questions)
			shownOpen, shownDone = newest(open, pick.open), newest(done, pick.done)
			entities = newest(entities, pick.entities)
		}
		all := allCommand(b.Space)
		add(listSection("Decisions", decisions) + moreLine(len(c.Decisions)-len(decisions), "decisions", all))
		add(listSection("Assumptions we are relying on", assumptions) + moreLine(len(c.Assumptions)-len(assumptions), "assumptions", all))
		add(listSection("Open questions", questions) + moreLine(len(c.OpenQuestions)-len(questions), "open questions", all))
		add(taskSection("In progress", shownOpen) + moreLine(len(open)-len(shownOpen), "open tasks", all))
		if o.Digest && len(done) > 0 {
			add(fmt.Sprintf("## Done\n%d task(s) done (listed by `smriti checkpoint show %s`)\n", len(done), orQ(textutil.ShortHash(c.Hash))))
		} else {
			add(taskSection("Done", shownDone) + moreLine(len(done)-len(shownDone), "done tasks", all))
		}
		artifactsFull = r.artifacts(c, BriefFull)
		artifactsCompact = r.artifacts(c, BriefCompact)
		switch o.Mode {
		case BriefCompact:
			add(artifactsCompact)
		case BriefPreview:
			add(r.artifacts(c, BriefPreview))
		default:
			add(artifactsFull)
		}
		if len(c.Entities) > 0 {
			var list string
			if len(entities) > 0 {
				list = oneLine(strings.Join(entities, ", ")) + "\n"
			}
			add("## Key entities\n" + list + moreLine(len(c.Entities)-len(entities), "entities", all))
		}
	}
	if b.Head == nil {
		add(r.mount(b.Mount))
	}
	add(r.branches(b.Branches, b.MoreBranches))
	add(r.claims(b.Claims, b.MoreClaims))
	add(r.divergence(b.Divergence, b.MoreDivergent))
	out := strings.TrimRight(strings.Join(sections, "\n"), " \t\n") + "\n"
	if o.Stats {
		out += r.stats(b.Head, artifactsFull, artifactsCompact)
	}
	if o.Tokens != nil {
		out, _ = WithTokenLine(out, o.Tokens)
	}
	return out
}

// WithTokenLine appends "\n~N tokens\n" to text, N being what count says of
// the result (the line included): the count is recomputed until it stays
// put, which takes two rounds unless the line's own digits change it.
func WithTokenLine(text string, count func(string) int) (string, int) {
	line := func(n int) string { return fmt.Sprintf("\n~%d tokens\n", n) }
	n := count(text)
	for range 4 {
		m := count(text + line(n))
		if m == n {
			break
		}
		n = m
	}
	return text + line(n), n
}

type briefRenderer struct{ o BriefOptions }

func (r briefRenderer) rel(t time.Time) string { return RelativeTime(t, r.o.Now) }

// path shows a path with the home directory as ~.
func (r briefRenderer) path(p string) string {
	h := strings.TrimRight(r.o.Home, "/")
	if h == "" {
		return p
	}
	if p == h {
		return "~"
	}
	if strings.HasPrefix(p, h+"/") {
		return "~" + p[len(h):]
	}
	return p
}

func (r briefRenderer) freshness(f *coord.Freshness) string {
	if f == nil {
		return ""
	}
	if !f.Changed {
		return fmt.Sprintf("## State: unchanged since `%s`\n", textutil.ShortHash(f.SinceHash))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## State: changed since `%s`\n\n", textutil.ShortHash(f.SinceHash))
	fmt.Fprintf(&b, "%d new checkpoint(s) on main:\n", f.NewCount)
	for _, c := range f.New {
		fmt.Fprintf(&b, "- `%s` · `%s` · %s — %s\n", textutil.ShortHash(c.Hash), agentOr(c.AuthorAgent), r.rel(c.CreatedAt), oneLine(c.Message))
	}
	if more := f.NewCount - len(f.New); more > 0 {
		fmt.Fprintf(&b, "  ... and %d more\n", more)
	}
	b.WriteString("\nReview the current state below before continuing.\n")
	return b.String()
}

func (r briefRenderer) header(sp *smriti.Space) string {
	name, desc, root := "Untitled space", "", ""
	if sp != nil {
		if strings.TrimSpace(sp.Name) != "" {
			name = oneLine(sp.Name)
		}
		desc = block(strings.TrimRight(sp.Description, " \t\n"))
		if sp.ProjectRoot != nil && *sp.ProjectRoot != "" {
			root = *sp.ProjectRoot
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", name)
	if desc != "" {
		b.WriteString(desc + "\n")
	}
	if root != "" {
		fmt.Fprintf(&b, "Project root: %s\n", r.path(root))
	}
	return b.String()
}

func (r briefRenderer) meta(c *smriti.Checkpoint) string {
	parts := []string{fmt.Sprintf("Latest checkpoint: `%s`", orQ(textutil.ShortHash(c.Hash)))}
	if c.AuthorAgent != nil && *c.AuthorAgent != "" {
		parts = append(parts, fmt.Sprintf("by `%s`", authorName(*c.AuthorAgent)))
	}
	if !c.CreatedAt.IsZero() {
		parts = append(parts, r.rel(c.CreatedAt))
	}
	if c.ProjectRoot != nil && *c.ProjectRoot != "" {
		parts = append(parts, fmt.Sprintf("at `%s`", r.path(*c.ProjectRoot)))
	}
	return strings.Join(parts, " · ") + "\n" + codeLine(smriti.MetaOf(c.Metadata).Git)
}

// codeLine is where the code stood when a checkpoint was written, in the
// fewest words an agent needs to compare it with its work tree: "Code: git
// 0123456789ab on main, dirty" ("" when the checkpoint recorded none).
// `checkpoint show` has the diff hash and `smriti restore` the way back.
func codeLine(g *smriti.GitState) string {
	if g == nil {
		return ""
	}
	if g.Validate() != nil {
		return "Code: " + g.Line() + "\n"
	}
	s := "Code: git " + g.Commit[:12]
	if g.Branch != "" {
		s += " on " + g.Branch
	} else {
		s += " (detached)"
	}
	if g.Dirty {
		s += ", dirty"
	}
	return s + "\n"
}

func (r briefRenderer) mount(m *coord.MountedCheckpoint) string {
	if m == nil {
		return ""
	}
	msg := ""
	if m.Message != "" {
		msg = " — " + oneLine(m.Message)
	}
	return fmt.Sprintf("Mounted in this session: `%s`%s\n", orQ(textutil.ShortHash(m.Hash)), msg)
}

func textSection(title, text string) string {
	if strings.TrimSpace(text) == "" {
		return ""
	}
	return "## " + title + "\n" + block(text) + "\n"
}

func listSection(title string, items []string) string {
	if len(items) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## " + title + "\n")
	for _, it := range items {
		b.WriteString("- " + oneLine(it) + "\n")
	}
	return b.String()
}

// taskSection lists tasks under a heading ("" when there are none).
func taskSection(title string, tasks []smriti.Task) string {
	if len(tasks) == 0 {
		return ""
	}
	return "## " + title + "\n" + taskBullets(tasks)
}

// taskBullets renders tasks as bullets with their annotations; the status
// only when it is neither open nor done (the headings say those).
func taskBullets(tasks []smriti.Task) string {
	var b strings.Builder
	for _, t := range tasks {
		b.WriteString("- " + oneLine(t.Text))
		if t.IntentHint != "" {
			fmt.Fprintf(&b, " [%s]", oneLine(t.IntentHint))
		}
		if t.ID != "" {
			fmt.Fprintf(&b, " (id: %s)", t.ID)
		}
		if t.Status != "" && t.Status != smriti.TaskOpen && t.Status != smriti.TaskDone {
			fmt.Fprintf(&b, " (%s)", t.Status)
		}
		if len(t.BlockedBy) > 0 {
			fmt.Fprintf(&b, " → blocked by: %s", t.BlockedBy)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func artifactLabel(a smriti.Artifact) string {
	if strings.TrimSpace(a.Label) == "" {
		return "Untitled"
	}
	return a.Label
}

func (r briefRenderer) artifacts(c *smriti.Checkpoint, mode BriefMode) string {
	if len(c.Artifacts) == 0 {
		return ""
	}
	var b strings.Builder
	if mode == BriefCompact {
		b.WriteString("## Attached artifacts (compact — content omitted)\n")
		for _, a := range c.Artifacts {
			b.WriteString("- " + oneLine(artifactLabel(a)) + "\n")
		}
		id := "<checkpoint-id>"
		if c.ID != smriti.NilID {
			id = c.ID.String()
		}
		fmt.Fprintf(&b, "\nTo inspect artifact content: `smriti checkpoint show %s --full-artifacts`\n", id)
		return b.String()
	}
	b.WriteString("## Attached artifacts\n")
	for _, a := range c.Artifacts {
		content := a.Content
		if mode == BriefPreview {
			if rs := []rune(content); len(rs) > ArtifactPreviewChars {
				content = string(rs[:ArtifactPreviewChars]) + "\n\n[… truncated, use --full-artifacts to see all]"
			}
		}
		fmt.Fprintf(&b, "### %s\n%s\n\n", oneLine(artifactLabel(a)), content)
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

func (r briefRenderer) branches(bs []coord.BranchHead, more int) string {
	if len(bs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Active branches\n")
	for _, h := range bs {
		msg := h.Message
		if msg == "" {
			msg = "(no message)"
		}
		fmt.Fprintf(&b, "- `%s` · `%s` · `%s` · %s — %s\n", h.Branch, textutil.ShortHash(h.Hash), agentOr(h.AuthorAgent), r.rel(h.CreatedAt), oneLine(msg))
	}
	if more > 0 {
		fmt.Fprintf(&b, "  ... and %d more active branch(es)\n", more)
	}
	return b.String()
}

func (r briefRenderer) claims(cs []coord.ActiveClaim, more int) string {
	if len(cs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Active work\n")
	for _, c := range cs {
		agent := c.Agent
		if agent == "" {
			agent = "unknown"
		}
		fmt.Fprintf(&b, "- `%s` [%s] on `%s` from `%s` · %s — %s", agent, c.Intent, c.BranchName, orQ(textutil.ShortHash(c.BaseHash)), r.rel(c.ClaimedAt), oneLine(c.Scope))
		if c.TaskID != nil && *c.TaskID != "" {
			fmt.Fprintf(&b, " (task: %s)", *c.TaskID)
		}
		b.WriteString("\n")
		switch {
		case c.Worktree != nil:
			fmt.Fprintf(&b, "   · worktree: %s\n", r.path(c.Worktree.Path))
			if p := c.Probe; p != nil {
				fmt.Fprintf(&b, "   · branch: %s · %s · ahead %d · behind %d · last commit `%s` %s\n",
					c.Worktree.BranchName, dirtySummary(p), p.Ahead, p.Behind, p.LastCommitSHA, r.probeRel(p))
			} else {
				b.WriteString("   · branch: " + c.Worktree.BranchName + " · (probe failed)\n")
			}
		case c.WorktreeID != nil:
			b.WriteString("   · worktree: (closed or removed)\n")
		}
	}
	if more > 0 {
		fmt.Fprintf(&b, "  ... and %d more claim(s)\n", more)
	}
	return b.String()
}

func (r briefRenderer) probeRel(p *coord.WorktreeProbe) string {
	if !p.LastCommitAt.IsZero() {
		return r.rel(p.LastCommitAt)
	}
	return p.LastCommitRelative
}

// dirtySummary is "0 dirty", "<n> dirty" or "<n> dirty (a, b, c, +k more)".
func dirtySummary(p *coord.WorktreeProbe) string {
	if p.DirtyFiles <= 0 {
		return "0 dirty"
	}
	if len(p.DirtyPaths) == 0 {
		return fmt.Sprintf("%d dirty", p.DirtyFiles)
	}
	paths := make([]string, 0, len(p.DirtyPaths)+1)
	for _, s := range p.DirtyPaths {
		if rs := []rune(s); len(rs) > dirtyPathChars {
			s = string(rs[:dirtyPathChars-1]) + "…"
		}
		paths = append(paths, s)
	}
	if rest := p.DirtyFiles - len(p.DirtyPaths); rest > 0 {
		paths = append(paths, fmt.Sprintf("+%d more", rest))
	}
	return fmt.Sprintf("%d dirty (%s)", p.DirtyFiles, strings.Join(paths, ", "))
}

func (r briefRenderer) divergence(pairs []coord.DivergencePair, more int) string {
	if len(pairs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Divergence signal\nDecisions on `main` and one or more active branches disagree. Run `smriti compare` for the full diff.\n")
	if r.o.Digest {
		b.WriteString("\n")
		for _, p := range pairs {
			fmt.Fprintf(&b, "- `%s` (`%s`): %d decision(s) only on `main`, %d only on the branch\n",
				p.Branch, textutil.ShortHash(p.BranchHash), len(p.MainOnly), len(p.BranchOnly))
		}
		if more > 0 {
			fmt.Fprintf(&b, "  ... and %d more divergent branch(es)\n", more)
		}
		return b.String()
	}
	for _, p := range pairs {
		fmt.Fprintf(&b, "\n### main ↔ `%s` (`%s`)\n", p.Branch, textutil.ShortHash(p.BranchHash))
		if len(p.MainOnly) > 0 {
			b.WriteString("Only on `main`:\n")
			for _, d := range p.MainOnly {
				b.WriteString("- " + d + "\n")
			}
		}
		if len(p.BranchOnly) > 0 {
			fmt.Fprintf(&b, "Only on `%s`:\n", p.Branch)
			for _, d := range p.BranchOnly {
				b.WriteString("- " + d + "\n")
			}
		}
	}
	if more > 0 {
		fmt.Fprintf(&b, "\n... and %d more divergent branch(es)\n", more)
	}
	return b.String()
}

func (r briefRenderer) stats(head *smriti.Checkpoint, full, compact string) string {
	const prefix = "\n---\ncompact stats: "
	if r.o.Mode != BriefCompact {
		return prefix + "no artifact savings to report (--compact not used)\n"
	}
	n := 0
	if head != nil {
		n = len(head.Artifacts)
	}
	if n == 0 {
		return prefix + "no artifact savings to report (0 artifacts)\n"
	}
	f, c := len([]rune(full)), len([]rune(compact))
	saved := f - c
	if saved <= 0 {
		return prefix + "no artifact savings to report (artifacts too small)\n"
	}
	pct := int(math.Round(float64(saved) * 100 / float64(f)))
	return fmt.Sprintf("%s%d artifact(s) omitted · %d chars saved · %d%% smaller artifact section (full: %d chars → compact: %d chars)\n",
		prefix, n, saved, pct, f, c)
}

// RelativeTime says how long before now t was (textutil.RelativeTime).
func RelativeTime(t, now time.Time) string { return textutil.RelativeTime(t, now) }

func orQ(s string) string {
	if s == "" {
		return "?"
	}
	return s
}

func agentOr(a *string) string {
	if a == nil || *a == "" {
		return "unknown"
	}
	return authorName(*a)
}

// authorName is how an author is shown: the local user's id, which merges
// recorded before they named it "local", is shown by that name.
func authorName(a string) string {
	if a == smriti.LocalUserID.String() {
		return smriti.LocalUsername
	}
	return oneLine(a)
}
