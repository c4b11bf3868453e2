package smriti

import (
	"fmt"
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
	// Field is the content field: message, objective, summary, tasks or
	// artifacts (decisions, assumptions, open questions and entities never
	// conflict: an item is either there or not).
	Field string `json:"field"`
	// Key names the item of a list field: the task's NormalizeItem text, or
	// "id:<id>" / "label:<normalised label>" for an artifact; "" for scalars.
	Key    string `json:"key"`
	Kind   string `json:"kind"`
	Base   string `json:"base"`
	Ours   string `json:"ours"`
	Theirs string `json:"theirs"`
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

// MergeResult is a merge: the merged content, with every conflict the
// resolutions did not settle provisionally decided (the scalar and the
// edited item of "ours", an item edited on one side and removed on the other
// kept), the conflicts the caller must still resolve (never nil) and how
// many the resolutions settled.
type MergeResult struct {
	Merged    Content         `json:"merged"`
	Conflicts []MergeConflict `json:"conflicts"`
	Resolved  int             `json:"resolved"`
}

type conflictRef struct{ field, key string }

type merger struct {
	res       map[conflictRef]MergeResolution
	used      map[conflictRef]bool
	conflicts []MergeConflict
}

// Merge is the three-way merge of a source branch head (theirs) into a target
// branch head (ours) against their lowest common ancestor (base; nil means
// empty content, e.g. unrelated histories).
//
// Lists (decisions, assumptions, tasks by normalised text, open questions,
// entities, artifacts by id else label) keep items added on either side once,
// drop items removed on one side and untouched on the other, and keep items
// present on all three; the order is ours' then theirs' additions. Rewording
// an item without changing its normalised key is not an edit that conflicts
// with anything: one side's rewording wins over an untouched side, ours wins
// over theirs. Message, objective and summary take the side that changed;
// changed on both sides to different values is a conflict.
//
// Resolutions settle conflicts as they are found (see MergeResolution).
// EUNPROCESSABLE for a resolution with an unknown choice or one that names
// no conflict.
func Merge(base, ours, theirs *Content, resolutions []MergeResolution) (MergeResult, error) {
	empty := &Content{}
	if base == nil {
		base = empty
	}
	if ours == nil {
		ours = empty
	}
	if theirs == nil {
		theirs = empty
	}
	m := &merger{res: map[conflictRef]MergeResolution{}, used: map[conflictRef]bool{}, conflicts: []MergeConflict{}}
	for _, r := range resolutions {
		switch r.Choice {
		case ChooseOurs, ChooseTheirs, ChooseBase, ChooseCustom:
		default:
			return MergeResult{}, Errorf(EUNPROCESSABLE, "resolution of %s: choice must be ours, theirs, base or custom, not %q", describeRef(r.Field, r.Key), Truncate(r.Choice, 20))
		}
		m.res[conflictRef{r.Field, r.Key}] = r
	}

	strKey := func(s string) string { return itemKey(s) }
	same := func(a, b string) bool { return a == b }
	id := func(s string) string { return s }
	var out Content
	out.Message = m.scalar("message", base.Message, ours.Message, theirs.Message)
	out.Objective = m.scalar("objective", base.Objective, ours.Objective, theirs.Objective)
	out.Summary = m.scalar("summary", base.Summary, ours.Summary, theirs.Summary)
	out.Decisions = mergeList(m, "decisions", true, base.Decisions, ours.Decisions, theirs.Decisions, strKey, same, id, nil)
	out.Assumptions = mergeList(m, "assumptions", true, base.Assumptions, ours.Assumptions, theirs.Assumptions, strKey, same, id, nil)
	out.Tasks = mergeList(m, "tasks", false, base.Tasks, ours.Tasks, theirs.Tasks,
		func(t Task) string { return itemKey(t.Text) },
		func(a, b Task) bool { a.Structured, b.Structured = false, false; return a == b },
		Task.render,
		func(t Task, v string) Task { t.Text = strings.TrimSpace(v); return t })
	out.OpenQuestions = mergeList(m, "open_questions", true, base.OpenQuestions, ours.OpenQuestions, theirs.OpenQuestions, strKey, same, id, nil)
	out.Entities = mergeList(m, "entities", true, base.Entities, ours.Entities, theirs.Entities, strKey, same, id, nil)
	out.Artifacts = mergeList(m, "artifacts", false, base.Artifacts, ours.Artifacts, theirs.Artifacts,
		artifactKey,
		func(a, b Artifact) bool { return a == b },
		func(a Artifact) string { return a.Content },
		func(a Artifact, v string) Artifact { a.Content = v; return a })

	for ref := range m.res {
		if !m.used[ref] {
			return MergeResult{}, Errorf(EUNPROCESSABLE, "resolution of %s matches no conflict", describeRef(ref.field, ref.key))
		}
	}
	return MergeResult{Merged: out, Conflicts: m.conflicts, Resolved: len(m.used)}, nil
}

func describeRef(field, key string) string {
	if key == "" {
		return fmt.Sprintf("%q", field)
	}
	return fmt.Sprintf("%q item %q", field, Truncate(key, 60))
}

// conflict records c, or returns the caller's resolution for it.
func (m *merger) conflict(c MergeConflict) (MergeResolution, bool) {
	ref := conflictRef{c.Field, c.Key}
	if r, ok := m.res[ref]; ok {
		m.used[ref] = true
		return r, true
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

// itemKey is NormalizeItem, except that an item without letters or digits
// is keyed by its exact text, so "---" matches only "---".
func itemKey(s string) string {
	if k := NormalizeItem(s); k != "" {
		return k
	}
	return "\x00" + s
}

func artifactKey(a Artifact) string {
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
