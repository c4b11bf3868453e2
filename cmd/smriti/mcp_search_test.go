package main

import (
	"context"
	"smriti/client"
	"smriti/wire"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestMCPSearch(t *testing.T) {
	base := startAPI(t)
	c := client.NewClient(base)
	ctx := context.Background()
	repo, err := c.CreateSpace(ctx, wire.SpaceCreateRequest{Name: new("trip"), Description: new("")})
	if err != nil {
		t.Fatal(err)
	}
	rid := repo.ID.String()
	se, err := c.CreateSession(ctx, &repo.ID, "", "mock", "")
	if err != nil {
		t.Fatal(err)
	}
	sid := se.ID.String()
	msg := "Night train to Adelaide"
	cp, err := c.Commit(ctx, wire.CommitRequest{RepoID: &rid, SessionID: &sid, ContentFields: wire.ContentFields{Message: &msg, Decisions: []string{"Sleeper cabin"}}})
	if err != nil {
		t.Fatal(err)
	}
	session := mcpOver(t, base)
	cases := []struct {
		name    string
		args    map[string]any
		isError bool
		want    string
	}{
		{"Found", map[string]any{"query": "sleeper", "space": "trip"}, false,
			"1 result(s) for \"sleeper\":\n\n- [checkpoint] Night train to Adelaide (main@" + cp.CommitHash[:7] + ") `" + cp.ID.String() + "`\n  Night train to Adelaide · **Sleeper** cabin"},
		{"Nothing", map[string]any{"query": "kangaroo"}, false, `Nothing matches "kangaroo".`},
		{"BadKind", map[string]any{"query": "x", "kind": "space"}, true, "kind must be checkpoint, turn or note"},
		{"UnknownSpace", map[string]any{"query": "x", "space": "nosuch"}, true, "nosuch"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := session.CallTool(ctx, &sdk.CallToolParams{Name: "smriti_search", Arguments: tc.args})
			if err != nil {
				t.Fatal(err)
			}
			got := textOf(res)
			if res.IsError != tc.isError || !strings.Contains(got, tc.want) {
				t.Fatalf("isError=%v text:\n%s\nwant %v containing\n%s", res.IsError, got, tc.isError, tc.want)
			}
		})
	}
}
