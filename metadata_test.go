package smriti

import (
	"strings"
	"testing"
)

func TestCheckMetadata(t *testing.T) {
	deep := map[string]any{}
	m := deep
	for i := 0; i < MaxMetadataDepth; i++ {
		next := map[string]any{}
		m["d"] = next
		m = next
	}
	if err := CheckMetadata("metadata", deep); err == nil || !strings.Contains(err.Error(), "nests deeper than 32 levels") {
		t.Fatalf("33 levels: %v", err)
	}
	big := map[string]any{"blob": strings.Repeat("x", MaxMetadataBytes)}
	if err := CheckMetadata("metadata", big); err == nil || !strings.Contains(err.Error(), "the limit is 65536") {
		t.Fatalf("oversized: %v", err)
	}
	if err := CheckMetadata("metadata", map[string]any{"a": []any{"x\x00"}}); err == nil || err.Error() != "metadata.a[0] contains a NUL character" {
		t.Fatalf("NUL: %v", err)
	}
	if err := CheckMetadata("metadata", map[string]any{"a": []any{1.0, "ok", map[string]any{"b": true}}}); err != nil {
		t.Fatalf("clean metadata: %v", err)
	}
}
