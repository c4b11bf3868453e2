package app

import (
	"regexp"
	"strings"
	"testing"
)

func TestSlug(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Claude Code", "claude-code"},
		{"  --Codex__CLI--  ", "codex-cli"},
		{"agent-7", "agent-7"},
		{"a//b\\\\c", "a-b-c"},
		{"Ünïcødé name", "n-c-d-name"},
		{"日本語", "agent"},
		{"", "agent"},
		{"---", "agent"},
		{"\xff\xfeok\xff", "ok"},
	} {
		if got := slug(tc.in, "agent"); got != tc.want {
			t.Errorf("slug(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzSlugMatchesPattern holds slug to its definition: lower-case, every
// run of characters other than a-z and 0-9 replaced by one hyphen, hyphens
// trimmed from both ends.
func FuzzSlugMatchesPattern(f *testing.F) {
	for _, s := range []string{"Claude Code", "a--b", "Ünï", "\xff", "x y z", ""} {
		f.Add(s)
	}
	run := regexp.MustCompile(`[^a-z0-9]+`)
	f.Fuzz(func(t *testing.T, s string) {
		want := strings.Trim(run.ReplaceAllString(strings.ToLower(s), "-"), "-")
		if want == "" {
			want = "fallback"
		}
		if got := slug(s, "fallback"); got != want {
			t.Fatalf("slug(%q) = %q, want %q", s, got, want)
		}
	})
}
