package smriti

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// NormalizeItem is the key under which list items (decisions, tasks, …) are
// matched by compare, merge and de-duplication: lower-cased, punctuation and
// symbols deleted, whitespace runs collapsed to one space, trimmed.
//
// Unlike the first implementation, which kept only [a-z0-9 ], letters, marks
// and digits of every script are kept, so "Zürich" and "स्मृति" still have a
// key and two non-Latin items do not collapse into the same empty key.
// Punctuation is deleted rather than turned into a space, so "east-coast"
// matches "eastcoast" but not "east coast" (as before). An item made only of
// punctuation has the empty key: it matches nothing.
func NormalizeItem(s string) string {
	if normalASCII(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			// ASCII, as the unicode tables class it: letters and digits
			// are kept (letters lower-cased), the six spaces separate,
			// everything else is punctuation or a symbol.
			i++
			switch {
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			case 'A' <= c && c <= 'Z':
				c += 'a' - 'A'
			case c == ' ', '\t' <= c && c <= '\r':
				space = true
				continue
			default:
				continue
			}
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteByte(c)
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(unicode.ToLower(r))
		case unicode.IsSpace(r):
			space = true
		}
	}
	return b.String()
}

// normalASCII reports whether s is already its own key: lower-case ASCII
// letters and digits in words separated by single spaces.
func normalASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case c == ' ' && i > 0 && i < len(s)-1 && s[i-1] != ' ':
		default:
			return false
		}
	}
	return true
}

// ListDiff is the comparison of two lists of items. Every slice is non-nil
// (it encodes as [] not null) and sorted in code-point order.
type ListDiff struct {
	OnlyA  []string `json:"only_a"`
	OnlyB  []string `json:"only_b"`
	Shared []string `json:"shared"`
}

// DiffLists compares two lists by NormalizeItem key. Within a side only the
// first item of each key counts. Items with an empty key (say "---") can
// match nothing and are reported on their own side, duplicates included.
// Shared items are reported in A's wording.
func DiffLists(a, b []string) ListDiff {
	keysA, unmatchA := firstByKey(a)
	keysB, unmatchB := firstByKey(b)
	d := ListDiff{OnlyA: unmatchA, OnlyB: unmatchB, Shared: []string{}}
	for k, orig := range keysA {
		if _, ok := keysB[k]; ok {
			d.Shared = append(d.Shared, orig)
		} else {
			d.OnlyA = append(d.OnlyA, orig)
		}
	}
	for k, orig := range keysB {
		if _, ok := keysA[k]; !ok {
			d.OnlyB = append(d.OnlyB, orig)
		}
	}
	sort.Strings(d.OnlyA)
	sort.Strings(d.OnlyB)
	sort.Strings(d.Shared)
	return d
}

// firstByKey maps each non-empty key to the first item having it, and
// returns the items with an empty key separately (never nil).
func firstByKey(items []string) (map[string]string, []string) {
	keys := make(map[string]string, len(items))
	unmatchable := []string{}
	for _, it := range items {
		k := NormalizeItem(it)
		if k == "" {
			unmatchable = append(unmatchable, it)
			continue
		}
		if _, ok := keys[k]; !ok {
			keys[k] = it
		}
	}
	return keys, unmatchable
}

// CheckpointDiff compares the structured state of two checkpoints (A and B).
// Summary and objective are reported raw, "" when unset; lists are diffed
// with DiffLists, tasks by text (annotations ignored).
type CheckpointDiff struct {
	SummaryA      string   `json:"summary_a"`
	SummaryB      string   `json:"summary_b"`
	ObjectiveA    string   `json:"objective_a"`
	ObjectiveB    string   `json:"objective_b"`
	Decisions     ListDiff `json:"decisions"`
	Assumptions   ListDiff `json:"assumptions"`
	Tasks         ListDiff `json:"tasks"`
	OpenQuestions ListDiff `json:"open_questions"`
	Entities      ListDiff `json:"entities"`
}

// DiffCheckpoints compares a and b. A nil checkpoint compares as empty.
// Comparing a checkpoint with itself yields empty only-lists.
func DiffCheckpoints(a, b *Checkpoint) CheckpointDiff {
	ca, cb := contentOf(a), contentOf(b)
	return CheckpointDiff{
		SummaryA:      ca.Summary,
		SummaryB:      cb.Summary,
		ObjectiveA:    ca.Objective,
		ObjectiveB:    cb.Objective,
		Decisions:     DiffLists(ca.Decisions, cb.Decisions),
		Assumptions:   DiffLists(ca.Assumptions, cb.Assumptions),
		Tasks:         DiffLists(ca.TaskTexts(), cb.TaskTexts()),
		OpenQuestions: DiffLists(ca.OpenQuestions, cb.OpenQuestions),
		Entities:      DiffLists(ca.Entities, cb.Entities),
	}
}

func contentOf(c *Checkpoint) Content {
	if c == nil {
		return Content{}
	}
	return c.Content
}
