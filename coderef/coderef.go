// Package coderef is the pure logic of items that cite code: the span hash
// of cited lines, the ref syntax people write (path, path:12, path:12-30),
// the citations an item's text makes (`cli/hooks.go:293`, `app.Send`),
// where a Go symbol's declaration lies in a file, and the classification
// of a ref against a file's current text (fresh, moved, changed, gone).
// It does no I/O: package refcheck reads the work tree and asks git. It
// must not import HTTP, SQL or any adapter.
package coderef

import (
	"crypto/sha256"
	"encoding/hex"
	"smriti/internal/textutil"
	"strconv"
	"strings"

	"smriti"
)

// Status is what a ref's check found.
type Status string

// Statuses, from the best to the worst news.
const (
	// Fresh: the cited text is where the ref says, unchanged.
	Fresh Status = "fresh"
	// Moved: the same text is in the file at other lines.
	Moved Status = "moved"
	// Changed: the cited text is no longer in the file.
	Changed Status = "changed"
	// Gone: the file is no longer in the work tree.
	Gone Status = "gone"
)

// rank orders statuses from the best to the worst news.
func (s Status) rank() int {
	switch s {
	case Fresh:
		return 0
	case Moved:
		return 1
	case Changed:
		return 2
	}
	return 3
}

// Worse reports whether s is worse news than t.
func (s Status) Worse(t Status) bool { return s.rank() > t.rank() }

// SplitLines splits source text into lines, without their line endings.
func SplitLines(src []byte) []string {
	s := string(src)
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// Normalise is the text a span hash covers: each line trimmed, blank lines
// dropped, joined by newlines, so re-indenting or re-spacing the code does
// not change it.
func Normalise(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l)
	}
	return b.String()
}

// SpanHash is the hex SHA-256 of the lines' normalised text.
func SpanHash(lines []string) string {
	sum := sha256.Sum256([]byte(Normalise(lines)))
	return hex.EncodeToString(sum[:])
}

// Span is lines[r.From-1 : r.To]; false when the range is past the end.
func Span(lines []string, r smriti.LineRange) ([]string, bool) {
	if r.From < 1 || r.To < r.From || r.To > len(lines) {
		return nil, false
	}
	return lines[r.From-1 : r.To], true
}

// ParseSpec reads a ref as people write it: "path", "path:12" or
// "path:12-30" (the path relative to the project root). EINVALID for a
// bad line range or path.
func ParseSpec(s string) (string, *smriti.LineRange, error) {
	s = strings.TrimSpace(s)
	p, lines := s, ""
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		p, lines = s[:i], s[i+1:]
	}
	p = strings.TrimPrefix(p, "./")
	if msg := textutil.PathProblem(p, smriti.MaxRefPathLen); msg != "" {
		return "", nil, smriti.Errorf(smriti.EINVALID, "ref %q: the path %s", textutil.Truncate(s, 80), msg)
	}
	if lines == "" {
		if strings.HasSuffix(s, ":") {
			return "", nil, smriti.Errorf(smriti.EINVALID, "ref %q: give lines after the colon (path:12 or path:12-30)", textutil.Truncate(s, 80))
		}
		return p, nil, nil
	}
	r, ok := parseRange(lines)
	if !ok {
		return "", nil, smriti.Errorf(smriti.EINVALID, "ref %q: lines must be N or FROM-TO with 1 <= FROM <= TO", textutil.Truncate(s, 80))
	}
	return p, r, nil
}

func parseRange(s string) (*smriti.LineRange, bool) {
	from, to, two := strings.Cut(s, "-")
	a, err := strconv.Atoi(from)
	if err != nil || a < 1 || a > smriti.MaxRefLine {
		return nil, false
	}
	b := a
	if two {
		if b, err = strconv.Atoi(to); err != nil || b < a || b > smriti.MaxRefLine {
			return nil, false
		}
	}
	return &smriti.LineRange{From: a, To: b}, true
}
