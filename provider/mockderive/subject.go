package mockderive

import (
	"slices"

	"smriti"
)

// SameSubject reports whether a and b state the same thing with a different
// number or the opposite sense; the domain's rule (smriti.SameSubject).
func SameSubject(a, b string) bool { return smriti.SameSubject(a, b) }

// kindWords name an item's kind inside a reference to it ("drop the git
// assumption"), singular as smriti.ContentWords gives them; they are not
// the words to match.
var kindWords = map[string]string{"decision": kindDecision, "assumption": kindAssumption, "task": kindTask,
	"question": kindQuestion, "item": ""}

// matchWords are the words of a reference used to find the item it means:
// smriti.ContentWords without kind names, sorted and distinct. kind is
// the item kind the reference names, if it names one.
func matchWords(s string) (words []string, kind string) {
	for _, w := range smriti.ContentWords(s) {
		if k, ok := kindWords[w]; ok {
			if k != "" {
				kind = k
			}
			continue
		}
		words = append(words, w)
	}
	slices.Sort(words)
	return slices.Compact(words), kind
}

// bestMatch finds the item of items (among those accept allows) that ref
// names best: the same normalised text wins; otherwise the item sharing the
// most of ref's words relative to both (at least half of ref's words must be
// shared). Ties go to the earlier item.
func bestMatch(ref string, items []baseItem, accept func(baseItem) bool) (baseItem, bool) {
	q, kind := matchWords(ref)
	key := smriti.NormalizeItem(ref)
	var best baseItem
	bestScore := 0.0
	for _, it := range items {
		if !accept(it) || (kind != "" && it.Kind != kind) {
			continue
		}
		itKey := it.key
		if it.words == nil {
			itKey = smriti.NormalizeItem(it.Text)
		}
		if key != "" && itKey == key {
			return it, true
		}
		if len(q) == 0 {
			continue
		}
		iw := it.words
		if iw == nil {
			iw, _ = matchWords(it.Text)
		}
		shared := 0
		for _, w := range q {
			if _, ok := slices.BinarySearch(iw, w); ok {
				shared++
			}
		}
		if shared == 0 || shared*2 < len(q) {
			continue
		}
		if score := float64(shared) / float64(len(q)+len(iw)-shared); score > bestScore {
			best, bestScore = it, score
		}
	}
	return best, bestScore > 0
}
