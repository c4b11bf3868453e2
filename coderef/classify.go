package coderef

import (
	"strings"

	"smriti"
)

// Verdict is what a ref's check found in the file's current text.
type Verdict struct {
	Status Status
	// Lines is where the cited text (or the cited symbol) is now: the new
	// lines of a moved span, the symbol's current lines when it changed;
	// nil when unknown or gone.
	Lines *smriti.LineRange
}

// Classify checks ref against the file's current text (exists false: the
// file is gone). A symbol ref is looked up by name first (Go files), so a
// function that moved with its body unchanged is moved and one whose body
// changed is changed at its new lines; a symbol no longer found, and a
// line ref, are looked for by their text: at the cited lines (fresh),
// elsewhere in the file with the same number of lines (moved), else
// changed. A ref with neither lines nor symbol cites the whole file.
func Classify(ref *smriti.ItemRef, src []byte, exists bool) Verdict {
	if !exists {
		return Verdict{Status: Gone}
	}
	lines := SplitLines(src)
	if ref.Symbol != nil && strings.HasSuffix(ref.Path, ".go") {
		if r, ok := GoSymbolSpan(src, *ref.Symbol); ok {
			span, _ := Span(lines, r)
			switch {
			case SpanHash(span) != ref.SpanHash:
				return Verdict{Status: Changed, Lines: &r}
			case ref.Lines != nil && *ref.Lines != r:
				return Verdict{Status: Moved, Lines: &r}
			}
			return Verdict{Status: Fresh, Lines: &r}
		}
	}
	if ref.Lines == nil {
		if SpanHash(lines) == ref.SpanHash {
			return Verdict{Status: Fresh}
		}
		return Verdict{Status: Changed}
	}
	if span, ok := Span(lines, *ref.Lines); ok && SpanHash(span) == ref.SpanHash {
		r := *ref.Lines
		return Verdict{Status: Fresh, Lines: &r}
	}
	if r, ok := findSpan(lines, ref.Lines.To-ref.Lines.From+1, ref.SpanHash, ref.Lines.From); ok {
		return Verdict{Status: Moved, Lines: &r}
	}
	return Verdict{Status: Changed}
}

// findSpan looks for n consecutive lines hashing to hash, the window
// nearest to line near winning a tie.
func findSpan(lines []string, n int, hash string, near int) (smriti.LineRange, bool) {
	if n < 1 || n > len(lines) {
		return smriti.LineRange{}, false
	}
	trimmed := make([]string, len(lines))
	for i, l := range lines {
		trimmed[i] = strings.TrimSpace(l)
	}
	best, found := smriti.LineRange{}, false
	dist := func(from int) int {
		if from > near {
			return from - near
		}
		return near - from
	}
	for i := 0; i+n <= len(lines); i++ {
		if SpanHash(trimmed[i:i+n]) != hash {
			continue
		}
		r := smriti.LineRange{From: i + 1, To: i + n}
		if !found || dist(r.From) < dist(best.From) {
			best, found = r, true
		}
	}
	return best, found
}
