package mockderive

import (
	"fmt"
	"smriti/intelligence"
	"strings"
	"unicode"

	"smriti"
)

var stopEntity = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("I USER ASSISTANT TODO OK Ok Yes No Thanks " +
		"Monday Tuesday Wednesday Thursday Friday Saturday Sunday " +
		"January February March April May June July August September October November December") {
		m[w] = true
	}
	return m
}()

type word struct {
	text       string
	start, end int
	initial    bool // first word of its sentence or clause
}

// adjacent reports whether only spaces separate w and next.
func (w word) adjacent(next word) bool { return next.start == w.end+1 }

func wordsOf(s string) []word {
	var out []word
	initial := true
	start := -1
	rs := []rune(s)
	for i := 0; i <= len(rs); i++ {
		if i < len(rs) && (isWordRune(rs[i]) || (start >= 0 && (rs[i] == '-' || rs[i] == '\'') && i+1 < len(rs) && isWordRune(rs[i+1]))) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			text := strings.TrimSuffix(string(rs[start:i]), "'s")
			out = append(out, word{text: text, start: start, end: i, initial: initial})
			initial = false
			start = -1
		}
		if i < len(rs) && strings.ContainsRune(".!?:;\n\"(", rs[i]) {
			initial = true
		}
	}
	return out
}

// properNouns collects words that appear capitalised other than first in a
// sentence: evidence that they are names. A word also seen as a name on its
// own, not next to another capitalised word, is recorded again as " "+word.
func properNouns(texts []string) map[string]bool {
	out := map[string]bool{}
	for _, t := range texts {
		for _, s := range sentences(t) {
			s, _ = bulletText(s)
			words := wordsOf(s)
			for i, w := range words {
				if w.initial || !capitalised(w.text) {
					continue
				}
				out[w.text] = true
				alone := (i == 0 || !words[i-1].adjacent(w) || !capitalised(words[i-1].text)) &&
					(i+1 == len(words) || !w.adjacent(words[i+1]) || !capitalised(words[i+1].text))
				if alone {
					out[" "+w.text] = true
				}
			}
		}
	}
	return out
}

func capitalised(w string) bool {
	for _, r := range w {
		return unicode.IsUpper(r)
	}
	return false
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) }

// sentences splits text at line breaks and at ". ", "! ", "? " (keeping the
// mark, so questions stay recognisable); "3.5" is not split.
func sentences(text string) []string {
	var out []string
	rs := []rune(text)
	start := 0
	emit := func(end int) {
		if s := strings.TrimSpace(string(rs[start:end])); s != "" {
			out = append(out, s)
		}
		start = end
	}
	for i, r := range rs {
		switch {
		case r == '\n':
			emit(i)
		case (r == '.' || r == '!' || r == '?') && (i+1 == len(rs) || unicode.IsSpace(rs[i+1])):
			emit(i + 1)
		}
	}
	emit(len(rs))
	return out
}

func trimEnd(s string) string {
	return strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s), ".!;:,"))
}

func upperFirst(s string) string {
	for i, r := range s {
		return string(unicode.ToUpper(r)) + s[i+len(string(r)):]
	}
	return s
}

// withoutSuspicious drops the lines that read like instructions to a model,
// so a title is never made of them.
func withoutSuspicious(s string) string {
	var keep []string
	for _, line := range strings.Split(s, "\n") {
		if !intelligence.IsSuspicious(line) {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}

// firstWords returns the first n words of the first non-empty line of s,
// without markdown heading marks or trailing punctuation, cut to limit.
func firstWords(s string, n, limit int) string {
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#>*- "))
		if line == "" || intelligence.IsSuspicious(line) {
			continue
		}
		f := strings.Fields(line)
		if len(f) > n {
			f = f[:n]
		}
		w := []rune(strings.TrimRight(strings.Join(f, " "), ".,;:!?"))
		if len(w) > limit {
			w = append(w[:limit-1], '…')
		}
		return string(w)
	}
	return ""
}

// dedupKey is the key under which an item counts as already noted: its
// normalised words, or the item itself when it has none (e.g. "...").
func dedupKey(s string) string {
	if k := smriti.NormalizeItem(s); k != "" {
		return k
	}
	return "\x00" + s
}

func (d *derivedDraft) counts() string {
	return fmt.Sprintf("%s, %s, %s and %s were noted.",
		plural(len(d.Decisions), "decision"), plural(len(d.Assumptions), "assumption"),
		plural(len(d.Tasks), "task"), plural(len(d.OpenQuestions), "open question"))
}

// answeringDecision finds a decision sharing most of the question's content
// words (words longer than three letters).
func answeringDecision(q string, decisions []string) (string, bool) {
	qw := contentWords(q)
	if len(qw) < 2 {
		return "", false
	}
	for _, d := range decisions {
		dw := contentWords(d)
		shared := 0
		for w := range qw {
			if dw[w] {
				shared++
			}
		}
		if shared*3 >= len(qw)*2 {
			return d, true
		}
	}
	return "", false
}

func contentWords(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.Fields(smriti.NormalizeItem(s)) {
		if len([]rune(w)) > 3 && !questionWords[w] {
			out[w] = true
		}
	}
	return out
}

var questionWords = map[string]bool{"should": true, "which": true, "what": true, "when": true, "where": true, "whether": true, "would": true, "could": true, "there": true, "that": true, "this": true, "with": true}
