package render

import (
	"fmt"
	"strings"

	"smriti"
	"smriti/coderef"
	"smriti/internal/textutil"
)

// Trust at use: state handed to a model or an agent says first which items
// cite code that changed since they were written (the check of their refs
// against the reader's work tree), and marks them where they are listed.
// Nothing is hidden or rewritten: the items stay in their sections.

// CheckHeading is the heading the stale items are listed under.
const CheckHeading = "## Check before relying on"

// RefCheckSection lists the items whose refs are not fresh, the worst news
// first, each with the reason ("" when every ref is fresh).
func RefCheckSection(checks []coderef.ItemCheck) string {
	stale := coderef.Stale(checks)
	if len(stale) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(CheckHeading + "\n")
	b.WriteString("The code these items cite is not as it was when they were written (`smriti check` shows each ref with its diff stat):\n")
	for i := range stale {
		c := &stale[i]
		fmt.Fprintf(&b, "- [%s] %s %s: %s — %s\n", c.Status, kindName(c.Kind), c.Name(), oneLine(textutil.Truncate(c.Text, 200)), oneLine(c.Reasons()))
	}
	return Inert(b.String())
}

// WithRefChecks puts the check section in front of a brief or a restore
// text (the text unchanged when every ref is fresh).
func WithRefChecks(text string, checks []coderef.ItemCheck) string {
	s := RefCheckSection(checks)
	if s == "" {
		return text
	}
	return s + "\n" + text
}

// MarkStale is c with the text of each item whose refs are not fresh
// followed by an inline marker such as "[check: changed]", so the item
// reads as unverified where it is listed. c itself is not modified.
func MarkStale(c *smriti.Checkpoint, checks []coderef.ItemCheck) *smriti.Checkpoint {
	stale := coderef.Stale(checks)
	if c == nil || len(stale) == 0 {
		return c
	}
	cp := *c
	cp.Decisions, cp.Assumptions = append([]string(nil), c.Decisions...), append([]string(nil), c.Assumptions...)
	cp.OpenQuestions, cp.Entities = append([]string(nil), c.OpenQuestions...), append([]string(nil), c.Entities...)
	cp.Tasks = append([]smriti.Task(nil), c.Tasks...)
	for _, s := range stale {
		mark := " [check: " + string(s.Status) + "]"
		var list []string
		switch s.Kind {
		case smriti.KindDecision:
			list = cp.Decisions
		case smriti.KindAssumption:
			list = cp.Assumptions
		case smriti.KindQuestion:
			list = cp.OpenQuestions
		case smriti.KindEntity:
			list = cp.Entities
		case smriti.KindTask:
			for i := range cp.Tasks {
				if cp.Tasks[i].Text == s.Text {
					cp.Tasks[i].Text += mark
					break
				}
			}
		}
		for i := range list {
			if list[i] == s.Text {
				list[i] += mark
				break
			}
		}
	}
	return &cp
}

func kindName(k smriti.ItemKind) string {
	if k == smriti.KindQuestion {
		return "question"
	}
	return string(k)
}

// RenderCheck is `smriti check`'s listing: every item that cites code,
// the worst news first, each ref with its status, where the text is now,
// the commits since and the diff stat.
func RenderCheck(root string, checks []coderef.ItemCheck) string {
	var b strings.Builder
	stale := len(coderef.Stale(checks))
	refs := 0
	for _, c := range checks {
		refs += len(c.Findings)
	}
	fmt.Fprintf(&b, "# Code refs checked against %s\n", root)
	if len(checks) == 0 {
		b.WriteString("No item cites code.\n")
		return Inert(b.String())
	}
	fmt.Fprintf(&b, "%d item(s) cite code in %d ref(s); %d item(s) to check before relying on them.\n", len(checks), refs, stale)
	for i := range checks {
		c := &checks[i]
		fmt.Fprintf(&b, "\n## [%s] %s %s\n%s\n", c.Status, kindName(c.Kind), c.Name(), oneLine(textutil.Truncate(c.Text, 300)))
		for j := range c.Findings {
			f := &c.Findings[j]
			line := fmt.Sprintf("- %s %s", f.Status, f.Ref.String())
			if r := f.Reason(); r != "" {
				line = "- " + string(f.Status) + ": " + r
			}
			b.WriteString(oneLine(line) + "\n")
		}
	}
	return Inert(b.String())
}
