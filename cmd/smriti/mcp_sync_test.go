package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"smriti/client"
	"smriti/internal/textutil"
	"smriti/wire"
)

// TestMCPSyncThroughAGitRepository: an agent on each of two laptops syncs
// one space through a bare git repository with the MCP sync tools — laptop
// A over the server's own /mcp (the App in-process), laptop B over
// `smriti mcp` on stdio (through the HTTP client). B's push after A's is
// refused with the calls to make; B fetches, pulls (one conflict waits as
// a proposal), accepts, pushes; A's pull fast-forwards.
func TestMCPSyncThroughAGitRepository(t *testing.T) {
	ctx := context.Background()
	bare := filepath.Join(t.TempDir(), "notes.git")
	if out, err := exec.Command("git", "init", "--bare", "--quiet", bare).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	t.Setenv("SMRITI_GIT_CACHE", filepath.Join(t.TempDir(), "cache-a"))
	baseA := startAPI(t)
	t.Setenv("SMRITI_GIT_CACHE", filepath.Join(t.TempDir(), "cache-b"))
	baseB := startAPI(t)
	a, b := client.NewClient(baseA), client.NewClient(baseB)

	sp, err := a.CreateSpace(ctx, wire.SpaceCreateRequest{Name: strPtr("plans")})
	if err != nil {
		t.Fatal(err)
	}
	commit := func(c *client.Client, title string, items ...wire.ItemIn) {
		t.Helper()
		var texts []string
		for _, it := range items {
			texts = append(texts, it.Text)
		}
		req := wire.SpaceCommitRequest{ContentFields: wire.ContentFields{Message: strPtr(title), Decisions: texts}, ItemFields: wire.ItemFields{Items: items}}
		if _, err := c.CommitToSpace(ctx, sp.ID, req); err != nil {
			t.Fatalf("commit %q: %v", title, err)
		}
	}
	commit(a, "start", wire.ItemIn{ID: "d-000001", Kind: "decision", Text: "Ship weekly"})
	if _, err := a.AddRemote(ctx, sp.ID, wire.RemoteRequest{Name: "origin", URL: bare}); err != nil {
		t.Fatal(err)
	}

	onA := mcpOverAll(t, baseA)
	cmd := exec.Command(buildBinary(t), "mcp", "--tools", "all")
	cmd.Env = append(cmd.Environ(), "SMRITI_API_URL="+baseB)
	onB, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer onB.Close()
	call := func(s *sdk.ClientSession, name string, args map[string]any, wantErr bool) (string, map[string]any) {
		t.Helper()
		res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.IsError != wantErr {
			t.Fatalf("%s(%v): isError=%v, want %v; text:\n%s", name, args, res.IsError, wantErr, textOf(res))
		}
		data, _ := res.StructuredContent.(map[string]any)
		return textOf(res), data
	}
	space := map[string]any{"space": "plans"}

	text, _ := call(onA, "smriti_push", space, false)
	first := regexp.MustCompile(`^Pushed main to origin: nothing → ([0-9a-f]{7}) \(1 checkpoint\(s\), 0 session\(s\), 0 turn\(s\)\)\n$`).FindStringSubmatch(text)
	if first == nil {
		t.Fatalf("A's first push says %q", text)
	}
	id := sp.ID.String()
	if _, err := b.Clone(ctx, wire.CloneRequest{URL: bare, SpaceID: &id}); err != nil {
		t.Fatal(err)
	}
	commit(a, "tuesday", wire.ItemIn{ID: "d-000001", Kind: "decision", Text: "Ship every Tuesday"}, wire.ItemIn{ID: "d-000002", Kind: "decision", Text: "Add a cache"})
	commit(b, "friday", wire.ItemIn{ID: "d-000001", Kind: "decision", Text: "Ship every Friday"}, wire.ItemIn{ID: "d-000003", Kind: "decision", Text: "Write the runbook"})

	text, data := call(onA, "smriti_push", space, false)
	if !strings.HasPrefix(text, "Pushed main to origin: "+first[1]+" → ") || data["outcome"] != "pushed" || data["checkpoints"] != 1.0 {
		t.Fatalf("A's push says %q, %v", text, data)
	}
	aHead := data["head"].(string)

	text, _ = call(onB, "smriti_push", space, true)
	want := "HTTP 409\npush refused: main on the remote is at " + textutil.ShortHash(aHead) + ", not " + first[1] +
		" as this copy last saw it; run `smriti pull origin`, then push again\n" +
		"Retry: smriti_pull {\"space\": \"plans\", \"remote\": \"origin\"}, settle any conflict it leaves as a proposal, then smriti_push again.\n"
	if !strings.HasPrefix(text, want) || !strings.Contains(text, `"tool": "smriti_pull"`) || !strings.Contains(text, `"remote_head": "`+aHead+`"`) {
		t.Fatalf("B's refused push says:\n%s\nwant it to start with:\n%s", text, want)
	}

	text, data = call(onB, "smriti_fetch", space, false)
	if want := "Fetched from origin: 1 checkpoint(s), 0 session(s), 0 turn(s)\n- main is 1 ahead, 1 behind origin/main (fetched just now)\n" +
		"Bring it in with smriti_pull {\"space\": \"plans\", \"remote\": \"origin\"}\n"; text != want || data["checkpoints"] != 1.0 {
		t.Fatalf("B's fetch says %q, %v\nwant %q", text, data, want)
	}
	text, data = call(onB, "smriti_pull", space, false)
	pid, _ := data["proposal_id"].(string)
	if data["outcome"] != "merged_with_proposal" || pid == "" || !strings.Contains(text, "1 item(s) changed on both copies:\n- decisions d-000001: here \"Ship every Friday\", origin \"Ship every Tuesday\"\n") ||
		!strings.Contains(text, "Kept this copy's side; proposal `"+pid[:8]+"` holds origin's side") {
		t.Fatalf("B's pull says %q, %v", text, data)
	}
	call(onB, "smriti_accept_proposal", map[string]any{"space": "plans", "proposal_id": pid}, false)
	text, data = call(onB, "smriti_push", space, false)
	if !strings.HasPrefix(text, "Pushed main to origin: "+textutil.ShortHash(aHead)+" → ") || data["outcome"] != "pushed" {
		t.Fatalf("B's second push says %q, %v", text, data)
	}
	bHead := data["head"].(string)
	text, data = call(onA, "smriti_pull", space, false)
	if text != "Fast-forwarded to "+textutil.ShortHash(bHead)+" from origin\n" || data["outcome"] != "fast_forward" || data["head"] != bHead {
		t.Fatalf("A's pull says %q, %v", text, data)
	}
	text, _ = call(onA, "smriti_push", space, false)
	if text != "main on origin is already at "+textutil.ShortHash(bHead)+"\n" {
		t.Fatalf("A's push after the pull says %q", text)
	}
	text, _ = call(onA, "smriti_fetch", map[string]any{"space": "plans", "remote": "nowhere"}, true)
	if !strings.Contains(text, `no remote named "nowhere"`) {
		t.Fatalf("a fetch from a missing remote says %q", text)
	}
}
