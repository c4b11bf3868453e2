package main

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"smriti/client"
	"smriti/wire"
)

// smriti_state with as_of answers the state at a checkpoint, each item
// with its span, over /mcp and over smriti mcp on stdio.
func TestMCPStateAsOf(t *testing.T) {
	base := startAPI(t)
	ctx := context.Background()
	c := client.NewClient(base)
	sp, err := c.CreateSpace(ctx, wire.SpaceCreateRequest{Name: new("then")})
	if err != nil {
		t.Fatal(err)
	}
	se, err := c.CreateSession(ctx, &sp.ID, "s", "mock", "")
	if err != nil {
		t.Fatal(err)
	}
	commit := func(msg string, decisions ...string) *wire.Commit {
		cp, err := c.Commit(ctx, wire.CommitRequest{RepoID: new(sp.ID.String()), SessionID: new(se.ID.String()), ContentFields: wire.ContentFields{Message: &msg, Decisions: decisions}})
		if err != nil {
			t.Fatal(err)
		}
		return cp
	}
	first := commit("first", "Adopt Postgres", "Ship on Fridays")
	second := commit("second", "Adopt Postgres")
	for name, s := range map[string]*sdk.ClientSession{"http": mcpOver(t, base), "stdio": mcpStdio(t, base)} {
		res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: "smriti_state", Arguments: map[string]any{"space": "then", "as_of": first.CommitHash[:10]}})
		if err != nil {
			t.Fatal(err)
		}
		got := textOf(res)
		for _, want := range []string{
			"# then as of `" + first.CommitHash[:7] + "` on `main`\n",
			"- Ship on Fridays (d-",
			"; since `" + first.CommitHash[:7] + "` (",
			"), until `" + second.CommitHash[:7] + "` (",
			"- Adopt Postgres (d-",
			"still held at the head)\n",
		} {
			if res.IsError || !strings.Contains(got, want) {
				t.Fatalf("%s: smriti_state as_of = error %v\n%s\nwant it to contain %q", name, res.IsError, got, want)
			}
		}
		res, _ = s.CallTool(ctx, &sdk.CallToolParams{Name: "smriti_state", Arguments: map[string]any{"space": "then", "as_of": "2000-01-01"}})
		if got := textOf(res); !res.IsError || !strings.Contains(got, "no checkpoint on this line of work was written at or before 2000-01-01T23:59:59Z") {
			t.Fatalf("%s: as_of before the first checkpoint = error %v %q", name, res.IsError, got)
		}
	}
}
