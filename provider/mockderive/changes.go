package mockderive

import (
	"encoding/json"
	"fmt"
	"smriti/intelligence"
	"smriti/internal/textutil"
	"strings"

	"smriti"
)

// Schema names of the drafts that are change lists over a base checkpoint.
const (
	SchemaDraftChanges   = intelligence.SchemaDraftChanges
	SchemaExtractChanges = intelligence.SchemaExtractChanges
)

// Item kinds and statuses as the change-list prompt and answer spell them.
const (
	kindDecision   = "decision"
	kindAssumption = "assumption"
	kindTask       = "task"
	kindQuestion   = "open_question"
	kindEntity     = "entity"

	statusOpen = "open"
	statusDone = "done"
)

// Operations of a change list.
const (
	opAdd       = "add"
	opUpdate    = "update"
	opResolve   = "resolve"
	opRetract   = "retract"
	opSupersede = "supersede"
)

// maxQuoteRunes bounds an operation's quote.
const maxQuoteRunes = 200

// changeData is the change-list prompt's data block.
type changeData struct {
	Base     changeBase   `json:"base"`
	Turns    []changeTurn `json:"turns"`
	Document string       `json:"document"`
}

type changeBase struct {
	CheckpointID *string    `json:"checkpoint_id"`
	Title        string     `json:"title"`
	Objective    string     `json:"objective"`
	Summary      string     `json:"summary"`
	Items        []baseItem `json:"items"`
}

type baseItem struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"`
	Text   string `json:"text"`
	Status string `json:"status"`

	key   string   // NormalizeItem of Text, worked out once
	words []string // matchWords of Text
}

type changeTurn struct {
	Seq     int64  `json:"seq"`
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ChangeOp is one operation of a change-list answer; every key is always
// present, unused ones null.
type ChangeOp struct {
	Op      string  `json:"op"`
	Kind    *string `json:"kind"`
	ID      *string `json:"id"`
	Text    *string `json:"text"`
	By      *string `json:"by"`
	Reason  *string `json:"reason"`
	FromSeq *int64  `json:"from_seq"`
	ToSeq   *int64  `json:"to_seq"`
	Quote   *string `json:"quote"`
}

// changesAnswer is the draft_changes / extract_changes answer.
type changesAnswer struct {
	Title      string             `json:"title"`
	Objective  *string            `json:"objective"`
	Summary    *string            `json:"summary"`
	Operations []ChangeOp         `json:"operations"`
	Artifacts  *[]smriti.Artifact `json:"artifacts,omitempty"`
}

// source is where the lines being read come from: a turn (from/to its seq)
// or the document (no seqs).
type source struct {
	from, to *int64
	where    string // "turn 6", "the document": what an op's "by" names
}

// changer builds a change list over the base's items.
type changer struct {
	items     []baseItem
	ops       []ChangeOp
	opKinds   []string        // the kind each op is about, for the summary
	touched   map[string]bool // base ids that already have an op
	known     map[string]bool // kind + normalised text of base items and adds
	adds      map[string]int  // adds per kind
	objective *string
	summary   []string // lines of a document's Summary section
}

func newChanger(items []baseItem) *changer {
	c := &changer{touched: map[string]bool{}, known: map[string]bool{}, adds: map[string]int{}}
	for _, it := range items {
		if it.ID == "" || it.Kind == "" {
			continue
		}
		if it.Status == "" {
			it.Status = statusOpen
		}
		it.key = smriti.NormalizeItem(it.Text)
		it.words, _ = matchWords(it.Text)
		c.items = append(c.items, it)
		c.known[it.Kind+"\x00"+dedupKey(it.Text)] = true
	}
	return c
}

func parseChangeData(data string) changeData {
	var cd changeData
	// Truncated or foreign data drafts nothing; a field of the wrong type
	// leaves the others read.
	_ = json.Unmarshal([]byte(data), &cd)
	return cd
}

func ptr[T any](v T) *T { return &v }

func quoteOf(line string) *string {
	return ptr(textutil.Truncate(strings.TrimSpace(line), maxQuoteRunes-1))
}

func (c *changer) emit(o ChangeOp, kind string, src source, line string) {
	o.FromSeq, o.ToSeq, o.Quote = src.from, src.to, quoteOf(line)
	c.ops = append(c.ops, o)
	c.opKinds = append(c.opKinds, kind)
}

// add adds an item, or updates the open base item of the same kind that
// says the same subject differently (SameSubject: the TTL of 15 minutes
// becoming 30). Blank, instruction-like and already known texts add
// nothing.
func (c *changer) add(kind, text string, src source, line string) {
	text = textutil.Truncate(strings.TrimSpace(text), smriti.MaxItemChars-1)
	key := kind + "\x00" + dedupKey(text)
	if text == "" || intelligence.IsSuspicious(text) || intelligence.IsSuspicious(line) || c.known[key] {
		return
	}
	c.known[key] = true
	if kind == kindDecision || kind == kindAssumption {
		for _, it := range c.items {
			if it.Kind == kind && it.Status == statusOpen && !c.touched[it.ID] && smriti.SameSubject(it.Text, text) {
				c.touched[it.ID] = true
				c.emit(ChangeOp{Op: opUpdate, ID: ptr(it.ID), Text: ptr(text)}, kind, src, line)
				return
			}
		}
	}
	if c.adds[kind] >= intelligence.MaxDraftItems {
		return
	}
	c.adds[kind]++
	c.emit(ChangeOp{Op: opAdd, Kind: ptr(kind), Text: ptr(text)}, kind, src, line)
}

func (c *changer) match(ref string, accept func(baseItem) bool) (baseItem, bool) {
	return bestMatch(ref, c.items, func(it baseItem) bool { return !c.touched[it.ID] && accept(it) })
}

// resolve marks the open base item of kind that ref names best done (a
// task) or answered (a question).
func (c *changer) resolve(kind, ref, by string, src source, line string) bool {
	it, ok := c.match(ref, func(it baseItem) bool { return it.Kind == kind && it.Status == statusOpen })
	if !ok {
		return false
	}
	c.touched[it.ID] = true
	c.emit(ChangeOp{Op: opResolve, ID: ptr(it.ID), By: ptr(by)}, kind, src, line)
	return true
}

// done resolves the open base task ref names. A task the base already
// holds done needs nothing; any other is added done (a resolve naming the
// task's text and kind instead of an id).
func (c *changer) done(ref string, src source, line string) {
	if c.resolve(kindTask, ref, src.where, src, line) {
		return
	}
	if _, ok := bestMatch(ref, c.items, func(it baseItem) bool {
		return it.Kind == kindTask && (it.Status == statusDone || c.touched[it.ID])
	}); ok {
		return // already done, or resolved earlier in this draft
	}
	// A resolve with a text instead of an id adds the task done.
	text := textutil.Truncate(strings.TrimSpace(ref), smriti.MaxItemChars-1)
	key := kindTask + "\x00" + dedupKey(text)
	if text == "" || intelligence.IsSuspicious(text) || c.known[key] {
		return
	}
	c.known[key] = true
	c.emit(ChangeOp{Op: opResolve, Kind: ptr(kindTask), Text: ptr(upperFirst(text)), By: ptr(src.where)}, kindTask, src, line)
}

// retract retracts the base item ref names best, of any kind.
func (c *changer) retract(ref, reason string, src source, line string) {
	if it, ok := c.match(ref, func(baseItem) bool { return true }); ok {
		c.touched[it.ID] = true
		c.emit(ChangeOp{Op: opRetract, ID: ptr(it.ID), Reason: ptr(reason)}, it.Kind, src, line)
	}
}

// supersede replaces the open base decision or assumption that old names
// best with new: "Instead of Go, Rust" makes "Use Go with cobra" "Use Rust
// with cobra" (old replaced where the base text has it, else new on its
// own). With no such item it adds new as a decision.
func (c *changer) supersede(old, repl string, src source, line string) {
	it, ok := c.match(old, func(it baseItem) bool {
		return (it.Kind == kindDecision || it.Kind == kindAssumption) && it.Status == statusOpen
	})
	if !ok {
		c.add(kindDecision, upperFirst(repl), src, line)
		return
	}
	text := upperFirst(repl)
	if i := indexFold(it.Text, old); i >= 0 {
		text = it.Text[:i] + repl + it.Text[i+len(old):]
	}
	c.touched[it.ID] = true
	c.known[it.Kind+"\x00"+dedupKey(text)] = true
	c.emit(ChangeOp{Op: opSupersede, ID: ptr(it.ID), Text: ptr(text)}, it.Kind, src, line)
}

// indexFold finds sub in s as whole words, ignoring ASCII case.
func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if !strings.EqualFold(s[i:i+len(sub)], sub) {
			continue
		}
		if (i > 0 && isWordRune(lastRune(s[:i]))) || (i+len(sub) < len(s) && isWordRune(firstRune(s[i+len(sub):]))) {
			continue
		}
		return i
	}
	return -1
}

func firstRune(s string) rune {
	for _, r := range s {
		return r
	}
	return 0
}

// Line rules, checked on a whole line before the sentence cues.
var (
	dropCues     = []string{"drop: ", "drop ", "retract: ", "retract "}
	doneCues     = []string{"done: "}
	answeredCues = []string{"answered: "}
	questionCues = []string{"open question: ", "question: "}
	reasonSeps   = []string{" — ", " – ", " -- ", " - ", "; ", " because ", ", since ", ": "}
)

// line applies the rules to one line of text (not a heading). section is the
// field section the line is listed under, if any.
func (c *changer) line(raw, section string, src source) {
	trimmed := strings.TrimSpace(raw)
	if trimmed == "" || intelligence.IsSuspicious(trimmed) {
		return
	}
	if text, done, ok := checkbox(trimmed); ok {
		if done {
			c.done(text, src, trimmed)
		} else {
			c.add(kindTask, text, src, trimmed)
		}
		return
	}
	s, _ := bulletText(trimmed)
	s = strings.TrimSpace(strings.Replace(strings.Replace(s, "**", "", 1), "**", "", 1))
	if rest, ok := cutPrefixFold(s, "instead of "); ok {
		if old, repl, ok := strings.Cut(rest, ","); ok && trimEnd(old) != "" && trimEnd(repl) != "" {
			c.supersede(trimEnd(old), trimEnd(repl), src, trimmed)
			return
		}
	}
	if rest, ok := cutAnyPrefix(s, dropCues); ok {
		ref, reason := rest, s
		for _, sep := range reasonSeps {
			if a, b, ok := strings.Cut(rest, sep); ok && trimEnd(a) != "" && trimEnd(b) != "" {
				ref, reason = a, upperFirst(trimEnd(b))
				break
			}
		}
		c.retract(trimEnd(ref), reason, src, trimmed)
		return
	}
	if rest, ok := cutAnyPrefix(s, doneCues); ok {
		c.done(trimEnd(rest), src, trimmed)
		return
	}
	if rest, ok := cutAnyPrefix(s, answeredCues); ok {
		q, answer, _ := strings.Cut(rest, "?")
		by := trimEnd(answer)
		if by == "" {
			by = src.where
		}
		c.resolve(kindQuestion, q, upperFirst(by), src, trimmed)
		return
	}
	if rest, ok := cutAnyPrefix(s, questionCues); ok {
		c.add(kindQuestion, upperFirst(strings.TrimSpace(rest)), src, trimmed)
		return
	}
	if c.sectionItem(section, s, src, trimmed) {
		return
	}
	for _, sent := range sentences(s) {
		field, text := cueOf(sent, c.objective == nil)
		switch field {
		case "objective":
			c.objective = ptr(text)
		case "decisions":
			c.add(kindDecision, text, src, trimmed)
		case "assumptions":
			c.add(kindAssumption, text, src, trimmed)
		case "tasks":
			c.add(kindTask, text, src, trimmed)
		case "open_questions":
			c.add(kindQuestion, text, src, trimmed)
		}
	}
}

// sectionItem takes a line listed under a field's heading verbatim.
func (c *changer) sectionItem(section, s string, src source, line string) bool {
	switch section {
	case "decisions":
		c.add(kindDecision, s, src, line)
	case "assumptions":
		c.add(kindAssumption, s, src, line)
	case "open_questions":
		c.add(kindQuestion, s, src, line)
	case "tasks":
		if !strings.HasSuffix(s, ":") {
			c.add(kindTask, s, src, line)
		}
	case "entities":
		for _, e := range strings.Split(s, ",") {
			c.add(kindEntity, strings.TrimSpace(e), src, line)
		}
	case "objective":
		if c.objective == nil {
			c.objective = ptr(s)
		}
	case "summary":
		c.summary = append(c.summary, s)
	default:
		return false
	}
	return true
}

func cutAnyPrefix(s string, prefixes []string) (string, bool) {
	for _, p := range prefixes {
		if rest, ok := cutPrefixFold(s, p); ok && strings.TrimSpace(rest) != "" {
			return strings.TrimSpace(rest), true
		}
	}
	return "", false
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return "", false
}

// entities adds the names in a user's sentence (as the classic draft finds
// them) that the base does not hold yet.
func (c *changer) entities(text string, proper map[string]bool, src source) {
	for _, line := range strings.Split(text, "\n") {
		for _, s := range sentences(line) {
			s, _ = bulletText(s)
			if s == "" || intelligence.IsSuspicious(s) {
				continue
			}
			tmp := newDerivedDraft()
			tmp.entities(s, proper)
			for _, e := range tmp.Entities {
				if c.adds[kindEntity] < 20 {
					c.add(kindEntity, e, src, line)
				}
			}
		}
	}
}

// deriveDraftChanges drafts a change list from the turns onto the base.
// Every turn counts except the mock's own "[mock…" replies; names come from
// the user's turns only. A turn's fenced code, file lists and artifact
// sections are skipped (a turn draft has no artifacts).
func deriveDraftChanges(data string) *changesAnswer {
	cd := parseChangeData(data)
	c := newChanger(cd.Base.Items)
	var turns []changeTurn
	var userTexts []string
	for _, t := range cd.Turns {
		if t.Role == smriti.RoleSystem || (t.Role == smriti.RoleAssistant && isEcho(firstLine(t.Content))) {
			continue
		}
		turns = append(turns, t)
		if t.Role == smriti.RoleUser {
			userTexts = append(userTexts, t.Content)
		}
	}
	proper := properNouns(userTexts)
	for _, t := range turns {
		seq := t.Seq
		src := source{from: &seq, to: &seq, where: fmt.Sprintf("turn %d", seq)}
		lines, _ := scanDoc(t.Content)
		for _, l := range lines {
			if !l.heading {
				c.line(l.text, l.section, src)
			}
		}
		if t.Role == smriti.RoleUser {
			c.entities(t.Content, proper, src)
		}
	}
	a := &changesAnswer{Operations: nonNilOps(c.ops), Objective: c.objective}
	first := ""
	if len(userTexts) > 0 {
		first = userTexts[0]
	}
	a.Title = firstWords(withoutLabel(first), 6, intelligence.MaxTitleChars)
	if a.Title == "" {
		a.Title = firstWords(cd.Base.Title, 6, intelligence.MaxTitleChars)
	}
	if a.Title == "" {
		a.Title = "Offline mock draft"
	}
	// Only a first checkpoint takes its objective from the first request: on
	// top of a base, a turn is a change, not a statement of the goal.
	if a.Objective == nil && cd.Base.CheckpointID == nil && strings.TrimSpace(cd.Base.Objective) == "" {
		if o := firstRequest(first); o != "" {
			a.Objective = ptr(o)
		}
	}
	a.Summary = ptr(fmt.Sprintf("Offline mock draft (deterministic rules, no model) from %s %s: %s.",
		plural(len(turns), "turn"), onto(cd.Base), c.describe()))
	return a
}

// deriveExtractChanges extracts a change list from a markdown document onto
// the base: the same rules line by line, headed sections taken verbatim,
// and the document's code blocks, file lists and artifact sections as
// artifacts.
func deriveExtractChanges(data string) *changesAnswer {
	cd := parseChangeData(data)
	c := newChanger(cd.Base.Items)
	src := source{where: "the document"}
	lines, arts := scanDoc(cd.Document)
	title := ""
	var prose []string
	proper := properNouns([]string{cd.Document})
	for _, l := range lines {
		if l.heading {
			if title == "" && !intelligence.IsSuspicious(l.text) {
				title = l.text
			}
			continue
		}
		prose = append(prose, l.text)
		c.line(l.text, l.section, src)
	}
	c.entities(strings.Join(prose, "\n"), proper, src)
	if title == "" {
		title = firstWords(strings.Join(prose, "\n"), 8, intelligence.MaxTitleChars)
	}
	if title == "" {
		title = firstWords(cd.Base.Title, 8, intelligence.MaxTitleChars)
	}
	if title == "" {
		title = "Offline mock extract"
	}
	a := &changesAnswer{Title: textutil.Truncate(title, intelligence.MaxTitleChars-1), Objective: c.objective,
		Operations: nonNilOps(c.ops), Artifacts: &arts}
	if arts == nil {
		a.Artifacts = &[]smriti.Artifact{}
	}
	if len(c.summary) > 0 {
		a.Summary = ptr(strings.Join(c.summary, " "))
	} else {
		a.Summary = ptr(fmt.Sprintf("Offline mock extract (deterministic rules, no model) of a document titled %q %s: %s%s.",
			title, onto(cd.Base), c.describe(), artifactNote(len(*a.Artifacts))))
	}
	return a
}

// withoutLabel drops a leading "Decision:"-style label from text's first
// line, so a title reads "Access token TTL is 30 minutes".
func withoutLabel(text string) string {
	line := firstLine(text)
	if _, rest, ok := colonHead(line); ok && rest != "" && !intelligence.IsSuspicious(line) {
		return upperFirst(rest)
	}
	return line
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

func nonNilOps(ops []ChangeOp) []ChangeOp {
	if ops == nil {
		return []ChangeOp{}
	}
	return ops
}

func onto(b changeBase) string {
	if b.CheckpointID == nil || *b.CheckpointID == "" {
		return "with no base checkpoint"
	}
	return fmt.Sprintf("onto a base of %s", plural(len(b.Items), "item"))
}

// describe counts the operations by what they do: "2 decisions added, 1
// task resolved", or "no changes".
func (c *changer) describe() string {
	type key struct{ op, kind string }
	counts := map[key]int{}
	var order []key
	for i, o := range c.ops {
		k := key{o.Op, c.opKinds[i]}
		if counts[k] == 0 {
			order = append(order, k)
		}
		counts[k]++
	}
	if len(order) == 0 {
		return "no changes"
	}
	past := map[string]string{opAdd: "added", opUpdate: "updated", opResolve: "resolved", opRetract: "retracted", opSupersede: "superseded"}
	parts := make([]string, 0, len(order))
	for _, k := range order {
		parts = append(parts, plural(counts[k], kindNoun(k.kind))+" "+past[k.op])
	}
	return strings.Join(parts, ", ")
}

func artifactNote(n int) string {
	if n == 0 {
		return ""
	}
	return " and " + plural(n, "artifact")
}

func kindNoun(kind string) string {
	switch kind {
	case kindQuestion:
		return "open question"
	case "":
		return "item"
	}
	return kind
}

// plural writes n and the noun in the right number: "1 decision", "2
// decisions", "3 entities".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "y") {
		return fmt.Sprintf("%d %sies", n, noun[:len(noun)-1])
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
