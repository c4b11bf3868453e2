package httpapi

import (
	"slices"
	"strings"
	"testing"
)

// TestEverySchemaFieldHasADocTag: every struct field that becomes a
// property of /openapi.json carries a doc:"…" tag, so the reference says
// what each field means. The failure names the Go field to tag.
func TestEverySchemaFieldHasADocTag(t *testing.T) {
	_, g := New(Config{}).openAPIDoc()
	missing := slices.Compact(slices.Sorted(slices.Values(g.undescribed)))
	if len(missing) > 0 {
		t.Errorf("%d struct fields become /openapi.json properties without a doc:\"...\" tag; add one to each:\n\t%s",
			len(missing), strings.Join(missing, "\n\t"))
	}
}
