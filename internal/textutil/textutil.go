// Package textutil holds small text helpers every layer uses: cutting a
// text to a length, counting its characters, the short forms of hashes,
// times and titles. They know nothing of Smriti's types.
package textutil

import (
	"strings"
	"unicode/utf8"
)

// Truncate cuts s to at most n runes, marking the cut with an ellipsis.
func Truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// RuneLen is the length text limits count: characters (runes), not bytes.
func RuneLen(s string) int { return utf8.RuneCountInString(s) }

// ShortHash is the display form of a checkpoint hash.
func ShortHash(h string) string {
	if len(h) > 7 {
		return h[:7]
	}
	return h
}

// LooksLikeID reports whether s has the shape of a UUID.
func LooksLikeID(s string) bool {
	return len(s) == 36 && strings.Count(s, "-") == 4
}
