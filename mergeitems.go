package smriti

import (
	"strings"
)

// adoptNearCopies is a side's items where each base item the side dropped
// and replaced with a near copy (an added item of the same kind that is
// nearSameItem) is that item, edited: the copy takes the base item's id
// and the side's tombstone of it is dropped. So two sides that each
// rewrote one base item as remove + add conflict on it, and one side's
// rewrite against the other's retraction is removed_vs_edited, as if the
// writers had sent ids. side is returned as it is when nothing pairs.
func adoptNearCopies(base, side []Item) []Item {
	baseLive := map[string]bool{}
	for i := range base {
		if base[i].Live() {
			baseLive[base[i].ID] = true
		}
	}
	sideLive := map[string]bool{}
	var added []*Item
	var addedAt []int
	for i := range side {
		it := &side[i]
		if !it.Live() {
			continue
		}
		sideLive[it.ID] = true
		if !baseLive[it.ID] {
			added, addedAt = append(added, it), append(addedAt, i)
		}
	}
	var dropped []*Item
	for i := range base {
		if b := &base[i]; b.Live() && !sideLive[b.ID] {
			dropped = append(dropped, b)
		}
	}
	pairs := pairNearSame(dropped, added)
	if len(pairs) == 0 {
		return side
	}
	out := make([]Item, 0, len(side))
	adopted := map[string]bool{}
	renamed := map[int]*Item{}
	for ai, ri := range pairs {
		renamed[addedAt[ai]] = dropped[ri]
		adopted[dropped[ri].ID] = true
	}
	for i := range side {
		it := side[i]
		if b := renamed[i]; b != nil {
			it.ID, it.Origin = b.ID, b.Origin
			before := b.Text
			c := ItemChange{Op: OpUpdate, Before: &before}
			if it.Change != nil {
				c.Source = it.Change.Source
			}
			it.Change = &c
		} else if !it.Live() && adopted[it.ID] {
			continue
		}
		out = append(out, it)
	}
	return out
}

// sideItems is a side's items, or its content's lists with ids from text.
func sideItems(s *MergeSide) []Item {
	if s.Items != nil {
		return s.Items
	}
	return AssignItems(&s.Content, nil, nil, ItemOrigin{})
}

type itemIndex struct {
	order []string
	live  map[string]*Item
	dead  map[string]*Item
}

// indexItems indexes a side's items by id; of live items with the same kind
// and normalised text only the first counts (a side's duplicates collapse).
func indexItems(items []Item) itemIndex {
	ix := itemIndex{live: make(map[string]*Item, len(items)), dead: map[string]*Item{}, order: make([]string, 0, len(items))}
	seen := make(map[kindKey]bool, len(items))
	for i := range items {
		it := &items[i]
		if !it.Live() {
			ix.dead[it.ID] = it
			continue
		}
		k := kindKey{it.Kind, ItemKey(it.Text)}
		if _, dup := ix.live[it.ID]; dup || seen[k] {
			continue
		}
		seen[k] = true
		ix.live[it.ID] = it
		ix.order = append(ix.order, it.ID)
	}
	return ix
}

// equivalentItems reports whether two versions of an item differ at most in
// wording that normalises away.
func equivalentItems(a, b *Item) bool {
	if sameItemValue(a, b) {
		return true
	}
	x, y := *a, *b
	x.Text, y.Text = ItemKey(a.Text), ItemKey(b.Text)
	return sameItemValue(&x, &y)
}

func renderItem(it *Item) string {
	if it == nil {
		return ""
	}
	if it.Kind == KindTask {
		t := Task{Text: it.Text}
		if it.Task != nil {
			t = *it.Task
			t.Text = it.Text
		}
		if it.Status == ItemDone && !taskDone(t.Status) {
			t.Status = ItemDone
		}
		return t.Display()
	}
	return it.Text
}

// mergeItems merges the item lists by id (see MergeStates). The result is
// ours' live items in ours' order, then theirs' additions; each item keeps
// the change record of the side whose version it takes from theirs, so the
// merge checkpoint says where a change came from.
func (m *merger) mergeItems(base, ours, theirs []Item) ([]Item, []MergeRemoval) {
	im := &itemMerge{m: m, bx: indexItems(base), ox: indexItems(ours), tx: indexItems(theirs), removes: []MergeRemoval{}}
	m.dead = [2]map[string]*Item{im.ox.dead, im.tx.dead}
	for _, id := range im.ox.order {
		im.oursItem(id)
	}
	for _, id := range im.tx.order {
		if _, inOurs := im.ox.live[id]; !inOurs {
			im.theirsItem(id)
		}
	}
	for _, id := range im.bx.order {
		_, inOurs := im.ox.live[id]
		_, inTheirs := im.tx.live[id]
		if !inOurs && !inTheirs {
			im.removal(im.bx.live[id], "both", im.ox.dead)
		}
	}
	// Kind order, each kind in the order found.
	sorted := make([]Item, 0, len(im.out))
	for _, k := range itemKinds {
		for _, it := range im.out {
			if it.Kind == k {
				sorted = append(sorted, it)
			}
		}
	}
	return sorted, im.removes
}

// itemMerge is one merge of item lists: the three sides indexed by id, the
// items kept so far and the removals.
type itemMerge struct {
	m          *merger
	bx, ox, tx itemIndex
	out        []Item
	removes    []MergeRemoval
}

// emit keeps a side's version of an item; the change record is theirs'
// when it comes from theirs (less the record of an earlier merge), none
// when it is ours'.
func (im *itemMerge) emit(it *Item, fromTheirs bool) {
	if it == nil {
		return
	}
	c := *it
	switch {
	case !fromTheirs:
		c.Change = nil
	case c.Change != nil && c.Change.Merge != nil:
		// theirs' record of an earlier merge is not this merge's
		ch := *c.Change
		ch.Merge = nil
		c.Change = &ch
	}
	im.out = append(im.out, c)
}

// removal records that side removed base item b (with the status its
// tombstone has there, else "removed").
func (im *itemMerge) removal(b *Item, side string, dead map[string]*Item) {
	st := "removed"
	if d := dead[b.ID]; d != nil {
		st = d.Status
	}
	im.removes = append(im.removes, MergeRemoval{ID: b.ID, Kind: b.Kind, Text: b.Text, Side: side, Status: st})
}

// oursItem merges an item ours has live.
func (im *itemMerge) oursItem(id string) {
	o := im.ox.live[id]
	b, inBase := im.bx.live[id]
	t, inTheirs := im.tx.live[id]
	field := o.Kind.Field()
	switch {
	case !inBase && !inTheirs: // added by ours
		im.emit(o, false)
	case !inBase: // added on both sides
		if equivalentItems(o, t) {
			im.emit(o, false)
		} else {
			im.decide(conflictBothChanged, field, nil, o, t)
		}
	case inTheirs: // on all three
		// A change that only rewords (same normalised text) gives way to
		// one that says something else; between two rewordings ours wins
		// unless ours left the item exactly as it was.
		oursChanged, theirsChanged := !equivalentItems(o, b), !equivalentItems(t, b)
		switch {
		case !oursChanged && !theirsChanged:
			if sameItemValue(o, b) {
				im.emit(t, true)
			} else {
				im.emit(o, false)
			}
		case !oursChanged:
			im.emit(t, true)
		case !theirsChanged || equivalentItems(o, t):
			im.emit(o, false)
		default:
			im.decide(conflictBothChanged, field, b, o, t)
		}
	default: // theirs removed it
		if equivalentItems(o, b) {
			im.removal(b, "theirs", im.tx.dead)
			return
		}
		im.decide(conflictRemovedVsEdited, field, b, o, nil)
	}
}

// theirsItem merges an item theirs has live and ours does not.
func (im *itemMerge) theirsItem(id string) {
	t := im.tx.live[id]
	b, inBase := im.bx.live[id]
	switch {
	case !inBase: // added by theirs
		im.emit(t, true)
	case equivalentItems(t, b): // ours removed it, theirs untouched
		im.removal(b, "ours", im.ox.dead)
	default:
		im.decide(conflictRemovedVsEdited, t.Kind.Field(), b, nil, t)
	}
}

// decide settles a conflicting item: by its resolution when there is one,
// else ours' version (theirs' when ours has none) stands in the preview.
func (im *itemMerge) decide(kind, field string, b, o, t *Item) {
	m := im.m
	var aliases []string
	for _, it := range []*Item{b, o, t} {
		if it != nil {
			aliases = append(aliases, ItemKey(it.Text))
		}
	}
	r, ok := m.conflict(MergeConflict{Field: field, Key: itemRef(b, o, t), Kind: kind, Base: renderItem(b), Ours: renderItem(o), Theirs: renderItem(t)}, aliases...)
	if !ok {
		if o != nil {
			im.emit(o, false)
		} else {
			im.emit(t, true)
		}
		return
	}
	switch r.Choice {
	case ChooseOurs:
		im.out = appendItem(im.out, m.settled(ChooseOurs, o, b, o, t))
		if o == nil && b != nil {
			im.removal(b, "ours", im.ox.dead)
		}
	case ChooseTheirs:
		im.out = appendItem(im.out, m.settled(ChooseTheirs, t, b, o, t))
		if t == nil && b != nil {
			im.removal(b, "theirs", im.tx.dead)
		}
	case ChooseBase:
		im.out = appendItem(im.out, m.settled(ChooseBase, b, b, o, t))
	default:
		edited := o
		if edited == nil || (t != nil && b != nil && equivalentItems(o, b)) {
			edited = t
		}
		c := *edited
		c.Text = strings.TrimSpace(r.Value)
		if c.Task != nil {
			tk := *c.Task
			tk.Text = c.Text
			c.Task = &tk
		}
		c.Change = nil
		im.out = append(im.out, *m.settled(ChooseCustom, &c, b, o, t))
	}
}

// appendItem is out with *it appended, or out when it is nil.
func appendItem(out []Item, it *Item) []Item {
	if it == nil {
		return out
	}
	return append(out, *it)
}
