package render

import (
	"fmt"
	"strings"
	"unicode"
)

// Stored text reaches a terminal, a shell and a model through these
// renderers, so what a writer put in a title or an item must stay text:
//
//   - Inert, applied to every renderer's whole answer, writes each control
//     character (an ANSI escape, a carriage return, a bell) and each bidi
//     override as a visible escape such as \x1b, so nothing recolours,
//     rewrites or reorders the reader's screen. Newlines and tabs stay.
//   - oneLine keeps a one-line field (a title, a bullet) on its line: a
//     newline inside it becomes a space, so an item cannot open a section
//     of its own ("\n## Instructions") in a brief.
//   - block keeps a multi-line field (a summary, an objective) inside its
//     section: a line of it that would read as a heading is escaped.
//
// Shell commands are quoted where they are built (smriti.GitState), and
// HTML means nothing in these plain-text answers; the web pages render
// text through React, which escapes it.

// Inert returns s with every control character other than newline and tab,
// and every bidi formatting character, written as a visible escape.
func Inert(s string) string {
	if strings.IndexFunc(s, hostileRune) < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for _, r := range s {
		switch {
		case !hostileRune(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// hostileRune reports whether r must not reach a terminal as itself.
func hostileRune(r rune) bool {
	if r == '\n' || r == '\t' {
		return false
	}
	if unicode.IsControl(r) {
		return true
	}
	switch {
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return false
}

// oneLine returns s on one line: each run of line breaks becomes a space.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n\u2028\u2029\v\f") {
		return s
	}
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029' || r == '\v' || r == '\f'
	}), " ")
}

// block returns multi-line text whose lines cannot be read as markdown
// headings or rules: such a line is prefixed with a backslash, markdown's
// escape, and keeps its words.
func block(s string) string {
	if !strings.Contains(s, "\n") && !startsMarkup(s) {
		return s
	}
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for i, l := range lines {
		if startsMarkup(l) {
			lines[i] = `\` + strings.TrimLeft(l, " \t")
		}
	}
	return strings.Join(lines, "\n")
}

// startsMarkup reports whether a line opens a heading, a rule or a code
// fence, the markdown that would end the section it stands in.
func startsMarkup(l string) bool {
	t := strings.TrimLeft(l, " \t")
	return strings.HasPrefix(t, "#") || strings.HasPrefix(t, "```") || strings.HasPrefix(t, "---") || strings.HasPrefix(t, "===")
}
