package smriti

import (
	"strings"
	"testing"
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
