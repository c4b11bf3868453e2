package secrets

import (
	"math"
	"strings"
)

// The generic-api-key rule (gitleaks': a value assigned to a name holding
// key, token, secret, password, …) costs far more in gitleaks' detector
// than its expression does: every candidate runs through the rule's
// allowlist expressions before its entropy is checked. Most candidates in
// chat text are plain (see-vault-entry-04-rotated) and fail the entropy
// check anyway, or hold one of its stop words. plainValue finds the value the rule would capture after a
// keyword when that value is certain, so that a value whose entropy the
// rule would refuse never reaches the detector; when it is not certain the
// rule runs as it always did.

// plainValue is the value the rule captures after a keyword ending at
// text[at], and whether it is certain: after at most 20 of [ \t\w.-], at
// most 3 of [\s'"], a single ':' or '=' (or "=>"), at most 5 of [`'"\s], a
// run of [\w.=-] of 10 to 150 bytes that does not start with '=' and is
// followed by white space, a quote, ';' or the end of the text.
func plainValue(text string, at int) (string, bool) {
	i := at
	for n := 0; i < len(text) && n <= 20 && (nameByte(text[i]) || text[i] == ' ' || text[i] == '\t'); n++ {
		i++
	}
	for n := 0; i < len(text) && n < 3 && strings.IndexByte(" \t\r\n'\"", text[i]) >= 0; n++ {
		i++
	}
	switch {
	case i+1 < len(text) && text[i] == '=' && text[i+1] == '>':
		i += 2
	case i < len(text) && text[i] == ':' && (i+1 >= len(text) || text[i+1] != ':' && text[i+1] != '='):
		i++
	case i < len(text) && text[i] == '=' && (i+1 >= len(text) || text[i+1] != '='):
		i++
	default:
		return "", false
	}
	for n := 0; i < len(text) && n < 5 && strings.IndexByte("`'\" \t\r\n", text[i]) >= 0; n++ {
		i++
	}
	start := i
	for i < len(text) && (nameByte(text[i]) || text[i] == '=') {
		i++
	}
	v := text[start:i]
	if len(v) < 10 || len(v) > 150 || v[0] == '=' {
		return "", false
	}
	if i < len(text) && strings.IndexByte(" \t\r\n\v\f`'\";", text[i]) < 0 {
		return "", false
	}
	return v, true
}

// entropy is the Shannon entropy of s's characters in bits, as gitleaks
// computes it.
func entropy(s string) float64 {
	counts := map[rune]int{}
	n := 0
	for _, r := range s {
		counts[r]++
		n++
	}
	e := 0.0
	for _, c := range counts {
		p := float64(c) / float64(n)
		e -= p * math.Log2(p)
	}
	return e
}

// dropsValue says whether the rule drops a finding of value v whatever
// else it checks: too plain for its entropy check, or holding one of its
// stop words.
func (r *ruleScan) dropsValue(v string) bool {
	if entropy(v) <= r.entropyGate {
		return true
	}
	return r.stopwords.in(v)
}
