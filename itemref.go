package smriti

import (
	"smriti/internal/textutil"
	"strconv"
	"strings"
)

// Items may cite code: a decision "retries live in client/retry.go" carries
// a ref naming that file, the lines (or the Go symbol) it means, the commit
// it was written against and a hash of the cited text, so whoever reads the
// state later can check the citation against their own work tree before
// relying on it (package coderef classifies, package refcheck reads git).

// ItemRef is one citation of code by an item.
type ItemRef struct {
	Path     string     `json:"path" doc:"The file, relative to the project root, with forward slashes"`
	Lines    *LineRange `json:"lines" doc:"The cited lines at commit (1-based, inclusive); null when the ref names a symbol or the whole file"`
	Symbol   *string    `json:"symbol" doc:"The Go symbol cited (Name, Type.Method or pkg.Name); null when none"`
	Commit   string     `json:"commit" doc:"The git commit the citation was written against (40 or 64 hex digits)"`
	SpanHash string     `json:"span_hash" doc:"SHA-256 (hex) of the cited lines' normalised text at commit: each line trimmed, blank lines dropped"`
}

// LineRange is a span of lines, 1-based and inclusive.
type LineRange struct {
	From int `json:"from" doc:"First line"`
	To   int `json:"to" doc:"Last line (at least from)"`
}

// ValidateRefs checks an item's refs: at most MaxRefsPerItem, each with a
// clean relative path, a line range in order, a commit and a span hash in
// hex. EUNPROCESSABLE names the first bad field.
func ValidateRefs(refs []ItemRef) error {
	if len(refs) > MaxRefsPerItem {
		return Errorf(EUNPROCESSABLE, "refs has %d entries; at most %d are allowed", len(refs), MaxRefsPerItem)
	}
	for i := range refs {
		if err := refs[i].Validate(); err != nil {
			return Errorf(EUNPROCESSABLE, "refs[%d].%s", i, ErrorMessage(err))
		}
	}
	return nil
}

// Validate checks one ref (see ValidateRefs).
func (r *ItemRef) Validate() error {
	if msg := textutil.PathProblem(r.Path, MaxRefPathLen); msg != "" {
		return Errorf(EUNPROCESSABLE, "path %s", msg)
	}
	if l := r.Lines; l != nil && (l.From < 1 || l.To < l.From || l.To > MaxRefLine) {
		return Errorf(EUNPROCESSABLE, "lines must run from 1 or more to a last line no smaller than the first (got %d-%d)", l.From, l.To)
	}
	if s := r.Symbol; s != nil && (strings.TrimSpace(*s) == "" || len(*s) > maxSymbolLen || strings.ContainsAny(*s, " \t\n\r`")) {
		return Errorf(EUNPROCESSABLE, "symbol must be a Go name such as Send, Type.Method or pkg.Name")
	}
	if !hexOfLen(r.Commit, 40) && !hexOfLen(r.Commit, 64) {
		return Errorf(EUNPROCESSABLE, "commit must be a full git commit id (40 or 64 lowercase hex digits)")
	}
	if !hexOfLen(r.SpanHash, 64) {
		return Errorf(EUNPROCESSABLE, "span_hash must be 64 lowercase hex digits (SHA-256)")
	}
	return nil
}

func hexOfLen(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// String is the ref as people write it: path, path:12 or path:12-30, or
// path#Symbol.
func (r *ItemRef) String() string {
	s := r.Path
	if r.Symbol != nil {
		s += "#" + *r.Symbol
	}
	if r.Lines != nil {
		s += ":" + r.Lines.String()
	}
	return s
}

// String is "12" for one line, "12-30" for several.
func (l LineRange) String() string {
	if l.From == l.To {
		return strconv.Itoa(l.From)
	}
	return strconv.Itoa(l.From) + "-" + strconv.Itoa(l.To)
}

// ListItems lists the content's items in checkpoint order, without ids
// (the classic lists read as items).
func (c *Content) ListItems() []Item { return itemsOfContent(c) }
