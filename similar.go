package smriti

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Identity survives editing even for writers that send only text (the
// first implementation's clients, a hand-edited form, an import): when a
// checkpoint drops an item and adds one of the same kind that says nearly
// the same thing, the writer edited the item, so it is recorded as an
// update that keeps the item's id; and at merge, two sides that each
// replaced one base item with a near-copy changed that item, which is a
// conflict on it rather than two unrelated additions.
//
// The rule (nearSameItem) works on an item's words: NormalizeItem's words,
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

// Word classes of the similarity rule, looked up once per word.
const (
	wordNegation = 1 + iota
	wordNumber
	wordFiller
)

// itemWordClass classes every word of the lists above, in the order
// wordsOf tests them (negation, number word, filler).
var itemWordClass = func() map[string]uint8 {
	m := map[string]uint8{}
	for w := range itemFillers {
		m[w] = wordFiller
	}
	for w := range itemNumberWords {
		m[w] = wordNumber
	}
	for w := range itemNegations {
		m[w] = wordNegation
	}
	return m
}()

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
	// NormalizeItem's words are separated by single spaces.
	for rest := NormalizeItem(s); rest != ""; {
		w, tail, _ := strings.Cut(rest, " ")
		rest = tail
		class := itemWordClass[w]
		switch {
		case class == wordNegation:
			p.negated = !p.negated
			p.words = append(p.words, v.id(w))
		case class == wordNumber:
			p.numbers = append(p.numbers, itemNumberWords[w])
			p.words = append(p.words, v.id(itemNumberWords[w]))
		case hasDigit(w):
			p.numbers = append(p.numbers, w)
			p.words = append(p.words, v.id(w))
		case class == wordFiller:
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

// hasDigit reports whether w has a digit of any script.
func hasDigit(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; '0' <= c && c <= '9' {
			return true
		} else if c >= utf8.RuneSelf {
			return strings.IndexFunc(w[i:], unicode.IsDigit) >= 0
		}
	}
	return false
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
	// shared <= the smaller set and union >= the larger: when their ratio
	// is below the bound, so is the Jaccard index.
	if small, large := min(len(p.words), len(q.words)), max(len(p.words), len(q.words)); large > 0 && float64(small)/float64(large) < minItemSimilarity {
		if p.sameSubject(q) {
			return minItemSimilarity
		}
		return 0
	}
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

// nearSameItem reports whether two item texts say nearly the same thing
// (see the rule above), so that replacing one with the other is an edit.
func nearSameItem(a, b string) bool {
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
		r, a  int32
		score int32 // index in scores
	}
	v := vocabulary{}
	rw := make([]itemWords, len(removed))
	for i, it := range removed {
		rw[i] = v.wordsOf(it.Text)
	}
	aw := make([]itemWords, len(added))
	for i, it := range added {
		aw[i] = v.wordsOf(it.Text)
	}
	// Candidates in (removed, added) order, each with its score's index
	// among the distinct scores (few: ratios of small counts); the stable
	// bucketing by score below keeps that order within a score.
	var cands []cand
	var scores []float64
	index := map[float64]int32{} // used once scores outgrows a linear search
	scoreIndex := func(s float64) int32 {
		if len(scores) <= 16 {
			for i, x := range scores {
				if x == s {
					return int32(i)
				}
			}
		} else if i, ok := index[s]; ok {
			return i
		}
		scores = append(scores, s)
		if len(scores) > 16 {
			if len(index) == 0 {
				for i, x := range scores {
					index[x] = int32(i)
				}
			}
			index[s] = int32(len(scores) - 1)
		}
		return int32(len(scores) - 1)
	}
	for ri, r := range removed {
		for ai, a := range added {
			if r.Kind != a.Kind {
				continue
			}
			if s := rw[ri].similarity(aw[ai]); s > 0 {
				cands = append(cands, cand{int32(ri), int32(ai), scoreIndex(s)})
			}
		}
	}
	if len(cands) == 0 {
		return nil
	}
	// Best pairs first: bucketed by score, highest first, rather than
	// sorted.
	byScore := make([]int32, len(scores))
	for i := range byScore {
		byScore[i] = int32(i)
	}
	slices.SortFunc(byScore, func(x, y int32) int {
		switch {
		case scores[x] > scores[y]:
			return -1
		case scores[x] < scores[y]:
			return 1
		}
		return 0
	})
	rank := make([]int32, len(scores))
	for r, i := range byScore {
		rank[i] = int32(r)
	}
	start := make([]int, len(scores)+1)
	for _, c := range cands {
		start[rank[c.score]+1]++
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	ordered := make([]cand, len(cands))
	for _, c := range cands {
		k := rank[c.score]
		ordered[start[k]] = c
		start[k]++
	}
	out := map[int]int{}
	usedR := make([]bool, len(removed))
	usedA := make([]bool, len(added))
	for _, c := range ordered {
		if usedR[c.r] || usedA[c.a] {
			continue
		}
		usedR[c.r], usedA[c.a] = true, true
		out[int(c.a)] = int(c.r)
	}
	return out
}
