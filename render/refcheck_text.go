package render

import (
	"strings"

	"smriti/coderef"
)

// MarkStaleText adds the inline "[check: STATUS]" marker of MarkStale to a
// brief that was rendered elsewhere (the server's markdown, as the
// SessionStart hook receives it): a bullet line whose text is exactly a
// stale item's text gets the marker, once per item. Lines that merely
// contain the text, and items the brief does not list, are left alone.
func MarkStaleText(md string, checks []coderef.ItemCheck) string {
	stale := coderef.Stale(checks)
	if len(stale) == 0 {
		return md
	}
	want := make(map[string]string, len(stale))
	for _, s := range stale {
		if _, dup := want[s.Text]; !dup {
			want[s.Text] = " [check: " + string(s.Status) + "]"
		}
	}
	lines := strings.Split(md, "\n")
	for i, line := range lines {
		text, ok := bulletText(line)
		if !ok {
			continue
		}
		if mark, hit := want[text]; hit {
			lines[i] = line + mark
			delete(want, text)
		}
	}
	return strings.Join(lines, "\n")
}

// bulletText is the item text of a markdown bullet ("- text", "- [ ] text",
// "- [x] text"), without the bullet.
func bulletText(line string) (string, bool) {
	rest, ok := strings.CutPrefix(line, "- ")
	if !ok {
		return "", false
	}
	for _, box := range []string{"[ ] ", "[x] ", "[X] "} {
		if t, cut := strings.CutPrefix(rest, box); cut {
			return t, true
		}
	}
	return rest, true
}
