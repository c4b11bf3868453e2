// Package secrets finds credentials in text and replaces each with a visible
// marker naming the rule that found it, so a key pasted into a message, a
// checkpoint or a transcript never becomes stored state.
//
// Detection is gitleaks' (github.com/zricethezav/gitleaks/v8): its default
// rules, entropy checks and allowlists, extended with our own rules for what
// it misses (rules.go) and without the rules that fire on ordinary technical
// prose (disabledRules). What is ours is the scheduling: each rule runs only
// on a window of text around an occurrence of one of its keywords, found for
// all rules at once by one Aho-Corasick pass, instead of on the whole text
// whenever the keyword appears anywhere in it. Rules whose expressions span
// lines (private key blocks, multi-line curl commands) run on the whole text.
//
// The package imports no other smriti package.
package secrets

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
)

// Finding is one secret in a text: which rule found it, where it is (byte
// offsets, End exclusive) and a fingerprint that names the value without
// holding it (the first 16 hex digits of its SHA-256).
type Finding struct {
	Rule        string
	Fingerprint string
	Start, End  int
}

// Marker is what replaces a secret found by rule.
func Marker(rule string) string { return "[redacted: " + rule + "]" }

// Fingerprint names a secret value without holding it.
func Fingerprint(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:8])
}

// Warm builds the rule set now (it is built on first use otherwise, which
// takes a noticeable fraction of a second): a server calls it in the
// background as it starts.
func Warm() { scanner() }

// Find returns the secrets in text, in order, not overlapping.
func Find(text string) []Finding {
	if text == "" {
		return nil
	}
	return scanner().find(text)
}

// Redact replaces each secret in text with Marker(rule) and says what it
// replaced. A text without secrets comes back unchanged, with nil.
func Redact(text string) (string, []Finding) {
	fs := Find(text)
	if len(fs) == 0 {
		return text, nil
	}
	return Apply(text, fs), fs
}

// Apply replaces the spans of findings (as returned by Find, possibly
// filtered) with their markers.
func Apply(text string, findings []Finding) string {
	if len(findings) == 0 {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	at := 0
	for _, f := range findings {
		b.WriteString(text[at:f.Start])
		b.WriteString(Marker(f.Rule))
		at = f.End
	}
	b.WriteString(text[at:])
	return b.String()
}

// merge orders findings and resolves overlaps: overlapping spans become one,
// named by the more specific rule (a provider's rule over one that finds any
// value by the name it is assigned to; the longer span otherwise).
func merge(fs []Finding) []Finding {
	if len(fs) < 2 {
		return fs
	}
	sort.Slice(fs, func(i, j int) bool {
		if fs[i].Start != fs[j].Start {
			return fs[i].Start < fs[j].Start
		}
		if fs[i].End != fs[j].End {
			return fs[i].End > fs[j].End
		}
		return fs[i].Rule < fs[j].Rule
	})
	out := fs[:1]
	for _, f := range fs[1:] {
		last := &out[len(out)-1]
		if f.Start >= last.End {
			out = append(out, f)
			continue
		}
		if better(f, *last) {
			last.Rule, last.Fingerprint = f.Rule, f.Fingerprint
		}
		last.End = max(last.End, f.End)
	}
	return out
}

func better(a, b Finding) bool {
	ga, gb := generic(a.Rule), generic(b.Rule)
	if ga != gb {
		return gb
	}
	return a.End-a.Start > b.End-b.Start
}

// generic: the rules that find a value by the name it is assigned to, not by
// its own format.
func generic(rule string) bool {
	return strings.Contains(rule, "generic") || rule == "password-assignment"
}
