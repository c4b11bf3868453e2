package render

import (
	"fmt"
	"smriti"
	"smriti/coord"
	"smriti/internal/textutil"
)

// Brief budgets, in o200k tokens: what `smriti prime` and the compact brief
// may cost an agent at any number of items.
const (
	PrimeBudget        = 2000
	CompactBriefBudget = 3000
	// briefFloorPerKind is how many of each kind's newest items are taken
	// before the rest is filled in priority order, so a flood of one kind
	// never hides every item of the others.
	briefFloorPerKind = 5
)

// briefLists are the item lists of a brief, in the order they are shown.
type briefLists struct {
	decisions, assumptions, questions []string
	open, done                        []smriti.Task
	entities                          []string
}

// briefPick is how many of each list's newest items a budgeted brief shows.
type briefPick struct{ decisions, assumptions, questions, open, done, entities int }

// kinds lists the budgeted kinds in priority order: open work and open
// questions before what is settled, names last; within a kind, newest
// (last) first. An entity costs what it adds to the comma-separated line.
func (l briefLists) kinds(p *briefPick) []struct {
	n      int
	count  *int
	bullet func(i int) string
} {
	str := func(xs []string) func(int) string { return func(i int) string { return "- " + xs[i] + "\n" } }
	task := func(ts []smriti.Task) func(int) string {
		return func(i int) string { return taskBullets(ts[i : i+1]) }
	}
	return []struct {
		n      int
		count  *int
		bullet func(i int) string
	}{
		{len(l.open), &p.open, task(l.open)},
		{len(l.questions), &p.questions, str(l.questions)},
		{len(l.decisions), &p.decisions, str(l.decisions)},
		{len(l.assumptions), &p.assumptions, str(l.assumptions)},
		{len(l.done), &p.done, task(l.done)},
		{len(l.entities), &p.entities, func(i int) string { return l.entities[i] + ", " }},
	}
}

// pickWithin chooses, within allowance tokens, how many of each list's
// newest items to show: first up to briefFloorPerKind of each kind, then
// the rest by priority.
func (l briefLists) pickWithin(allowance int, count func(string) int) briefPick {
	var p briefPick
	ks := l.kinds(&p)
	used := 0
	take := func(k int, upTo int) bool {
		kd := ks[k]
		for *kd.count < min(upTo, kd.n) {
			c := count(kd.bullet(kd.n - 1 - *kd.count))
			if used+c > allowance {
				return false
			}
			used += c
			*kd.count++
		}
		return true
	}
	for k := range ks {
		if !take(k, briefFloorPerKind) {
			return p
		}
	}
	for k := range ks {
		if !take(k, ks[k].n) {
			return p
		}
	}
	return p
}

// newest keeps the last n of xs, in their order.
func newest[T any](xs []T, n int) []T { return xs[len(xs)-n:] }

// moreLine counts what a budgeted brief left out of a kind, with the
// command that lists it ("" when nothing was left out).
func moreLine(left int, kind, cmd string) string {
	if left <= 0 {
		return ""
	}
	return fmt.Sprintf("… and %d more %s: `%s`\n", left, kind, cmd)
}

// allCommand is the command that lists every item of the brief's space.
func allCommand(space *smriti.Space) string { return space.AllItemsCommand() }

// briefTextRunes is how much of a long objective, summary or description
// a budgeted brief keeps when the brief without any item would
// already cost more than half its budget; the items need the rest.
const briefTextRunes = 600

// briefLabelRunes is how much of a title, an author or an artifact label
// such a brief keeps.
const briefLabelRunes = 120

// fitText returns b, or when its brief without items (cost) is over half of
// budget, a copy whose long text fields are cut to briefTextRunes with a
// pointer to the command that shows them whole. The stored state is not
// touched.
func fitText(b *coord.StateBrief, budget int, cost func(*coord.StateBrief) int) *coord.StateBrief {
	if cost(b) <= budget/2 {
		return b
	}
	head := *b.Head
	cut := func(s string) string {
		if textutil.RuneLen(s) <= briefTextRunes {
			return s
		}
		return textutil.Truncate(s, briefTextRunes) + fmt.Sprintf(" (cut; `smriti checkpoint show %s` has it all)", orQ(textutil.ShortHash(head.Hash)))
	}
	head.Objective, head.Summary = cut(head.Objective), cut(head.Summary)
	short := func(s string) string { return textutil.Truncate(s, briefLabelRunes) }
	head.Message = short(head.Message)
	if head.AuthorAgent != nil {
		a := short(*head.AuthorAgent)
		head.AuthorAgent = &a
	}
	head.Artifacts = append([]smriti.Artifact(nil), head.Artifacts...)
	for i := range head.Artifacts {
		head.Artifacts[i].Label = short(head.Artifacts[i].Label)
	}
	out := *b
	out.Head = &head
	if b.Space != nil {
		sp := *b.Space
		sp.Name, sp.Description = short(sp.Name), cut(sp.Description)
		out.Space = &sp
	}
	if b.Mount != nil {
		m := *b.Mount
		m.Message = cut(m.Message)
		out.Mount = &m
	}
	return &out
}

// JSChars counts characters as JavaScript does (UTF-16 code units): the
// unit agent hosts measure the context a hook gives them in.
func JSChars(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// RenderBriefWithin is RenderBrief kept within maxChars characters (as
// JSChars counts them) when it can be: a brief too long is rendered again
// with a token budget shrunk in proportion (the brief then says what it
// left out and how to list it), at most a few times. It needs a counter
// (o.Count or o.Tokens); without one, or with maxChars zero, it is
// RenderBrief. A brief that still does not fit is returned as rendered:
// the caller decides how to cut it.
func RenderBriefWithin(b *coord.StateBrief, o BriefOptions, maxChars int) string {
	count := o.Count
	if count == nil {
		count = o.Tokens
	}
	md := RenderBrief(b, o)
	if maxChars <= 0 || count == nil {
		return md
	}
	for try := 0; try < 4 && JSChars(md) > maxChars; try++ {
		next := count(md) * maxChars / JSChars(md) * (9 - try) / 10
		if o.Budget > 0 && next >= o.Budget {
			next = o.Budget * (9 - try) / 10
		}
		if next < 200 {
			break
		}
		o.Budget = next
		md = RenderBrief(b, o)
	}
	return md
}
