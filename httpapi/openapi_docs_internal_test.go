package httpapi

import (
	"maps"
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

// TestEveryPropertyAndOperationIsDescribed reads the document itself, so
// schemas a type writes by hand (apiSchema) are held to the same rule:
// every property has a description, every operation a summary and its
// error answers, and required query parameters say so.
func TestEveryPropertyAndOperationIsDescribed(t *testing.T) {
	doc := New(Config{}).OpenAPI()
	var bad []string
	var walk func(where string, s map[string]any)
	walk = func(where string, s map[string]any) {
		if props, ok := s["properties"].(map[string]any); ok {
			for _, name := range slices.Sorted(maps.Keys(props)) {
				p, _ := props[name].(map[string]any)
				if d, _ := p["description"].(string); strings.TrimSpace(d) == "" {
					bad = append(bad, where+"."+name)
				}
				walk(where+"."+name, p)
			}
		}
		for _, k := range []string{"oneOf", "anyOf", "allOf"} {
			if alts, ok := s[k].([]any); ok {
				for _, a := range alts {
					if m, ok := a.(map[string]any); ok {
						walk(where, m)
					}
				}
			}
		}
		if items, ok := s["items"].(map[string]any); ok {
			walk(where+"[]", items)
		}
	}
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(schemas)) {
		walk(name, schemas[name].(map[string]any))
	}
	paths := doc["paths"].(map[string]any)
	for _, path := range slices.Sorted(maps.Keys(paths)) {
		for method, op := range paths[path].(map[string]any) {
			o := op.(map[string]any)
			if s, _ := o["summary"].(string); strings.TrimSpace(s) == "" {
				t.Errorf("%s %s has no summary", method, path)
			}
			errs := 0
			for code := range o["responses"].(map[string]any) {
				if code >= "400" {
					errs++
				}
			}
			if errs == 0 {
				t.Errorf("%s %s lists no error answers", method, path)
			}
			// Schemas written inline (by apiSchema) live here, not in components.
			var bodies []any
			if rb, ok := o["requestBody"].(map[string]any); ok {
				bodies = append(bodies, rb)
			}
			for _, r := range o["responses"].(map[string]any) {
				bodies = append(bodies, r)
			}
			for _, b := range bodies {
				content, _ := b.(map[string]any)["content"].(map[string]any)
				for _, c := range content {
					if s, ok := c.(map[string]any)["schema"].(map[string]any); ok {
						walk(method+" "+path, s)
					}
				}
			}
		}
	}
	if len(bad) > 0 {
		t.Errorf("%d properties of /openapi.json have no description:\n\t%s", len(bad), strings.Join(bad, "\n\t"))
	}
	imp := paths["/api/v5/import/transcript"].(map[string]any)["post"].(map[string]any)
	for _, p := range imp["parameters"].([]any) {
		if q := p.(map[string]any); q["name"] == "space_id" && q["required"] != true {
			t.Errorf("transcript import's space_id = %v, want required", q)
		}
	}
}
