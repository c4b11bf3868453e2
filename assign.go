package smriti

import (
	"slices"
	"strings"
)

// kindKey is what items are matched by: kind and normalised text.
type kindKey struct {
	kind ItemKind
	key  string
}

// AssignItems gives a checkpoint's content its items: content is the new
// state (authoritative for texts and order), parent the parent's items (all
// of them; tombstones are ignored), and hints the items a client or a draft
// proposed, with ids (may be nil). Each content item takes, in order of
// preference, the id of a hint of the same kind and normalised text, then
// that of an unmatched parent item of the same kind and normalised text,
// else a new id. Parent items that the content no longer has become
// tombstones: superseded when a new item names them in Supersedes,
// answered (a question) or retracted when a hint says so, else retracted.
// origin is the Origin of items introduced here.
func AssignItems(content *Content, parent, hints []Item, origin ItemOrigin) []Item {
	a := newAssigner(parent, hints)
	news := itemsOfContent(content)
	out := make([]Item, 0, len(news)+4)
	var minted []int // indexes in out of items added with no id proposed
	for _, n := range news {
		it, isMinted := a.assign(n, origin)
		if isMinted {
			minted = append(minted, len(out))
		}
		out = append(out, it)
	}
	editsOfText(out, minted, parent, a.claimed, a.superseded, a.hintByID)
	out = append(out, a.tombstones()...)
	return appendTurnedDown(out, hints)
}

// assigner matches a content's items to ids: the parent's live items and
// the hints, by id and by kind and normalised text, and which ids are
// taken.
type assigner struct {
	parent      []Item
	ids         *itemIDs
	parentLive  map[string]*Item
	parentByKey map[kindKey][]*Item
	hintByKey   map[kindKey][]*Item
	hintByID    map[string]*Item
	claimed     map[string]bool
	superseded  map[string]string // parent id → id of the item superseding it
}

func newAssigner(parent, hints []Item) *assigner {
	a := &assigner{parent: parent, ids: newItemIDs(), parentLive: make(map[string]*Item, len(parent)),
		parentByKey: make(map[kindKey][]*Item, len(parent)), hintByKey: make(map[kindKey][]*Item, len(hints)),
		hintByID: make(map[string]*Item, len(hints)), claimed: make(map[string]bool, len(parent)+len(hints)),
		superseded: map[string]string{}}
	for i := range parent {
		p := &parent[i]
		if !p.Live() {
			continue
		}
		a.parentLive[p.ID] = p
		k := kindKey{p.Kind, ItemKey(p.Text)}
		a.parentByKey[k] = append(a.parentByKey[k], p)
	}
	for i := range hints {
		h := &hints[i]
		if _, seen := a.hintByID[h.ID]; h.ID != "" && !seen {
			a.hintByID[h.ID] = h
		}
		if !h.Live() {
			continue
		}
		k := kindKey{h.Kind, ItemKey(h.Text)}
		a.hintByKey[k] = append(a.hintByKey[k], h)
	}
	// Reserve every parent id, so a new item never takes the id of one that
	// is being retracted here.
	for id := range a.parentLive {
		a.ids.used[id] = true
	}
	return a
}

// pop takes the first item of m[k] whose id is not claimed yet.
func (a *assigner) pop(m map[kindKey][]*Item, k kindKey) *Item {
	for len(m[k]) > 0 {
		it := m[k][0]
		m[k] = m[k][1:]
		if it.ID == "" || !a.claimed[it.ID] {
			return it
		}
	}
	return nil
}

// assign gives one content item its id, origin and change, and says
// whether it is an addition whose id was minted here.
func (a *assigner) assign(n Item, origin ItemOrigin) (Item, bool) {
	k := kindKey{n.Kind, ItemKey(n.Text)}
	it := n
	var p *Item
	fromHint := false
	h := a.pop(a.hintByKey, k)
	if h != nil && len(h.Refs) > 0 {
		// a write's refs replace the item's; without any, the item
		// keeps the refs it had
		it.Refs = slices.Clone(h.Refs)
	}
	if h != nil && ValidItemID(h.ID) && h.ID[:1] == n.Kind.idPrefix() && !a.claimed[h.ID] {
		fromHint = true
		it.ID, it.Supersedes, it.Origin = h.ID, append([]string(nil), h.Supersedes...), h.Origin
		if h.Change != nil {
			c := *h.Change
			it.Change = &c
		}
		p = a.parentLive[h.ID]
	}
	if it.ID == "" {
		if p = a.pop(a.parentByKey, k); p != nil {
			it.ID, it.Origin, it.Supersedes = p.ID, p.Origin, nil
		}
	}
	if it.ID == "" {
		it.ID = a.ids.mint(n.Kind, n.Text)
	}
	a.claimed[it.ID] = true
	if p != nil && len(it.Refs) == 0 {
		it.Refs = p.Refs
	}
	if p != nil {
		describeEdit(&it, p)
	} else {
		a.describeNew(&it, origin)
	}
	if n.Kind == KindTask && it.Task != nil {
		t := *it.Task
		it.Task = &t
	}
	return it, it.Change != nil && it.Change.Op == OpAdd && !fromHint && len(it.Supersedes) == 0
}

// describeEdit sets the change of an item that keeps a parent item's id.
func describeEdit(it, p *Item) {
	it.Origin = p.Origin
	switch {
	case sameItemValue(it, p) && (it.Change == nil || it.Change.Merge == nil):
		it.Change = nil
	case it.Change != nil && it.Change.Op != "" && it.Change.Op != OpAdd:
		// the hint's own description of the change
	case it.StatusOrOpen() != p.StatusOrOpen() && strings.TrimSpace(it.Text) == strings.TrimSpace(p.Text):
		it.Change = &ItemChange{Op: OpResolve}
	default:
		it.Change = &ItemChange{Op: OpUpdate}
	}
	if it.Change != nil && it.Change.Before == nil && it.Text != p.Text {
		before := p.Text
		it.Change.Before = &before
	}
}

// describeNew sets the origin and change of an item the parent did not
// have: an addition, or a supersession of the parent items it names.
func (a *assigner) describeNew(it *Item, origin ItemOrigin) {
	if it.Origin.CheckpointID == nil {
		o := origin
		if it.Origin.FromSeq != nil || it.Origin.Quote != nil || it.Origin.Model != nil {
			o.FromSeq, o.ToSeq, o.Quote = it.Origin.FromSeq, it.Origin.ToSeq, it.Origin.Quote
			if it.Origin.Model != nil {
				o.Model = it.Origin.Model
			}
			if it.Origin.SessionID != nil {
				o.SessionID = it.Origin.SessionID
			}
		}
		it.Origin = o
	}
	if len(it.Supersedes) > 0 {
		if it.Change == nil || it.Change.Op == "" || it.Change.Op == OpAdd {
			it.Change = &ItemChange{Op: OpSupersede}
		}
		for _, s := range it.Supersedes {
			a.superseded[s] = it.ID
		}
	} else if it.Change == nil || it.Change.Op == "" {
		it.Change = &ItemChange{Op: OpAdd}
	}
}

// tombstones are the parent's live items the content dropped, in the
// parent's order: superseded, answered or retracted.
func (a *assigner) tombstones() []Item {
	var out []Item
	for i := range a.parent {
		p := a.parent[i]
		if !p.Live() || a.claimed[p.ID] {
			continue
		}
		t := Item{ID: p.ID, Kind: p.Kind, Text: p.Text, Status: ItemRetracted, Task: p.Task, Origin: p.Origin,
			Change: &ItemChange{Op: OpRetract}, Refs: p.Refs}
		if _, ok := a.superseded[p.ID]; ok {
			t.Status, t.Change.Op = ItemSuperseded, OpSupersede
		}
		if h := a.hintByID[p.ID]; h != nil && !h.Live() {
			t.Status = h.Status
			if h.Change != nil {
				c := *h.Change
				t.Change = &c
			}
			switch t.Status {
			case ItemAnswered:
				t.Change.Op = OpResolve
			case ItemSuperseded:
				t.Change.Op = OpSupersede
			default:
				t.Status, t.Change.Op = ItemRetracted, OpRetract
			}
		}
		out = append(out, t)
	}
	return out
}

// appendTurnedDown records, for a merge that removed an item the other
// side had edited, the edit it turned down, even where its first parent
// had removed the item already.
func appendTurnedDown(out, hints []Item) []Item {
	written := make(map[string]bool, len(out))
	for i := range out {
		written[out[i].ID] = true
	}
	for i := range hints {
		h := hints[i]
		if h.Live() || h.Change == nil || h.Change.Merge == nil || written[h.ID] || !ValidItemID(h.ID) || h.ID[:1] != h.Kind.idPrefix() {
			continue
		}
		c := *h.Change
		h.Change, h.Status = &c, ItemRetracted
		c.Op = OpRetract
		written[h.ID] = true
		out = append(out, h)
	}
	return out
}

// editsOfText turns an added item (out[i] for i in added) and a dropped
// parent item that are near the same into an update of the parent item:
// the added item takes its id and origin and the parent item is claimed,
// so it gets no tombstone. Parent items a hint ended or an added item
// supersedes stay ended.
func editsOfText(out []Item, added []int, parent []Item, claimed map[string]bool, superseded map[string]string, hints map[string]*Item) {
	if len(added) == 0 {
		return
	}
	var dropped []*Item
	for i := range parent {
		p := &parent[i]
		if !p.Live() || claimed[p.ID] {
			continue
		}
		if _, ok := superseded[p.ID]; ok {
			continue
		}
		if h := hints[p.ID]; h != nil && !h.Live() {
			continue
		}
		dropped = append(dropped, p)
	}
	if len(dropped) == 0 {
		return
	}
	adds := make([]*Item, len(added))
	for i, ix := range added {
		adds[i] = &out[ix]
	}
	for ai, ri := range pairNearSame(dropped, adds) {
		it, p := adds[ai], dropped[ri]
		delete(claimed, it.ID)
		it.ID, it.Origin, claimed[p.ID] = p.ID, p.Origin, true
		if len(it.Refs) == 0 {
			it.Refs = p.Refs
		}
		change := &ItemChange{Op: OpUpdate}
		if it.Change != nil {
			change.Source = it.Change.Source
		}
		if it.StatusOrOpen() != p.StatusOrOpen() && it.Kind == KindTask && it.Status == ItemDone && ItemKey(it.Text) == ItemKey(p.Text) {
			change.Op = OpResolve
		}
		if it.Text != p.Text {
			before := p.Text
			change.Before = &before
		}
		it.Change = change
	}
}
