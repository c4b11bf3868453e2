package smriti

import (
	"fmt"
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
	out := Composed{Changes: []ItemDelta{}, Warnings: []string{}}
	if baseContent != nil {
		out.Content = *baseContent
	}
	if title != nil {
		out.Content.Message = *title
	}
	if objective != nil {
		out.Content.Objective = *objective
	}
	if summary != nil {
		out.Content.Summary = *summary
	}
	ids := newItemIDs()
	items := make([]Item, 0, len(baseItems)+len(ops))
	index := map[string]int{}
	for _, it := range baseItems {
		ids.take(it.ID)
		if !it.Live() {
			continue
		}
		it.Change = nil
		index[it.ID] = len(items)
		items = append(items, it)
	}
	var tombstones []Item
	warn := func(op DraftOp, format string, args ...any) {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%s operation", Truncate(op.Op, 20))+
			opTarget(op)+" ignored: "+fmt.Sprintf(format, args...))
	}
	liveKey := func(kind ItemKind, text string) bool {
		k := ItemKey(text)
		for i := range items {
			if items[i].Kind == kind && items[i].Live() && ItemKey(items[i].Text) == k {
				return true
			}
		}
		return false
	}
	for _, op := range ops {
		src := ItemSource{SessionID: session, FromSeq: op.FromSeq, ToSeq: op.ToSeq, Quote: capQuote(op.Quote)}
		text := strings.TrimSpace(op.Text)
		change := func(name string) *ItemChange {
			return &ItemChange{Op: name, Source: src, By: optString(op.By), Reason: optString(op.Reason)}
		}
		target := func() (*Item, bool) {
			i, ok := index[strings.TrimSpace(op.ID)]
			if !ok || !items[i].Live() {
				warn(op, "the base has no live item %q", Truncate(op.ID, 30))
				return nil, false
			}
			return &items[i], true
		}
		switch strings.ToLower(strings.TrimSpace(op.Op)) {
		case OpAdd:
			kind, err := ParseItemKind(op.Kind)
			if err != nil {
				warn(op, "%s", err.Error())
				continue
			}
			if text == "" {
				warn(op, "it has no text")
				continue
			}
			if liveKey(kind, text) {
				continue
			}
			it := Item{ID: ids.mint(kind, text), Kind: kind, Text: text, Status: ItemOpen, Change: change(OpAdd),
				Origin: ItemOrigin{SessionID: session, FromSeq: op.FromSeq, ToSeq: op.ToSeq, Quote: src.Quote}}
			if kind == KindTask {
				it.Task = &Task{Text: text, Structured: true}
				if op.Task != nil {
					t := *op.Task
					t.Text = text
					it.Task = &t
					if taskDone(t.Status) {
						it.Status = ItemDone
					}
				}
			}
			index[it.ID] = len(items)
			items = append(items, it)
			out.Changes = append(out.Changes, ItemDelta{Op: OpAdd, Kind: kind, ID: it.ID, After: optString(text), Source: src})
		case OpUpdate:
			it, ok := target()
			if !ok {
				continue
			}
			if text == "" {
				warn(op, "it has no text")
				continue
			}
			if text == it.Text {
				continue
			}
			before := it.Text
			it.Text = text
			if it.Task != nil {
				t := *it.Task
				t.Text = text
				it.Task = &t
			}
			it.Change = mergeChange(it.Change, change(OpUpdate), before)
			out.Changes = append(out.Changes, ItemDelta{Op: OpUpdate, Kind: it.Kind, ID: it.ID, Before: &before, After: optString(text), Source: src})
		case OpResolve:
			if strings.TrimSpace(op.ID) == "" && text != "" {
				// A resolve naming a text, not an id: the live task of
				// that text is done, or a new task is added done.
				if kind, err := ParseItemKind(op.Kind); err == nil && kind == KindTask {
					found := false
					for i := range items {
						if items[i].Kind == KindTask && items[i].Live() && ItemKey(items[i].Text) == ItemKey(text) {
							op.ID, found = items[i].ID, true
							break
						}
					}
					if !found {
						it := Item{ID: ids.mint(kind, text), Kind: kind, Text: text, Status: ItemDone, Change: change(OpAdd),
							Task:   &Task{Text: text, Status: ItemDone, Structured: true},
							Origin: ItemOrigin{SessionID: session, FromSeq: op.FromSeq, ToSeq: op.ToSeq, Quote: src.Quote}}
						index[it.ID] = len(items)
						items = append(items, it)
						out.Changes = append(out.Changes, ItemDelta{Op: OpAdd, Kind: kind, ID: it.ID, After: optString(text), By: optString(op.By), Source: src})
						continue
					}
				}
			}
			it, ok := target()
			if !ok {
				continue
			}
			switch it.Kind {
			case KindTask:
				if it.Status == ItemDone {
					continue
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
				warn(op, "only tasks and open questions can be resolved, not a %s", it.Kind)
				continue
			}
			it.Change = mergeChange(it.Change, change(OpResolve), it.Text)
			out.Changes = append(out.Changes, ItemDelta{Op: OpResolve, Kind: it.Kind, ID: it.ID, Before: optString(it.Text), By: optString(op.By), Source: src})
		case OpRetract:
			it, ok := target()
			if !ok {
				continue
			}
			it.Status = ItemRetracted
			it.Change = mergeChange(it.Change, change(OpRetract), it.Text)
			out.Changes = append(out.Changes, ItemDelta{Op: OpRetract, Kind: it.Kind, ID: it.ID, Before: optString(it.Text), Reason: optString(op.Reason), Source: src})
		case OpSupersede:
			it, ok := target()
			if !ok {
				continue
			}
			if text == "" {
				warn(op, "it has no text")
				continue
			}
			old := *it
			it.Status = ItemSuperseded
			it.Change = mergeChange(it.Change, change(OpSupersede), it.Text)
			nu := Item{ID: ids.mint(old.Kind, text), Kind: old.Kind, Text: text, Status: ItemOpen, Supersedes: []string{old.ID},
				Change: change(OpSupersede), Origin: ItemOrigin{SessionID: session, FromSeq: op.FromSeq, ToSeq: op.ToSeq, Quote: src.Quote}}
			if old.Kind == KindTask {
				nu.Task = &Task{Text: text}
			}
			// The new item takes the old one's place in its list.
			pos := index[old.ID]
			tomb := items[pos]
			tombstones = append(tombstones, tomb)
			items[pos] = nu
			delete(index, old.ID)
			index[nu.ID] = pos
			out.Changes = append(out.Changes, ItemDelta{Op: OpSupersede, Kind: old.Kind, ID: nu.ID, Before: optString(old.Text), After: optString(text), Source: src})
		default:
			warn(op, "the operation must be add, update, resolve, retract or supersede")
		}
	}
	// Live items first, in kind order then base order (new ones after the
	// carried ones), then the tombstones.
	var all []Item
	for _, k := range itemKinds {
		for _, it := range items {
			if it.Kind == k && it.Live() {
				all = append(all, it)
			}
		}
	}
	for _, it := range items {
		if !it.Live() {
			all = append(all, it)
		}
	}
	all = append(all, tombstones...)
	out.Items = all
	setContentLists(&out.Content, all)
	return out
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
		return fmt.Sprintf(" on %q", Truncate(op.ID, 30))
	}
	if op.Text != "" {
		return fmt.Sprintf(" %q", Truncate(op.Text, 40))
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
	s = Truncate(s, MaxQuoteChars)
	return &s
}
