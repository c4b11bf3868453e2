package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The advertised schemas leave out additionalProperties, but an unknown
// argument is still refused, and a known one still works.
func TestMCPUnknownArgumentRefused(t *testing.T) {
	base := startAPI(t)
	session := mcpOverAll(t, base)
	list := listTools(t, session)
	for _, tool := range list.Tools {
		raw, _ := json.Marshal(tool.InputSchema)
		if json.Valid(raw) && containsKey(raw, "additionalProperties") {
			t.Fatalf("%s advertises additionalProperties: %s", tool.Name, raw)
		}
	}
	res, err := session.CallTool(context.Background(), &sdk.CallToolParams{Name: "smriti_create_space",
		Arguments: map[string]any{"name": "demo", "descripton": "typo"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || textOf(res) != `validating "arguments": validating root: unexpected additional properties ["descripton"]` {
		t.Fatalf("unknown argument: error=%v %q", res.IsError, textOf(res))
	}
}

func containsKey(raw []byte, key string) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	var walk func(any) bool
	walk = func(v any) bool {
		switch x := v.(type) {
		case map[string]any:
			for k, y := range x {
				if k == key || walk(y) {
					return true
				}
			}
		case []any:
			for _, y := range x {
				if walk(y) {
					return true
				}
			}
		}
		return false
	}
	return walk(v)
}

// smriti_create_space with a name the caller already has fails naming the
// existing space.
func TestMCPCreateSpaceNameTaken(t *testing.T) {
	base := startAPI(t)
	session := mcpOverAll(t, base)
	call := func() *sdk.CallToolResult {
		res, err := session.CallTool(context.Background(), &sdk.CallToolParams{Name: "smriti_create_space", Arguments: map[string]any{"name": "demo"}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	first := call()
	if first.IsError {
		t.Fatalf("first demo: %s", textOf(first))
	}
	id := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(textOf(first)), "Created space `"), "`: demo")
	second := call()
	want := "HTTP 409\nYou already have a space named \"demo\" (id " + id + "); choose another name"
	if !second.IsError || strings.TrimSpace(textOf(second)) != want {
		t.Fatalf("second demo: error=%v %q, want %q", second.IsError, textOf(second), want)
	}
}
