package smriti

import (
	"slices"
	"strings"
	"unicode"
)

// Identity survives editing even for writers that send only text (the
// first implementation's clients, a hand-edited form, an import): when a
// checkpoint drops an item and adds one of the same kind that says nearly
// the same thing, the writer edited the item, so it is recorded as an
// update that keeps the item's id; and at merge, two sides that each
// replaced one base item with a near-copy changed that item, which is a
// conflict on it rather than two unrelated additions.
//
// The rule (NearSameItem) works on an item's words: NormalizeItem's words,
// a plural "s" dropped, without the filler words below. Two texts are near
// the same when
//
//   - at least 60 % of their words are shared (Jaccard index of the two word
//     sets ≥ 0.6) and at least two words are shared; or
//   - they state the same subject with a different number or the opposite
//     sense: once numbers and negations are set aside the words are the
//     same (at least two of them), and the numbers or the negation differ
//     ("Access token TTL is 15 minutes" / "Access token TTL is 30 minutes",
//     "We will use Redis" / "We will not use Redis").
//
// Identical texts are near the same too (the exact match happens first).

// minItemSimilarity is the Jaccard index at or above which two item texts
// are near the same.
const minItemSimilarity = 0.6

// Word lists of the similarity rule, in NormalizeItem's form (lower case,
// apostrophes deleted).
var (
	itemNegations = wordSet("not no never dont doesnt didnt isnt arent wasnt werent wont cannot cant shouldnt mustnt without neither nor")
	itemFillers   = wordSet("a an the is are was were be been being do does did we i you they it its this that these those " +
		"will shall should would must can could now still instead actually also then so going to of for as our us")
	itemNumberWords = map[string]string{"zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5",
		"six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12"}
)

func wordSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// itemWords is an item text taken apart for the similarity rule: its words
// (sorted, distinct; numbers and negations included), its subject words
// (the same without numbers and negations), its numbers in order, and
// whether it is negated (an odd number of negations). Words are numbered by
// a vocabulary shared by the texts being compared, so comparing two texts
// compares integers.
type itemWords struct {
	words, subject []int32
	numbers        []string
	negated        bool
}

// vocabulary numbers words.
type vocabulary map[string]int32

func (v vocabulary) id(w string) int32 {
	if n, ok := v[w]; ok {
		return n
	}
	n := int32(len(v))
	v[w] = n
	return n
}

func (v vocabulary) wordsOf(s string) itemWords {
	var p itemWords
	for _, w := range strings.Fields(NormalizeItem(s)) {
		switch {
		case itemNegations[w]:
			p.negated = !p.negated
			p.words = append(p.words, v.id(w))
		case itemNumberWords[w] != "":
			p.numbers = append(p.numbers, itemNumberWords[w])
			p.words = append(p.words, v.id(itemNumberWords[w]))
		case strings.IndexFunc(w, unicode.IsDigit) >= 0:
			p.numbers = append(p.numbers, w)
			p.words = append(p.words, v.id(w))
		case itemFillers[w]:
		default:
			n := v.id(singularWord(w))
			p.subject = append(p.subject, n)
			p.words = append(p.words, n)
		}
	}
	slices.Sort(p.words)
	p.words = slices.Compact(p.words)
	slices.Sort(p.subject)
	p.subject = slices.Compact(p.subject)
	return p
}

// singularWord drops a plural "s" from a word of more than three letters,
// so "1 minute" and "5 minutes" share their words ("class" keeps its "ss").
func singularWord(w string) string {
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		return w[:len(w)-1]
	}
	return w
}

// ContentWords are the words of an item text that say what it is about:
// NormalizeItem's words without the filler words of the similarity rule,
// a plural "s" dropped, in order.
func ContentWords(s string) []string {
	var out []string
	for _, w := range strings.Fields(NormalizeItem(s)) {
		if !itemFillers[w] {
			out = append(out, singularWord(w))
		}
	}
	return out
}

// similarity scores how near two taken-apart texts are: 0 when they are
// not near the same, else in (0, 1], higher for nearer (the Jaccard index,
// or minItemSimilarity for a same-subject match below it).
func (p itemWords) similarity(q itemWords) float64 {
	shared := 0
	for i, j := 0, 0; i < len(p.words) && j < len(q.words); {
		switch a, b := p.words[i], q.words[j]; {
		case a == b:
			shared++
			i++
			j++
		case a < b:
			i++
		default:
			j++
		}
	}
	union := len(p.words) + len(q.words) - shared
	if union > 0 && shared >= 2 {
		if jac := float64(shared) / float64(union); jac >= minItemSimilarity {
			return jac
		}
	}
	if p.sameSubject(q) {
		return minItemSimilarity
	}
	return 0
}

func (p itemWords) sameSubject(q itemWords) bool {
	return len(p.subject) >= 2 && slices.Equal(p.subject, q.subject) &&
		(!slices.Equal(p.numbers, q.numbers) || p.negated != q.negated)
}

// NearSameItem reports whether two item texts say nearly the same thing
// (see the rule above), so that replacing one with the other is an edit.
func NearSameItem(a, b string) bool {
	if ItemKey(a) == ItemKey(b) {
		return true
	}
	v := vocabulary{}
	return v.wordsOf(a).similarity(v.wordsOf(b)) > 0
}

// SameSubject reports whether a and b state the same subject with a
// different number or the opposite sense (the second half of the rule);
// false for two texts that say exactly the same.
func SameSubject(a, b string) bool {
	v := vocabulary{}
	return v.wordsOf(a).sameSubject(v.wordsOf(b))
}

// pairNearSame pairs removed items with added items of the same kind that
// are near the same, best pairs first (ties: the earlier removed item, then
// the earlier added one); each item is in at most one pair. It returns,
// for each paired added index, the removed index.
func pairNearSame(removed, added []*Item) map[int]int {
	if len(removed) == 0 || len(added) == 0 {
		return nil
	}
	type cand struct {
		r, a  int
		score float64
	}
	v := vocabulary{}
	rw := make([]itemWords, len(removed))
	for i, it := range removed {
		rw[i] = v.wordsOf(it.Text)
	}
	var cands []cand
	for ai, a := range added {
		aw := v.wordsOf(a.Text)
		for ri, r := range removed {
			if r.Kind != a.Kind {
				continue
			}
			if s := rw[ri].similarity(aw); s > 0 {
				cands = append(cands, cand{ri, ai, s})
			}
		}
	}
	if len(cands) == 0 {
		return nil
	}
	slices.SortFunc(cands, func(x, y cand) int {
		switch {
		case x.score > y.score:
			return -1
		case x.score < y.score:
			return 1
		case x.r != y.r:
			return x.r - y.r
		}
		return x.a - y.a
	})
	out := map[int]int{}
	usedR := map[int]bool{}
	for _, c := range cands {
		if usedR[c.r] {
			continue
		}
		if _, ok := out[c.a]; ok {
			continue
		}
		usedR[c.r] = true
		out[c.a] = c.r
	}
	return out
}
