package smriti

import (
	"fmt"
	"smriti/internal/textutil"
	"strings"
)

// Merge conflict kinds.
const (
	// conflictBothChanged: a scalar (message, objective, summary), a task's
	// annotations or an artifact changed on both sides to different values
	// (or the same item was added on both sides with different values).
	conflictBothChanged = "both_changed"
	// conflictRemovedVsEdited: a task or artifact was removed on one side
	// and edited on the other.
	conflictRemovedVsEdited = "removed_vs_edited"
)

// Resolution choices.
const (
	ChooseOurs   = "ours"
	ChooseTheirs = "theirs"
	ChooseBase   = "base"
	ChooseCustom = "custom"
)

// MergeConflict is one decision a merge cannot make alone. Base, Ours and
// Theirs are the competing values as text ("" where a side has no value, e.g.
// the side that removed an item); tasks appear rendered (Task.render),
// artifacts as their content.
type MergeConflict struct {
	// Field is the content field: message, objective, summary, decisions,
	// assumptions, tasks, open_questions, entities or artifacts.
	Field string `json:"field" enum:"message,objective,summary,decisions,assumptions,tasks,open_questions,entities,artifacts" doc:"The content field in conflict"`
	// Key names the item of a list field: its item id, or "id:<id>" /
	// "label:<normalised label>" for an artifact; "" for scalars.
	Key    string `json:"key" doc:"The item of a list field: its item id, or id:<id> / label:<normalised label> for an artifact; empty for a scalar field"`
	Kind   string `json:"kind" enum:"both_changed,removed_vs_edited" doc:"both_changed: both sides changed it to different values (or added it with different values); removed_vs_edited: one side removed what the other edited"`
	Base   string `json:"base" doc:"The common ancestor's value as text (empty where it has none)"`
	Ours   string `json:"ours" doc:"The target's value as text (empty where the target removed it)"`
	Theirs string `json:"theirs" doc:"The source's value as text (empty where the source removed it)"`
}

// MergeResolution settles one conflict, matched by Field and Key.
//
// Choice is "ours", "theirs" or "base" — take that side's value; for a list
// item, a side without the item means the item is removed — or "custom",
// which takes Value: the text of a scalar, the new text of a task (keeping
// the annotations of the side that edited it), or the content of an artifact.
type MergeResolution struct {
	Field  string `json:"field" doc:"The conflicting field: message, objective, summary, decisions, assumptions, tasks, open_questions, entities or artifacts"`
	Key    string `json:"key" doc:"The conflicting item's key, as the 409 answer names it (\"\" for a scalar field)"`
	Choice string `json:"choice" doc:"ours, theirs or base (that side's value; a side without the item removes it), or custom (take value)"`
	Value  string `json:"value" doc:"With custom: the text, the task's new text or the artifact's content"`
}

// MergeResult is a merge: the merged content and items, with every conflict
// the resolutions did not settle provisionally decided (the scalar and the
// edited item of "ours", an item edited on one side and removed on the other
// kept), the conflicts the caller must still resolve (never nil), how many
// the resolutions settled, and every item the merge removes (never nil).
type MergeResult struct {
	Merged    Content         `json:"merged"`
	Items     []Item          `json:"-"`
	Conflicts []MergeConflict `json:"conflicts"`
	Removes   []MergeRemoval  `json:"removes"`
	Resolved  int             `json:"resolved"`
}

// MergeRemoval is an item of the base that the merged state no longer has:
// Side is the side that removed it ("ours", "theirs" or "both") and Status
// how (retracted, superseded, answered; "removed" when that side's
// checkpoint has no record of it).
type MergeRemoval struct {
	ID     string   `json:"id" doc:"The removed item's id"`
	Kind   ItemKind `json:"kind" enum:"decision,assumption,task,open_question,entity" doc:"Its kind"`
	Text   string   `json:"text" doc:"Its text in the common ancestor"`
	Side   string   `json:"side" enum:"ours,theirs,both" doc:"Which side removed it: ours (the target), theirs (the source) or both"`
	Status string   `json:"status" enum:"retracted,superseded,answered,removed" doc:"How that side ended it (removed: that side's checkpoint dropped it without saying how)"`
}

// MergeSide is one side of a merge: its content and its items (tombstones
// included). Items nil means the content's lists read as items with ids
// derived from their text.
type MergeSide struct {
	Content Content
	Items   []Item
	// Changes holds, by item id, the change that last changed the item on
	// this side since the base, for items the side's head carried
	// unchanged (an item's own Change speaks for itself). A resolved
	// conflict records the chosen side's source from it, and the source of
	// each version it turns down. May be nil.
	Changes map[string]*ItemChange
}

type conflictRef struct{ field, key string }

type merger struct {
	res       map[conflictRef]MergeResolution
	used      map[conflictRef]bool
	conflicts []MergeConflict
	// changes are the sides' MergeSide.Changes, dead their heads'
	// tombstones by id: ours, theirs.
	changes [2]map[string]*ItemChange
	dead    [2]map[string]*Item
}

func sideIndex(side string) int {
	if side == ChooseTheirs {
		return 1
	}
	return 0
}

// lastChange is the change that made a side's version of an item: the
// item's own, else the one the side recorded in MergeSide.Changes; nil
// when neither says.
func (m *merger) lastChange(side string, it *Item) *ItemChange {
	if it == nil {
		return nil
	}
	if it.Change != nil && it.Change.Op != "" {
		return it.Change
	}
	return m.changes[sideIndex(side)][it.ID]
}

// removalOf is the change with which a side removed base item b: its
// head's tombstone of it, else the one the side recorded; nil when
// neither says.
func (m *merger) removalOf(side string, b *Item) *ItemChange {
	if d := m.dead[sideIndex(side)][b.ID]; d != nil && d.Change != nil {
		return d.Change
	}
	return m.changes[sideIndex(side)][b.ID]
}

// sourceOf is where a side's version of an item came from (empty when
// unknown).
func (m *merger) sourceOf(side string, it *Item) ItemSource {
	if ch := m.lastChange(side, it); ch != nil {
		return ch.Source
	}
	return ItemSource{}
}

// settled is the item a resolution chose (kept, or nil for a removal of
// base item b), with a change record saying so: the chosen side's source
// and the versions of the other sides it turned down. A removal gives the
// base item's tombstone.
func (m *merger) settled(choice string, chosen, b, o, t *Item) *Item {
	var c Item
	var ch ItemChange
	switch {
	case chosen != nil:
		c = *chosen
		ch = ItemChange{Op: OpUpdate}
		if last := m.lastChange(choice, chosen); last != nil && (choice == ChooseOurs || choice == ChooseTheirs) {
			ch.Source = last.Source
			if last.Op == OpResolve {
				ch.Op, ch.By = OpResolve, last.By
			}
		}
	case b != nil:
		c = *b
		c.Status = ItemRetracted
		ch = ItemChange{Op: OpRetract}
		if rm := m.removalOf(choice, b); rm != nil {
			ch.Source, ch.Reason = rm.Source, rm.Reason
		}
	default:
		return nil
	}
	rec := &ItemMerge{Choice: choice, Rejected: []RejectedVersion{}}
	for _, s := range []struct {
		side string
		it   *Item
	}{{ChooseOurs, o}, {ChooseTheirs, t}} {
		if s.side == choice || (chosen != nil && s.it != nil && sameItemValue(s.it, chosen)) || (chosen == nil && s.it == nil) {
			continue
		}
		v := RejectedVersion{Side: s.side}
		if s.it != nil {
			text := s.it.Text
			v.Text, v.Source = &text, m.sourceOf(s.side, s.it)
		} else if b != nil {
			if rm := m.removalOf(s.side, b); rm != nil {
				v.Source = rm.Source
			}
		}
		rec.Rejected = append(rec.Rejected, v)
	}
	ch.Merge = rec
	c.Change = &ch
	return &c
}

// mergeContents is MergeStates over content alone: each side's items get ids from
// their text, so an item matches its namesake on the other sides.
func mergeContents(base, ours, theirs *Content, resolutions []MergeResolution) (MergeResult, error) {
	side := func(c *Content) *MergeSide {
		if c == nil {
			return nil
		}
		return &MergeSide{Content: *c}
	}
	return MergeStates(side(base), side(ours), side(theirs), resolutions)
}

// MergeStates is the three-way merge of a source branch head (theirs) into a
// target branch head (ours) against their lowest common ancestor (base; nil
// means empty, e.g. unrelated histories).
//
// Items (decisions, assumptions, tasks, open questions, entities) match by
// id: an item added on either side is kept; changed on one side it takes
// that side's version; changed on both sides to different values it is a
// conflict (both_changed); removed on one side and untouched on the other it
// is removed; removed on one side and changed on the other it is a conflict
// (removed_vs_edited). Every removal is listed in Removes. Changes that only
// reword an item (same normalised text, same status and annotations) never
// conflict: ours wins. Artifacts match by id else label. Message, objective
// and summary take the side that changed; changed on both sides to
// different values is a conflict the caller resolves.
//
// Resolutions settle conflicts as they are found (see MergeResolution).
// EUNPROCESSABLE for a resolution with an unknown choice or one that names
// no conflict.
func MergeStates(base, ours, theirs *MergeSide, resolutions []MergeResolution) (MergeResult, error) {
	empty := &MergeSide{}
	if base == nil {
		base = empty
	}
	if ours == nil {
		ours = empty
	}
	if theirs == nil {
		theirs = empty
	}
	m := &merger{res: map[conflictRef]MergeResolution{}, used: map[conflictRef]bool{}, conflicts: []MergeConflict{},
		changes: [2]map[string]*ItemChange{ours.Changes, theirs.Changes}}
	if err := m.setResolutions(resolutions); err != nil {
		return MergeResult{}, err
	}

	var out Content
	out.Message = m.scalar("message", base.Content.Message, ours.Content.Message, theirs.Content.Message)
	out.Objective = m.scalar("objective", base.Content.Objective, ours.Content.Objective, theirs.Content.Objective)
	out.Summary = m.scalar("summary", base.Content.Summary, ours.Content.Summary, theirs.Content.Summary)
	baseItems := sideItems(base)
	items, removes := m.mergeItems(baseItems, adoptNearCopies(baseItems, sideItems(ours)), adoptNearCopies(baseItems, sideItems(theirs)))
	setContentLists(&out, items)
	out.Artifacts = m.mergeArtifacts(base.Content.Artifacts, ours.Content.Artifacts, theirs.Content.Artifacts)

	if err := m.unusedResolution(); err != nil {
		return MergeResult{}, err
	}
	return MergeResult{Merged: out, Items: items, Conflicts: m.conflicts, Removes: removes, Resolved: len(m.used)}, nil
}

// mergeArtifacts merges artifacts by id, else label; an artifact changed
// on both sides is a conflict on its content.
func (m *merger) mergeArtifacts(base, ours, theirs []Artifact) []Artifact {
	return mergeList(m, "artifacts", false, base, ours, theirs,
		Artifact.Key,
		func(a, b Artifact) bool { return a == b },
		func(a Artifact) string { return a.Content },
		func(a Artifact, v string) Artifact { a.Content = v; return a })
}

// setResolutions records the caller's resolutions; EUNPROCESSABLE for an
// unknown choice.
func (m *merger) setResolutions(resolutions []MergeResolution) error {
	for _, r := range resolutions {
		switch r.Choice {
		case ChooseOurs, ChooseTheirs, ChooseBase, ChooseCustom:
		default:
			return Errorf(EUNPROCESSABLE, "resolution of %s: choice must be ours, theirs, base or custom, not %q", describeRef(r.Field, r.Key), textutil.Truncate(r.Choice, 20))
		}
		m.res[conflictRef{r.Field, r.Key}] = r
	}
	return nil
}

// unusedResolution is EUNPROCESSABLE naming a resolution that matched no
// conflict, else nil.
func (m *merger) unusedResolution() error {
	for ref := range m.res {
		if !m.used[ref] {
			return Errorf(EUNPROCESSABLE, "resolution of %s matches no conflict", describeRef(ref.field, ref.key))
		}
	}
	return nil
}

func itemRef(items ...*Item) string {
	for _, it := range items {
		if it != nil {
			return it.ID
		}
	}
	return ""
}

func describeRef(field, key string) string {
	if key == "" {
		return fmt.Sprintf("%q", field)
	}
	return fmt.Sprintf("%q item %q", field, textutil.Truncate(key, 60))
}

// conflict records c, or returns the caller's resolution for it. aliases
// are other keys a resolution may name the conflict by (an item's
// normalised text, as conflicts were keyed before items had ids).
func (m *merger) conflict(c MergeConflict, aliases ...string) (MergeResolution, bool) {
	for _, k := range append([]string{c.Key}, aliases...) {
		ref := conflictRef{c.Field, k}
		if r, ok := m.res[ref]; ok {
			m.used[ref] = true
			return r, true
		}
	}
	m.conflicts = append(m.conflicts, c)
	return MergeResolution{}, false
}

func (m *merger) scalar(field, base, ours, theirs string) string {
	b, o, t := strings.TrimSpace(base), strings.TrimSpace(ours), strings.TrimSpace(theirs)
	switch {
	case o == t, t == b:
		return ours
	case o == b:
		return theirs
	}
	r, ok := m.conflict(MergeConflict{Field: field, Kind: conflictBothChanged, Base: base, Ours: ours, Theirs: theirs})
	if !ok {
		return ours
	}
	switch r.Choice {
	case ChooseTheirs:
		return theirs
	case ChooseBase:
		return base
	case ChooseCustom:
		return r.Value
	}
	return ours
}

// ItemKey is NormalizeItem, except that an item without letters or digits
// is keyed by its exact text, so "---" matches only "---".
func ItemKey(s string) string {
	if k := NormalizeItem(s); k != "" {
		return k
	}
	return "\x00" + s
}

// Key is what merge matches artifacts by: the id, else the normalised
// label.
func (a Artifact) Key() string {
	if id := strings.TrimSpace(a.ID); id != "" {
		return "id:" + id
	}
	return "label:" + NormalizeItem(a.Label)
}

// mergeList merges one list field. soft lists (plain strings) never
// conflict: an item's identity is its key, so a rewording is not an edit.
// custom builds an item from the edited item and a resolution's Value.
func mergeList[T any](m *merger, field string, soft bool, base, ours, theirs []T,
	key func(T) string, equal func(a, b T) bool, render func(T) string, custom func(T, string) T) []T {

	bm, om, tm := indexByKey(base, key), indexByKey(ours, key), indexByKey(theirs, key)
	out := []T{}
	emit := func(v *T) {
		if v != nil {
			out = append(out, *v)
		}
	}
	show := func(v *T) string {
		if v == nil {
			return ""
		}
		return render(*v)
	}
	// decide resolves a conflict on key k; def is the provisional value.
	decide := func(k, kind string, b, o, t, def *T) *T {
		r, ok := m.conflict(MergeConflict{Field: field, Key: k, Kind: kind, Base: show(b), Ours: show(o), Theirs: show(t)})
		if !ok {
			return def
		}
		switch r.Choice {
		case ChooseOurs:
			return o
		case ChooseTheirs:
			return t
		case ChooseBase:
			return b
		}
		edited := o
		if edited == nil || (t != nil && b != nil && equal(*o, *b)) {
			edited = t
		}
		v := custom(*edited, r.Value)
		return &v
	}

	for _, k := range om.order {
		o := om.items[k]
		b, inBase := bm.items[k]
		t, inTheirs := tm.items[k]
		switch {
		case !inBase && !inTheirs: // added by ours
			emit(o)
		case !inBase: // added on both sides
			if equal(*o, *t) || soft {
				emit(o)
			} else {
				emit(decide(k, conflictBothChanged, nil, o, t, o))
			}
		case inTheirs: // on all three
			oursChanged, theirsChanged := !equal(*o, *b), !equal(*t, *b)
			switch {
			case !theirsChanged || equal(*o, *t):
				emit(o)
			case !oursChanged:
				emit(t)
			case soft:
				emit(o)
			default:
				emit(decide(k, conflictBothChanged, b, o, t, o))
			}
		default: // theirs removed it
			if equal(*o, *b) || soft {
				continue
			}
			emit(decide(k, conflictRemovedVsEdited, b, o, nil, o))
		}
	}
	for _, k := range tm.order {
		if _, inOurs := om.items[k]; inOurs {
			continue
		}
		t := tm.items[k]
		b, inBase := bm.items[k]
		switch {
		case !inBase: // added by theirs
			emit(t)
		case equal(*t, *b) || soft: // ours removed it, theirs untouched
		default:
			emit(decide(k, conflictRemovedVsEdited, b, nil, t, t))
		}
	}
	return out
}

type keyed[T any] struct {
	order []string
	items map[string]*T
}

// indexByKey keeps the first item of each key, in order.
func indexByKey[T any](list []T, key func(T) string) keyed[T] {
	ix := keyed[T]{items: make(map[string]*T, len(list))}
	for i := range list {
		k := key(list[i])
		if _, dup := ix.items[k]; dup {
			continue
		}
		ix.items[k] = &list[i]
		ix.order = append(ix.order, k)
	}
	return ix
}
