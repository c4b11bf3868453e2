package main

import (
	"context"
	"regexp"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// smriti_create_checkpoint with an object as content saves the fields as given,
// with no model; bad payloads are refused with what is wrong.
func TestMCPCreateCheckpointStructured(t *testing.T) {
	base := startAPI(t)
	session := mcpOverAll(t, base)
	call := func(name string, args map[string]any) *sdk.CallToolResult {
		t.Helper()
		res, err := session.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := call("smriti_create_space", map[string]any{"name": "demo"}); res.IsError {
		t.Fatal(textOf(res))
	}
	cp := map[string]any{"message": "Chose SQLite", "decisions": []any{"SQLite by default"},
		"tasks": []any{"Write the migration", map[string]any{"text": "Ship it", "id": "t2", "blocked_by": "t1"}}}
	res := call("smriti_create_checkpoint", map[string]any{"space": "demo", "content": cp})
	created := regexp.MustCompile("^Created checkpoint `([0-9a-f]{7})` on branch `main`: Chose SQLite\n$").FindStringSubmatch(textOf(res))
	if res.IsError || created == nil {
		t.Fatalf("structured checkpoint: error=%v %q", res.IsError, textOf(res))
	}
	show := textOf(call("smriti_show_checkpoint", map[string]any{"checkpoint_id": created[1]}))
	for _, want := range []string{"SQLite by default", "Write the migration", "Ship it"} {
		if !strings.Contains(show, want) {
			t.Fatalf("checkpoint lacks %q:\n%s", want, show)
		}
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"space": "demo", "content": map[string]any{"decisions": []any{"x"}}},
			"HTTP 422\ncontent.message must be a non-empty string (the checkpoint's title)"},
		{map[string]any{"space": "demo", "content": map[string]any{"message": "m", "decision": []any{"x"}}},
			`HTTP 422` + "\n" + `content: json: unknown field "decision"`},
		{map[string]any{"space": "demo", "content": "# Notes", "checkpoint": cp},
			`validating "arguments": validating root: unexpected additional properties ["checkpoint"]`},
		{map[string]any{"space": "demo", "content": ""},
			"HTTP 422\ncontent must be a non-empty markdown string or a checkpoint object"},
	} {
		res := call("smriti_create_checkpoint", c.args)
		if got := strings.TrimSpace(textOf(res)); !res.IsError || got != c.want {
			t.Errorf("%v: error=%v %q, want %q", c.args, res.IsError, got, c.want)
		}
	}
}
