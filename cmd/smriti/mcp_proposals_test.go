package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"smriti/client"
	"smriti/wire"
)

// The proposal tools over /mcp and over `smriti mcp` on stdio: a proposal
// saved with smriti_propose is listed and shown, edited, accepted once (a
// head that moved is rebased onto; a second accept is refused), and a
// conflicting one is refused with the accept's own retry, then settled.
func TestMCPProposals(t *testing.T) {
	base := startAPI(t)
	ctx := context.Background()
	c := client.NewClient(base)
	for name, s := range map[string]*sdk.ClientSession{"http": mcpOverAll(t, base), "stdio": mcpStdio(t, base, "--tools", "all")} {
		t.Run(name, func(t *testing.T) {
			space := "props-" + name
			sp, err := c.CreateSpace(ctx, wire.SpaceCreateRequest{Name: &space})
			if err != nil {
				t.Fatal(err)
			}
			call := func(tool string, args map[string]any) (*sdk.CallToolResult, string) {
				t.Helper()
				args["space"] = space
				res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
				if err != nil {
					t.Fatal(err)
				}
				return res, textOf(res)
			}
			save := func(title string, decisions ...string) string {
				t.Helper()
				res, got := call("smriti_propose", map[string]any{"content": map[string]any{"message": title, "decisions": decisions}})
				if res.IsError || !strings.HasPrefix(got, "Saved proposal `") {
					t.Fatalf("smriti_propose = %v %s", res.IsError, got)
				}
				raw, _ := json.Marshal(res.StructuredContent)
				var a struct {
					ID string `json:"proposal_id"`
				}
				json.Unmarshal(raw, &a)
				return a.ID[:8]
			}
			msg := "Pricing"
			if _, err := c.CommitToSpace(ctx, sp.ID, wire.SpaceCommitRequest{ContentFields: wire.ContentFields{Message: &msg,
				Decisions: []string{"Pricing is per-seat at $12", "Use Go"}}}); err != nil {
				t.Fatal(err)
			}
			p1 := save("Deploy", "Pricing is per-seat at $12", "Use Go", "Deploy with systemd")
			if _, got := call("smriti_list_proposals", map[string]any{}); !strings.Contains(got, "1 proposal(s) in "+space+":\n- `"+p1+"` [pending] Deploy — from mcp on `main`, ") {
				t.Fatalf("list = %s", got)
			}
			if res, got := call("smriti_edit_proposal", map[string]any{"proposal_id": p1, "summary": "Deploys"}); res.IsError || got != "Edited proposal `"+p1+"`: Deploy\n" {
				t.Fatalf("edit = %s", got)
			}
			if _, got := call("smriti_show_proposal", map[string]any{"proposal_id": p1}); !strings.Contains(got, "## Summary\nDeploys\n") || !strings.Contains(got, "- Deploy with systemd") {
				t.Fatalf("show = %s", got)
			}
			// Another writer saves first: the accept is rebased onto it.
			msg2 := "Budget"
			if _, err := c.CommitToSpace(ctx, sp.ID, wire.SpaceCommitRequest{ContentFields: wire.ContentFields{Message: &msg2,
				Decisions: []string{"Pricing is per-seat at $12", "Use Go", "Budget is 40k"}}}); err != nil {
				t.Fatal(err)
			}
			if res, got := call("smriti_accept_proposal", map[string]any{"proposal_id": p1}); res.IsError || !strings.Contains(got, "Accepted proposal `"+p1+"`") || !strings.Contains(got, "Rebased:") {
				t.Fatalf("accept = %s", got)
			}
			if res, got := call("smriti_accept_proposal", map[string]any{"proposal_id": p1}); !res.IsError || !strings.Contains(got, "is already accepted") {
				t.Fatalf("accept twice = %v %s", res.IsError, got)
			}
			// The same item changed on both sides: refused, then settled.
			p2 := save("Cheaper", "Pricing is per-seat at $10", "Use Go", "Budget is 40k", "Deploy with systemd")
			msg3 := "Dearer"
			head, _ := c.Checkpoints(ctx, sp.ID, "main")
			b := head[0].ID.String()
			if _, err := c.CommitToSpace(ctx, sp.ID, wire.SpaceCommitRequest{ContentFields: wire.ContentFields{Message: &msg3,
				Decisions: []string{"Pricing is per-seat at $14", "Use Go", "Budget is 40k", "Deploy with systemd"}}, ItemFields: wire.ItemFields{BaseCheckpointID: &b}}); err != nil {
				t.Fatal(err)
			}
			res, got := call("smriti_accept_proposal", map[string]any{"proposal_id": p2})
			if !res.IsError || !strings.Contains(got, "Nothing was saved; the proposal stays pending. 1 conflict(s)") ||
				!strings.Contains(got, "Retry: call smriti_accept_proposal again with proposal_id=\""+p2+"\" and resolutions=[{\"field\":\"decisions\",\"key\":\"d-") {
				t.Fatalf("conflicting accept = %v %s", res.IsError, got)
			}
			i := strings.Index(got, "resolutions=")
			var retry []map[string]any
			if err := json.Unmarshal([]byte(strings.Fields(got[i+len("resolutions="):])[0]), &retry); err != nil {
				t.Fatalf("retry in %s: %v", got, err)
			}
			if res, got := call("smriti_accept_proposal", map[string]any{"proposal_id": p2, "resolutions": retry}); res.IsError || !strings.Contains(got, "Accepted proposal `"+p2+"`") {
				t.Fatalf("settled accept = %s", got)
			}
			p3 := save("Not this")
			if res, got := call("smriti_reject_proposal", map[string]any{"proposal_id": p3}); res.IsError || got != "Rejected proposal `"+p3+"`: Not this\n" {
				t.Fatalf("reject = %s", got)
			}
			if _, got := call("smriti_list_proposals", map[string]any{}); got != "No pending proposals in "+space+".\n" {
				t.Fatalf("list after = %q", got)
			}
			if res, got := call("smriti_show_proposal", map[string]any{"proposal_id": "ffffffff"}); !res.IsError || !strings.Contains(got, "Proposal not found") {
				t.Fatalf("unknown = %s", got)
			}
		})
	}
}
