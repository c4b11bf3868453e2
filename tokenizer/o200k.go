package tokenizer

import (
	"smriti/internal/estimate"
	"strings"
	"sync"
)

// CountO200K counts text with O200K, the encoding the brief's "~N tokens"
// line, the state's brief_tokens and `smriti prime` report. Should the
// encoding fail to load it falls back to estimate.Tokens.
//
// The count is exact and cheap to repeat: a brief is counted many times
// while it is fitted to its budget, and again for every reader of the same
// head, so text is counted in pieces (o200kPieces) whose counts add up to
// the whole's, each remembered (o200kMemo).
func CountO200K(text string) int {
	enc, err := load(O200K)
	if err != nil {
		return estimate.Tokens(text)
	}
	n := 0
	for piece := range o200kPieces(text) {
		c, ok := o200kMemo.get(piece)
		if !ok {
			c = len(enc.EncodeOrdinary(piece))
			o200kMemo.put(piece, c)
		}
		n += c
	}
	return n
}

// o200kPieces splits text after a line break that is followed by neither
// white space nor '/'. O200K's split pattern never joins such a line break
// to what follows (the pieces that take line breaks are runs of white
// space and "punctuation, then line breaks or slashes"), and the encoder
// works on each pattern match alone, so the pieces' counts sum to the
// count of the whole: TestO200KPiecesAddUp checks it on the corpus.
func o200kPieces(text string) func(func(string) bool) {
	return func(yield func(string) bool) {
		start := 0
		for i := 0; i+1 < len(text); i++ {
			if text[i] != '\n' {
				continue
			}
			switch text[i+1] {
			case ' ', '\t', '\n', '\r', '\v', '\f', '/':
				continue
			}
			if next := text[i+1:]; strings.HasPrefix(next, "\u0085") || strings.HasPrefix(next, "\u00a0") || startsUnicodeSpace(next) {
				continue
			}
			if !yield(text[start : i+1]) {
				return
			}
			start = i + 1
		}
		if start < len(text) {
			yield(text[start:])
		}
	}
}

// startsUnicodeSpace reports whether s starts with white space outside
// ASCII, which the pattern's \s also matches.
func startsUnicodeSpace(s string) bool {
	if s == "" || s[0] < 0x80 {
		return false
	}
	for _, r := range s {
		return isSpace(r)
	}
	return false
}

func isSpace(r rune) bool {
	switch r {
	case 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// o200kMemo remembers the counts of recent pieces: at most memoBytes of
// text in each of two generations, the older dropped when the newer fills,
// so memory stays bounded and pieces in use stay in.
var o200kMemo = &countMemo{}

const memoBytes = 1 << 20

type countMemo struct {
	mu        sync.Mutex
	cur, prev map[string]int
	curBytes  int
}

func (m *countMemo) get(s string) (int, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if n, ok := m.cur[s]; ok {
		return n, true
	}
	n, ok := m.prev[s]
	if ok {
		m.putLocked(s, n)
	}
	return n, ok
}

func (m *countMemo) put(s string, n int) {
	if len(s) > memoBytes/16 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.putLocked(s, n)
}

func (m *countMemo) putLocked(s string, n int) {
	if m.cur == nil || m.curBytes+len(s) > memoBytes {
		m.prev, m.cur, m.curBytes = m.cur, make(map[string]int), 0
	}
	if _, ok := m.cur[s]; !ok {
		// A copy, so the memo never holds a whole brief through a slice of it.
		m.cur[strings.Clone(s)] = n
		m.curBytes += len(s)
	}
}

// forget drops every remembered count (the idle server gives the memory
// back).
func (m *countMemo) forget() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.cur, m.prev, m.curBytes = nil, nil, 0
}
