package smriti

import (
	"fmt"
	"smriti/internal/textutil"
	"strings"
)

// A draft is a change list over its base: the model answers operations on
// the base's items, and ComposeDraft applies them deterministically, so
// everything the operations do not touch is carried as it was.

// DraftOp is one operation a draft proposes: add (Kind, Text), update (ID,
// Text), resolve (ID, By: a task done, a question answered), retract (ID,
// Reason) or supersede (ID, Text: a new item replacing it). FromSeq, ToSeq
// and Quote say where in the turns (or the document) it came from.
type DraftOp struct {
	Op      string  `json:"op"`
	Kind    string  `json:"kind,omitempty"`
	ID      string  `json:"id,omitempty"`
	Text    string  `json:"text,omitempty"`
	By      string  `json:"by,omitempty"`
	Reason  string  `json:"reason,omitempty"`
	FromSeq *int64  `json:"from_seq,omitempty"`
	ToSeq   *int64  `json:"to_seq,omitempty"`
	Quote   *string `json:"quote,omitempty"`
	// Task holds a new task's annotations (an add of kind task; a reply in
	// the classic shape has them).
	Task *Task `json:"-"`
}

// ItemDelta is one change of a composed draft, for people to review: the
// item, its text before and after (nil where there is none) and its source.
type ItemDelta struct {
	Op     string     `json:"op"`
	Kind   ItemKind   `json:"kind"`
	ID     string     `json:"id"`
	Before *string    `json:"before"`
	After  *string    `json:"after"`
	By     *string    `json:"by"`
	Reason *string    `json:"reason"`
	Source ItemSource `json:"-"`
}

// Composed is a draft applied to its base: the proposed full content, its
// items (tombstones included) and the changes, in the order applied.
type Composed struct {
	Content  Content
	Items    []Item
	Changes  []ItemDelta
	Warnings []string
}

// ComposeDraft applies ops to the base (its content and items; both may be
// empty for a first checkpoint). The result's scalars are the base's unless
// title, objective or summary are given (nil keeps the base's). session is
// the session the ops' turn ranges refer to (nil for a document).
//
// Rules: an add whose normalised text equals a live item of the same kind is
// dropped (the state has it already); an op naming an id the base does not
// have live, an unknown op or kind, or an op missing its text is refused
// with a warning and changes nothing; resolve applies to tasks (done) and
// open questions (answered) only. Ops apply in order, so a later op sees
// what an earlier one did.
func ComposeDraft(baseContent *Content, baseItems []Item, ops []DraftOp, title, objective, summary *string, session *ID) Composed {
	c := newComposer(baseItems, len(ops), session)
	if baseContent != nil {
		c.out.Content = *baseContent
	}
	if title != nil {
		c.out.Content.Message = *title
	}
	if objective != nil {
		c.out.Content.Objective = *objective
	}
	if summary != nil {
		c.out.Content.Summary = *summary
	}
	for _, op := range ops {
		apply, ok := draftOps[strings.ToLower(strings.TrimSpace(op.Op))]
		if !ok {
			c.warn(op, "the operation must be add, update, resolve, retract or supersede")
			continue
		}
		apply(c, op, c.stepOf(op))
	}
	c.out.Items = c.ordered()
	setContentLists(&c.out.Content, c.out.Items)
	return c.out
}

// draftOps is what each operation does to the draft being composed.
var draftOps = map[string]func(c *composer, op DraftOp, st draftStep){
	OpAdd:       (*composer).add,
	OpUpdate:    (*composer).update,
	OpResolve:   (*composer).resolve,
	OpRetract:   (*composer).retract,
	OpSupersede: (*composer).supersede,
}

// composer is a draft being applied to its base: the live items in base
// order (new ones after), by id, the ids taken, and the tombstones of
// superseded items.
type composer struct {
	out        Composed
	ids        *itemIDs
	items      []Item
	index      map[string]int
	tombstones []Item
	session    *ID
}

// draftStep is what every operation derives from its DraftOp: where it came
// from and its trimmed text.
type draftStep struct {
	src  ItemSource
	text string
}

func newComposer(baseItems []Item, nops int, session *ID) *composer {
	c := &composer{out: Composed{Changes: []ItemDelta{}, Warnings: []string{}}, ids: newItemIDs(),
		items: make([]Item, 0, len(baseItems)+nops), index: map[string]int{}, session: session}
	for _, it := range baseItems {
		c.ids.take(it.ID)
		if !it.Live() {
			continue
		}
		it.Change = nil
		c.index[it.ID] = len(c.items)
		c.items = append(c.items, it)
	}
	return c
}

func (c *composer) stepOf(op DraftOp) draftStep {
	return draftStep{src: ItemSource{SessionID: c.session, FromSeq: op.FromSeq, ToSeq: op.ToSeq, Quote: capQuote(op.Quote)},
		text: strings.TrimSpace(op.Text)}
}

func (c *composer) warn(op DraftOp, format string, args ...any) {
	c.out.Warnings = append(c.out.Warnings, fmt.Sprintf("%s operation", textutil.Truncate(op.Op, 20))+
		opTarget(op)+" ignored: "+fmt.Sprintf(format, args...))
}

func (c *composer) change(name string, op DraftOp, st draftStep) *ItemChange {
	return &ItemChange{Op: name, Source: st.src, By: optString(op.By), Reason: optString(op.Reason)}
}

func (c *composer) origin(op DraftOp, st draftStep) ItemOrigin {
	return ItemOrigin{SessionID: c.session, FromSeq: op.FromSeq, ToSeq: op.ToSeq, Quote: st.src.Quote}
}

// live finds the live item of kind whose normalised text is text's.
func (c *composer) live(kind ItemKind, text string) (int, bool) {
	k := ItemKey(text)
	for i := range c.items {
		if c.items[i].Kind == kind && c.items[i].Live() && ItemKey(c.items[i].Text) == k {
			return i, true
		}
	}
	return 0, false
}

// target is the live base item op names, or a warning.
func (c *composer) target(op DraftOp) (*Item, bool) {
	i, ok := c.index[strings.TrimSpace(op.ID)]
	if !ok || !c.items[i].Live() {
		c.warn(op, "the base has no live item %q", textutil.Truncate(op.ID, 30))
		return nil, false
	}
	return &c.items[i], true
}

// textTarget is target for an operation that needs a text (update,
// supersede): the item, or a warning when it is missing or op has no text.
func (c *composer) textTarget(op DraftOp, st draftStep) (*Item, bool) {
	it, ok := c.target(op)
	if ok && st.text == "" {
		c.warn(op, "it has no text")
		return nil, false
	}
	return it, ok
}

func (c *composer) append(it Item, d ItemDelta) {
	c.index[it.ID] = len(c.items)
	c.items = append(c.items, it)
	c.out.Changes = append(c.out.Changes, d)
}

func (c *composer) add(op DraftOp, st draftStep) {
	kind, err := ParseItemKind(op.Kind)
	if err != nil {
		c.warn(op, "%s", err.Error())
		return
	}
	if st.text == "" {
		c.warn(op, "it has no text")
		return
	}
	if _, ok := c.live(kind, st.text); ok {
		return
	}
	it := Item{ID: c.ids.mint(kind, st.text), Kind: kind, Text: st.text, Status: ItemOpen, Change: c.change(OpAdd, op, st),
		Origin: c.origin(op, st)}
	if kind == KindTask {
		it.Task = &Task{Text: st.text, Structured: true}
		if op.Task != nil {
			t := *op.Task
			t.Text = st.text
			it.Task = &t
			if taskDone(t.Status) {
				it.Status = ItemDone
			}
		}
	}
	c.append(it, ItemDelta{Op: OpAdd, Kind: kind, ID: it.ID, After: optString(st.text), Source: st.src})
}

func (c *composer) update(op DraftOp, st draftStep) {
	it, ok := c.textTarget(op, st)
	if !ok {
		return
	}
	if st.text == it.Text {
		return
	}
	before := it.Text
	it.Text = st.text
	if it.Task != nil {
		t := *it.Task
		t.Text = st.text
		it.Task = &t
	}
	it.Change = mergeChange(it.Change, c.change(OpUpdate, op, st), before)
	c.out.Changes = append(c.out.Changes, ItemDelta{Op: OpUpdate, Kind: it.Kind, ID: it.ID, Before: &before, After: optString(st.text), Source: st.src})
}

func (c *composer) resolve(op DraftOp, st draftStep) {
	if strings.TrimSpace(op.ID) == "" && st.text != "" {
		// A resolve naming a text, not an id: the live task of that text
		// is done, or a new task is added done.
		if kind, err := ParseItemKind(op.Kind); err == nil && kind == KindTask {
			i, found := c.live(KindTask, st.text)
			if !found {
				it := Item{ID: c.ids.mint(kind, st.text), Kind: kind, Text: st.text, Status: ItemDone, Change: c.change(OpAdd, op, st),
					Task: &Task{Text: st.text, Status: ItemDone, Structured: true}, Origin: c.origin(op, st)}
				c.append(it, ItemDelta{Op: OpAdd, Kind: kind, ID: it.ID, After: optString(st.text), By: optString(op.By), Source: st.src})
				return
			}
			op.ID = c.items[i].ID
		}
	}
	it, ok := c.target(op)
	if !ok {
		return
	}
	switch it.Kind {
	case KindTask:
		if it.Status == ItemDone {
			return
		}
		it.Status = ItemDone
		t := Task{Text: it.Text}
		if it.Task != nil {
			t = *it.Task
		}
		t.Status, t.Structured = ItemDone, true
		it.Task = &t
	case KindQuestion:
		it.Status = ItemAnswered
	default:
		c.warn(op, "only tasks and open questions can be resolved, not a %s", it.Kind)
		return
	}
	it.Change = mergeChange(it.Change, c.change(OpResolve, op, st), it.Text)
	c.out.Changes = append(c.out.Changes, ItemDelta{Op: OpResolve, Kind: it.Kind, ID: it.ID, Before: optString(it.Text), By: optString(op.By), Source: st.src})
}

func (c *composer) retract(op DraftOp, st draftStep) {
	it, ok := c.target(op)
	if !ok {
		return
	}
	it.Status = ItemRetracted
	it.Change = mergeChange(it.Change, c.change(OpRetract, op, st), it.Text)
	c.out.Changes = append(c.out.Changes, ItemDelta{Op: OpRetract, Kind: it.Kind, ID: it.ID, Before: optString(it.Text), Reason: optString(op.Reason), Source: st.src})
}

func (c *composer) supersede(op DraftOp, st draftStep) {
	it, ok := c.textTarget(op, st)
	if !ok {
		return
	}
	old := *it
	it.Status = ItemSuperseded
	it.Change = mergeChange(it.Change, c.change(OpSupersede, op, st), it.Text)
	nu := Item{ID: c.ids.mint(old.Kind, st.text), Kind: old.Kind, Text: st.text, Status: ItemOpen, Supersedes: []string{old.ID},
		Change: c.change(OpSupersede, op, st), Origin: c.origin(op, st)}
	if old.Kind == KindTask {
		nu.Task = &Task{Text: st.text}
	}
	// The new item takes the old one's place in its list.
	pos := c.index[old.ID]
	c.tombstones = append(c.tombstones, c.items[pos])
	c.items[pos] = nu
	delete(c.index, old.ID)
	c.index[nu.ID] = pos
	c.out.Changes = append(c.out.Changes, ItemDelta{Op: OpSupersede, Kind: old.Kind, ID: nu.ID, Before: optString(old.Text), After: optString(st.text), Source: st.src})
}

// ordered is the composed items: live ones first, in kind order then base
// order (new ones after the carried ones), then the tombstones.
func (c *composer) ordered() []Item {
	var all []Item
	for _, k := range itemKinds {
		for _, it := range c.items {
			if it.Kind == k && it.Live() {
				all = append(all, it)
			}
		}
	}
	for _, it := range c.items {
		if !it.Live() {
			all = append(all, it)
		}
	}
	return append(all, c.tombstones...)
}

// mergeChange combines a second change to the same item in one draft: the
// later operation names it, the earliest before-text stays.
func mergeChange(prev, next *ItemChange, before string) *ItemChange {
	if prev != nil && prev.Before != nil {
		next.Before = prev.Before
	} else if prev != nil && prev.Op == OpAdd {
		next.Op = OpAdd
	} else if next.Before == nil {
		next.Before = &before
	}
	return next
}

func opTarget(op DraftOp) string {
	if op.ID != "" {
		return fmt.Sprintf(" on %q", textutil.Truncate(op.ID, 30))
	}
	if op.Text != "" {
		return fmt.Sprintf(" %q", textutil.Truncate(op.Text, 40))
	}
	return ""
}

func optString(s string) *string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	return &s
}

func capQuote(q *string) *string {
	if q == nil {
		return nil
	}
	s := strings.TrimSpace(*q)
	if s == "" {
		return nil
	}
	s = textutil.Truncate(s, MaxQuoteChars)
	return &s
}
