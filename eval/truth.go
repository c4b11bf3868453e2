package eval

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"smriti"
)

// TruthItem is an item the ground truth holds at the end of a line of work.
type TruthItem struct {
	Key    string
	Kind   smriti.ItemKind
	Text   string   // its current text
	Status string   // open or done
	Intro  int      // the turn that introduced it
	Texts  []string // every text it has had, oldest first
}

func (it TruthItem) same(o TruthItem) bool {
	return it.Kind == o.Kind && it.Text == o.Text && it.Status == o.Status
}

// Truth is what a scenario establishes: main's final state and the
// conflicts each merge must report.
type Truth struct {
	Final []TruthItem
	// Conflicts are the keys each merge step (by index in Steps) must
	// report as conflicts, sorted.
	Conflicts map[int][]string
	// Lines are, for the baselines, the turns that reach main's final
	// state, in script order: every turn of a session whose work was saved
	// onto main or merged into it.
	Lines []int
	// All is every key the scenario's turns name, with every text it was
	// given anywhere, for recognising an item (or a conflict) by its text.
	All []TruthItem
}

type truthState map[string]TruthItem

func (s truthState) clone() truthState { return maps.Clone(s) }

type truthSession struct {
	branch    string
	pending   []Step     // says not yet saved
	drafted   []Step     // says a kept draft covers
	draftBase truthState // the head the kept draft stood on
	nospace   bool
}

// Replay replays a scenario's markers along its script. It fails when the
// script is inconsistent: an unknown session or checkpoint, a change to an
// item the line does not hold, a merge whose expected conflicts are not the
// ones the three-way merge of the keys produces.
func Replay(sc *Scenario) (*Truth, error) {
	heads := map[string]truthState{"main": {}}
	labels := map[string]truthState{}
	forkBase := map[string]truthState{}
	sessions := map[string]*truthSession{}
	// saved marks, per branch, the turns whose markers reached it.
	saved := map[string][]int{"main": nil}
	tr := &Truth{Conflicts: map[int][]string{}}
	apply := func(branch string, turns []Step) error {
		return applyMarkers(heads[branch], branch, turns, saved)
	}
	for i, st := range sc.Steps {
		switch st.Verb {
		case "session":
			if _, dup := sessions[st.Session]; dup {
				return nil, fmt.Errorf("line %d: session %q exists", st.Line, st.Session)
			}
			sessions[st.Session] = &truthSession{branch: "main", nospace: st.NoSpace}
		case "say":
			s, err := sessionOf(sessions, st)
			if err != nil {
				return nil, err
			}
			s.pending = append(s.pending, st)
		case "save", "draft":
			s, err := sessionOf(sessions, st)
			if err != nil {
				return nil, err
			}
			if s.nospace {
				return nil, fmt.Errorf("line %d: session %q has no space to save in", st.Line, st.Session)
			}
			if st.Verb == "draft" {
				s.drafted, s.pending = append(s.drafted, s.pending...), nil
				s.draftBase = heads[s.branch].clone()
				continue
			}
			if err := apply(s.branch, s.pending); err != nil {
				return nil, err
			}
			s.pending = nil
			if st.Label != "" {
				labels[st.Label] = heads[s.branch].clone()
			}
		case "commit":
			s, err := sessionOf(sessions, st)
			if err != nil {
				return nil, err
			}
			if s.drafted == nil {
				return nil, fmt.Errorf("line %d: session %q has no kept draft", st.Line, st.Session)
			}
			merged, conflicts, err := commitDraft(s, st, heads[s.branch], saved)
			if err != nil {
				return nil, err
			}
			if len(conflicts) > 0 {
				tr.Conflicts[i] = conflicts
			}
			heads[s.branch] = merged
			s.drafted = nil
			if st.Label != "" {
				labels[st.Label] = heads[s.branch].clone()
			}
		case "fork":
			src, ok := labels[st.Label]
			if !ok {
				return nil, fmt.Errorf("line %d: no checkpoint %q", st.Line, st.Label)
			}
			if _, dup := heads[st.Branch]; dup {
				return nil, fmt.Errorf("line %d: branch %q exists", st.Line, st.Branch)
			}
			heads[st.Branch], forkBase[st.Branch] = src.clone(), src.clone()
			saved[st.Branch] = nil
			sessions[st.Session] = &truthSession{branch: st.Branch}
		case "mount":
			if _, err := sessionOf(sessions, st); err != nil {
				return nil, err
			}
			if _, ok := labels[st.Label]; !ok {
				return nil, fmt.Errorf("line %d: no checkpoint %q", st.Line, st.Label)
			}
		case "merge":
			theirs, ok := heads[st.Branch]
			if !ok {
				return nil, fmt.Errorf("line %d: no branch %q", st.Line, st.Branch)
			}
			merged, conflicts, err := mergeTruth(forkBase[st.Branch], heads["main"], theirs, st.Resolve)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", st.Line, err)
			}
			if err := expectConflicts(st, conflicts); err != nil {
				return nil, err
			}
			tr.Conflicts[i] = conflicts
			heads["main"] = merged
			saved["main"] = append(saved["main"], saved[st.Branch]...)
			if st.Label != "" {
				labels[st.Label] = merged.clone()
			}
		case "probe":
			if _, err := sessionOf(sessions, st); err != nil {
				return nil, err
			}
			if st.Sees != "" {
				if _, ok := labels[st.Sees]; !ok {
					return nil, fmt.Errorf("line %d: no checkpoint %q", st.Line, st.Sees)
				}
			}
		}
	}
	finishTruth(tr, sc, heads["main"], saved["main"])
	return tr, nil
}

// expectConflicts checks a step expects exactly the conflicts the truth
// finds.
func expectConflicts(st Step, conflicts []string) error {
	want := slices.Sorted(slices.Values(st.Expect))
	if !slices.Equal(want, conflicts) {
		return fmt.Errorf("line %d: the %s conflicts on [%s], the script expects [%s]",
			st.Line, st.Verb, strings.Join(conflicts, ","), strings.Join(want, ","))
	}
	return nil
}

// mergeTruth is the three-way merge of keys: a key changed (or removed) on
// one side only takes that side; changed on both sides differently it is
// a conflict, settled by resolve.
func mergeTruth(base, ours, theirs truthState, resolve string) (truthState, []string, error) {
	out := truthState{}
	var conflicts []string
	keys := map[string]bool{}
	for _, s := range []truthState{base, ours, theirs} {
		for k := range s {
			keys[k] = true
		}
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		b, hb := base[k]
		o, ho := ours[k]
		t, ht := theirs[k]
		eq := func(x TruthItem, hx bool, y TruthItem, hy bool) bool { return hx == hy && (!hx || x.same(y)) }
		var pick TruthItem
		var has bool
		switch {
		case eq(o, ho, t, ht):
			pick, has = o, ho
		case eq(o, ho, b, hb):
			pick, has = t, ht
		case eq(t, ht, b, hb):
			pick, has = o, ho
		case !hb:
			return nil, nil, fmt.Errorf("%s is added on both sides with different texts", k)
		default:
			conflicts = append(conflicts, k)
			pick, has = o, ho
			if resolve == "theirs" {
				pick, has = t, ht
			}
		}
		if has {
			out[k] = pick
		}
	}
	return out, conflicts, nil
}

// applyMarkers applies the markers of turns to state, the line of branch,
// and records in saved that the turns reached it.
func applyMarkers(state truthState, branch string, turns []Step, saved map[string][]int) error {
	for _, t := range turns {
		saved[branch] = append(saved[branch], t.Turn)
		for _, m := range ParseMarkers(t.Text) {
			it, has := state[m.Key]
			switch m.Op {
			case MarkAdd:
				if has {
					return fmt.Errorf("line %d: %s is added twice on %s", t.Line, m.Key, branch)
				}
				state[m.Key] = TruthItem{Key: m.Key, Kind: m.Kind, Text: m.Text, Status: smriti.ItemOpen, Intro: t.Turn, Texts: []string{m.Text}}
				continue
			}
			if !has {
				return fmt.Errorf("line %d: %s %s, which %s does not hold", t.Line, m.Op, m.Key, branch)
			}
			switch m.Op {
			case MarkChange:
				it.Text = m.Text
				it.Texts = append(slices.Clone(it.Texts), m.Text)
				state[m.Key] = it
			case MarkResolve:
				if m.Kind == smriti.KindTask {
					it.Status = smriti.ItemDone
					state[m.Key] = it
				} else {
					delete(state, m.Key)
				}
			case MarkRetract:
				delete(state, m.Key)
			}
		}
	}
	return nil
}

// finishTruth fills in what the replay leaves: main's final items, every
// item the script ever wrote with its texts, and the turns whose markers
// reached main.
func finishTruth(tr *Truth, sc *Scenario, main truthState, savedMain []int) {
	for _, k := range slices.Sorted(maps.Keys(main)) {
		tr.Final = append(tr.Final, main[k])
	}
	all := map[string]*TruthItem{}
	for _, st := range sc.Steps {
		if st.Verb != "say" {
			continue
		}
		for _, m := range ParseMarkers(st.Text) {
			it, ok := all[m.Key]
			if !ok {
				it = &TruthItem{Key: m.Key, Kind: m.Kind}
				all[m.Key] = it
			}
			if m.Op == MarkAdd || m.Op == MarkChange {
				it.Texts = append(it.Texts, m.Text)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(all)) {
		tr.All = append(tr.All, *all[k])
	}
	onMain := map[int]bool{}
	for _, t := range savedMain {
		onMain[t] = true
	}
	for _, st := range sc.Steps {
		if st.Verb == "say" && onMain[st.Turn] {
			tr.Lines = append(tr.Lines, st.Turn)
		}
	}
}

// commitDraft is the line a kept draft's commit leaves: the server rebases
// the draft's change over its base onto the head, a three-way merge whose
// conflicts answer 409 (and must be the ones the step expects).
func commitDraft(s *truthSession, st Step, head truthState, saved map[string][]int) (truthState, []string, error) {
	theirs := s.draftBase.clone()
	if err := applyMarkers(theirs, s.branch, s.drafted, saved); err != nil {
		return nil, nil, err
	}
	merged, conflicts, err := mergeTruth(s.draftBase, head, theirs, st.Resolve)
	if err != nil {
		return nil, nil, fmt.Errorf("line %d: %w", st.Line, err)
	}
	if err := expectConflicts(st, conflicts); err != nil {
		return nil, nil, err
	}
	return merged, conflicts, nil
}

// sessionOf is the session a step names.
func sessionOf(sessions map[string]*truthSession, st Step) (*truthSession, error) {
	s, ok := sessions[st.Session]
	if !ok {
		return nil, fmt.Errorf("line %d: no session %q", st.Line, st.Session)
	}
	return s, nil
}
