package render_test

import (
	"path/filepath"
	"smriti/render"
	"smriti/tokenizer"
	"strings"
	"testing"
)

// The digest (what `smriti prime` shows) counts done tasks and divergent
// decisions, and the token line closes the brief with its o200k count.
func TestRenderBriefDigestWithTokenLine(t *testing.T) {
	o := render.BriefOptions{Now: now, Home: "/home/ada", Mode: render.BriefCompact, Digest: true, Tokens: tokenizer.CountO200K}
	got := render.RenderBrief(full(), o)
	golden(t, filepath.Join("testdata", "brief", "digest_with_token_line.md"), got)
	body, line, _ := strings.Cut(got, "\n~")
	if line != "603 tokens\n" || tokenizer.CountO200K(got) != 603 {
		t.Fatalf("token line %q for a text of %d tokens (body %d)", line, tokenizer.CountO200K(got), tokenizer.CountO200K(body))
	}
}

// WithTokenLine counts the text with its own line, and settles when the
// line's digits change the count.
func TestWithTokenLine(t *testing.T) {
	words := func(s string) int { return len(strings.Fields(s)) }
	got, n := render.WithTokenLine("one two three\n", words)
	if got != "one two three\n\n~5 tokens\n" || n != 5 {
		t.Fatalf("WithTokenLine = %q, %d", got, n)
	}
	// A counter for which the digits matter: each character is a token.
	chars := func(s string) int { return len(s) }
	got, n = render.WithTokenLine(strings.Repeat("x", 80)+"\n", chars)
	if n != len(got) || got != strings.Repeat("x", 80)+"\n\n~93 tokens\n" {
		t.Fatalf("WithTokenLine = %q, %d (len %d)", got, n, len(got))
	}
}
