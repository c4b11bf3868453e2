package mcp

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"smriti/search"
)

// Every tool and every parameter of its input schema, nested ones
// included, has a description: an agent reads nothing else.
func TestEveryToolAndParameterIsDescribed(t *testing.T) {
	cs := connectConfig(t, Config{Ops: searchingOps{&fakeOps{}}, Tools: ToolsetAll})
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, tool := range list.Tools {
		if strings.TrimSpace(tool.Description) == "" {
			missing = append(missing, tool.Name)
		}
		raw, _ := json.Marshal(tool.InputSchema)
		var schema map[string]any
		if err := json.Unmarshal(raw, &schema); err != nil {
			t.Fatal(err)
		}
		missing = append(missing, undescribed(tool.Name, schema)...)
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Fatalf("%d without a description:\n%s", len(missing), strings.Join(missing, "\n"))
	}
	if len(list.Tools) != 39 {
		t.Fatalf("%d tools listed, want 39", len(list.Tools))
	}
}

// undescribed lists the properties under schema (path-named) that have no
// description, walking object properties and array items.
func undescribed(path string, schema map[string]any) []string {
	var out []string
	props, _ := schema["properties"].(map[string]any)
	for name, p := range props {
		ps, _ := p.(map[string]any)
		if d, _ := ps["description"].(string); strings.TrimSpace(d) == "" {
			out = append(out, path+"."+name)
		}
		out = append(out, undescribed(path+"."+name, ps)...)
	}
	if items, ok := schema["items"].(map[string]any); ok {
		out = append(out, undescribed(path+"[]", items)...)
	}
	return out
}

// searchingOps is Ops with search, so smriti_search is registered.
type searchingOps struct{ *fakeOps }

func (searchingOps) Search(context.Context, search.Query) ([]*search.SearchHit, error) {
	return nil, nil
}
