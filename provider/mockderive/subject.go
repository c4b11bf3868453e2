package mockderive

import (
	"slices"
	"strings"
	"unicode"

	"smriti"
)

// SameSubject reports whether a and b state the same thing with a different
// number or the opposite sense: "Access token TTL is 15 minutes" and
// "access token TTL is now 30 minutes", or "We will use Redis" and "We will
// not use Redis". Their words must agree once numbers, negations and filler
// words ("is", "we", "will", "now", …) are set aside, and at least two such
// words must remain, so "15 minutes" and "30 minutes" alone name no
// subject. Two statements that say exactly the same are not the same subject
// said differently: SameSubject is false for them.
func SameSubject(a, b string) bool { return subjectOf(a).same(subjectOf(b)) }

// subjectParts is a statement taken apart: its subject words (sorted,
// distinct, plural "s" dropped), its numbers in order, and whether it is
// negated (an odd number of negations).
type subjectParts struct {
	words, numbers []string
	negated        bool
}

func (p subjectParts) same(q subjectParts) bool {
	if len(p.words) < 2 || !slices.Equal(p.words, q.words) {
		return false
	}
	return !slices.Equal(p.numbers, q.numbers) || p.negated != q.negated
}

func subjectOf(s string) subjectParts {
	var p subjectParts
	for _, w := range strings.Fields(smriti.NormalizeItem(s)) {
		switch {
		case negations[w]:
			p.negated = !p.negated
		case numberWords[w] != "":
			p.numbers = append(p.numbers, numberWords[w])
		case hasDigit(w):
			p.numbers = append(p.numbers, w)
		case fillers[w]:
		default:
			p.words = append(p.words, singular(w))
		}
	}
	slices.Sort(p.words)
	p.words = slices.Compact(p.words)
	return p
}

func hasDigit(w string) bool {
	return strings.IndexFunc(w, unicode.IsDigit) >= 0
}

// singular drops a plural "s" from a word of more than three letters, so
// "1 minute" and "5 minutes" share their subject.
func singular(w string) string {
	if len([]rune(w)) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		return w[:len(w)-1]
	}
	return w
}

// Word lists, in NormalizeItem's form (lower case, apostrophes deleted).
var (
	negations = setOf("not no never dont doesnt didnt isnt arent wasnt werent wont cannot cant shouldnt mustnt without neither nor")
	fillers   = setOf("a an the is are was were be been being do does did we i you they it its this that these those " +
		"will shall should would must can could now still instead actually also then so going to of for as our us")
	numberWords = map[string]string{"zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5",
		"six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12"}
	// kindWords name an item's kind inside a reference to it ("drop the git
	// assumption"); they are not the words to match.
	kindWords = map[string]string{"decision": kindDecision, "decisions": kindDecision,
		"assumption": kindAssumption, "assumptions": kindAssumption, "task": kindTask, "tasks": kindTask,
		"question": kindQuestion, "questions": kindQuestion, "item": "", "items": ""}
)

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// matchWords are the words of a reference used to find the item it means:
// NormalizeItem's words without fillers and kind names, singular. kind is
// the item kind the reference names, if it names one.
func matchWords(s string) (words []string, kind string) {
	for _, w := range strings.Fields(smriti.NormalizeItem(s)) {
		if k, ok := kindWords[w]; ok {
			if k != "" {
				kind = k
			}
			continue
		}
		if fillers[w] {
			continue
		}
		words = append(words, singular(w))
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
