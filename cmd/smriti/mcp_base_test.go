package main

import (
	"context"
	"encoding/json"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"smriti"
	"smriti/client"
	"smriti/wire"
)

// mcpStdio connects to `smriti mcp` (core toolset unless args say
// otherwise) talking to the server at base; closed when the test ends.
func mcpStdio(t *testing.T, base string, args ...string) *sdk.ClientSession {
	t.Helper()
	cmd := exec.Command(buildBinary(t), append([]string{"mcp"}, args...)...)
	cmd.Env = append(cmd.Environ(), "SMRITI_API_URL="+base)
	s, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// overBoth runs f with tools served in-process at /mcp and by `smriti mcp`
// on stdio (over the HTTP client): connect opens a session of the named
// toolset.
func overBoth(t *testing.T, f func(t *testing.T, base string, connect func(all bool) *sdk.ClientSession)) {
	t.Run("http", func(t *testing.T) {
		base := startAPI(t)
		f(t, base, func(all bool) *sdk.ClientSession {
			if all {
				return mcpOverAll(t, base)
			}
			return mcpOver(t, base)
		})
	})
	t.Run("stdio", func(t *testing.T) {
		base := startAPI(t)
		f(t, base, func(all bool) *sdk.ClientSession {
			if all {
				return mcpStdio(t, base, "--tools", "all")
			}
			return mcpStdio(t, base)
		})
	})
}

// mcpCall calls a tool and fails the test on a protocol error.
func mcpCall(t *testing.T, s *sdk.ClientSession, name string, args map[string]any) *sdk.CallToolResult {
	t.Helper()
	res, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// branchHead is the newest checkpoint of a branch, read over HTTP.
func branchHead(t *testing.T, base string, space smriti.ID, branch string) (id smriti.ID, decisions string) {
	t.Helper()
	c, err := client.NewClient(base).LatestCheckpoint(context.Background(), space, branch)
	if err != nil {
		t.Fatal(err)
	}
	return c.ID, strings.Join(c.Decisions, "|")
}

// A markdown checkpoint written in a fork's session is extracted onto the
// fork's branch head, the checkpoint it is committed onto — not onto main's
// head, which would drop what the branch decided and bring in what main
// decided since the fork.
func TestMCPForkMarkdownCommitExtractsOntoTheForksHead(t *testing.T) {
	overBoth(t, testForkMarkdownCommit)
}

func testForkMarkdownCommit(t *testing.T, base string, connect func(all bool) *sdk.ClientSession) {
	s := connect(true)
	out := textOf(mcpCall(t, s, "smriti_create_space", map[string]any{"name": "demo"}))
	space, err := smriti.ParseID("space", regexp.MustCompile("`([0-9a-f-]{36})`").FindStringSubmatch(out)[1])
	if err != nil {
		t.Fatal(err)
	}
	save := func(args map[string]any, wantBranch string) {
		t.Helper()
		args["space"] = "demo"
		res := mcpCall(t, s, "smriti_create_checkpoint", args)
		if got := textOf(res); res.IsError || !strings.Contains(got, "on branch `"+wantBranch+"`") {
			t.Fatalf("create_checkpoint(%v): error=%v %q", args, res.IsError, got)
		}
	}
	save(map[string]any{"content": "# Start\n\nWe decided to use SQLite by default.\n"}, "main")
	a, _ := branchHead(t, base, space, "main")
	out = textOf(mcpCall(t, s, "smriti_fork", map[string]any{"checkpoint_id": a.String(), "branch": "try-x"}))
	fork := regexp.MustCompile(`try-x \(([0-9a-f-]{36})\)`).FindStringSubmatch(out)[1]
	save(map[string]any{"content": "# Plan B\n\nWe decided to add Postgres.\n", "session": fork}, "try-x")
	save(map[string]any{"content": "# Main moves\n\nWe decided to ship on Fridays.\n"}, "main")
	save(map[string]any{"content": "# Plan B, more\n\nWe decided to cache in Redis.\n", "session": fork}, "try-x")

	if _, got := branchHead(t, base, space, "try-x"); got != "Use SQLite by default|Add Postgres|Cache in Redis" {
		t.Fatalf("the fork's head decides %q, want the branch's state plus the new decision", got)
	}
	if _, got := branchHead(t, base, space, "main"); got != "Use SQLite by default|Ship on Fridays" {
		t.Fatalf("main's head decides %q", got)
	}
}

// saved is the structured content of a created checkpoint.
type saved struct {
	CheckpointID       smriti.ID  `json:"checkpoint_id"`
	CommitHash         string     `json:"commit_hash"`
	Branch             string     `json:"branch"`
	ParentCheckpointID *smriti.ID `json:"parent_checkpoint_id"`
	RebasedFrom        *smriti.ID `json:"rebased_from"`
}

// structuredOf decodes a result's structured content into v.
func structuredOf(t *testing.T, res *sdk.CallToolResult, v any) {
	t.Helper()
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("structured content %s: %v", raw, err)
	}
}

// Two agents (two MCP sessions) save in turn against the same base:
// disjoint changes both land in the head (the second is rebased and says
// so); a change to the same item is refused naming the item, with how to
// retry; the retry with resolutions lands.
func TestMCPSavesInTurnAreRebasedOrConflict(t *testing.T) {
	overBoth(t, testSavesInTurn)
}

func testSavesInTurn(t *testing.T, base string, connect func(all bool) *sdk.ClientSession) {
	ctx := context.Background()
	hc := client.NewClient(base)
	sp, err := hc.CreateSpace(ctx, wire.SpaceCreateRequest{Name: strPtr("demo")})
	if err != nil {
		t.Fatal(err)
	}
	agentA, agentB := connect(false), connect(false)
	save := func(s *sdk.ClientSession, baseID *smriti.ID, title string, decisions ...string) *sdk.CallToolResult {
		t.Helper()
		ds := make([]any, len(decisions))
		for i, d := range decisions {
			ds[i] = d
		}
		args := map[string]any{"space": "demo", "content": map[string]any{"message": title, "decisions": ds}}
		if baseID != nil {
			args["base_checkpoint_id"] = baseID.String()
		}
		return mcpCall(t, s, "smriti_create_checkpoint", args)
	}
	landed := func(res *sdk.CallToolResult) saved {
		t.Helper()
		var out saved
		if res.IsError {
			t.Fatalf("save refused: %s", textOf(res))
		}
		structuredOf(t, res, &out)
		return out
	}

	c1 := landed(save(agentA, nil, "C1", "Pricing is per-seat at $12", "Use Go"))
	// A saves onto the base it read: no rebase.
	resA := save(agentA, &c1.CheckpointID, "A", "Pricing is per-seat at $12", "Use Go", "Budget is 40k")
	a := landed(resA)
	if got, want := textOf(resA), "Created checkpoint `"+a.CommitHash[:7]+"` on branch `main`: A\n"; got != want || a.RebasedFrom != nil {
		t.Fatalf("A's save: %q rebased_from %v, want %q and no rebase", got, a.RebasedFrom, want)
	}
	// B read the same base and adds something else: rebased onto A's.
	resB := save(agentB, &c1.CheckpointID, "B", "Pricing is per-seat at $12", "Use Go", "Deploy with systemd")
	b := landed(resB)
	wantText := "Created checkpoint `" + b.CommitHash[:7] + "` on branch `main`: B\n" +
		"Rebased: the branch head moved past your base " + c1.CheckpointID.String() + "; your change was applied onto the head " + a.CheckpointID.String() + ".\n"
	if got := textOf(resB); got != wantText || b.RebasedFrom == nil || *b.RebasedFrom != c1.CheckpointID ||
		b.ParentCheckpointID == nil || *b.ParentCheckpointID != a.CheckpointID || b.Branch != "main" {
		t.Fatalf("B's save: %q %+v, want %q rebased from C1 onto A", got, b, wantText)
	}
	if _, got := branchHead(t, base, sp.ID, "main"); got != "Pricing is per-seat at $12|Use Go|Budget is 40k|Deploy with systemd" {
		t.Fatalf("head decides %q, want both changes", got)
	}

	// Both change the same item from B's state.
	items, err := hc.CheckpointItems(ctx, b.CheckpointID)
	if err != nil {
		t.Fatal(err)
	}
	var price string
	for _, it := range items {
		if it.Text == "Pricing is per-seat at $12" {
			price = it.ID
		}
	}
	if price == "" {
		t.Fatalf("no pricing item in %+v", items)
	}
	rest := []string{"Use Go", "Budget is 40k", "Deploy with systemd"}
	a2 := landed(save(agentA, &b.CheckpointID, "A2", append([]string{"Pricing is per-seat at $14"}, rest...)...))
	refused := save(agentB, &b.CheckpointID, "B2", append([]string{"Pricing is per-seat at $10"}, rest...)...)
	if !refused.IsError {
		t.Fatalf("B2 was saved: %s", textOf(refused))
	}
	detail := "Branch 'main' moved on since checkpoint " + b.CheckpointID.String() + ", and 1 item you changed was changed there too (the head is now " +
		a2.CheckpointID.String() + "): send the same commit again with resolutions for these conflicts (ours: the head's value, theirs: yours), or draft again from the head"
	wantText = "HTTP 409\n" + detail + "\nNothing was saved. 1 conflict(s) (ours = the branch head " + a2.CheckpointID.String() + ", theirs = your save):\n" +
		"1. decisions " + price + " (both_changed)\n   base:   Pricing is per-seat at $12\n   ours:   Pricing is per-seat at $14\n   theirs: Pricing is per-seat at $10\n" +
		"Retry: call smriti_create_checkpoint again with the same content, base_checkpoint_id=\"" + b.CheckpointID.String() + "\" and resolutions=" +
		`[{"field":"decisions","key":"` + price + `","choice":"theirs"}]` + " (choose ours, theirs or base for each).\n"
	if got := textOf(refused); got != wantText {
		t.Fatalf("conflict text:\n%s\nwant:\n%s", got, wantText)
	}
	var cc struct {
		smriti.CommitConflict
		Retry struct {
			BaseCheckpointID smriti.ID                `json:"base_checkpoint_id"`
			Resolutions      []smriti.MergeResolution `json:"resolutions"`
		} `json:"retry"`
	}
	structuredOf(t, refused, &cc)
	want := smriti.MergeConflict{Field: "decisions", Key: price, Kind: "both_changed", Base: "Pricing is per-seat at $12",
		Ours: "Pricing is per-seat at $14", Theirs: "Pricing is per-seat at $10"}
	if cc.Message != detail || len(cc.Conflicts) != 1 || cc.Conflicts[0] != want || cc.HeadCheckpointID != a2.CheckpointID ||
		cc.BaseCheckpointID != b.CheckpointID || cc.Retry.BaseCheckpointID != b.CheckpointID || len(cc.Retry.Resolutions) != 1 ||
		cc.Retry.Resolutions[0] != (smriti.MergeResolution{Field: "decisions", Key: price, Choice: "theirs"}) {
		t.Fatalf("conflict structured content %+v", cc)
	}
	if head, _ := branchHead(t, base, sp.ID, "main"); head != a2.CheckpointID {
		t.Fatalf("the refused save moved the head to %s", head)
	}

	// B retries with the resolution the answer offered: B's price wins.
	resRetry := mcpCall(t, agentB, "smriti_create_checkpoint", map[string]any{"space": "demo", "base_checkpoint_id": b.CheckpointID.String(),
		"content":     map[string]any{"message": "B2", "decisions": []any{"Pricing is per-seat at $10", "Use Go", "Budget is 40k", "Deploy with systemd"}},
		"resolutions": []any{map[string]any{"field": "decisions", "key": price, "choice": "theirs"}}})
	b2 := landed(resRetry)
	if b2.RebasedFrom == nil || *b2.RebasedFrom != b.CheckpointID || *b2.ParentCheckpointID != a2.CheckpointID {
		t.Fatalf("retry %+v, want rebased from B onto A2", b2)
	}
	if _, got := branchHead(t, base, sp.ID, "main"); got != "Pricing is per-seat at $10|Use Go|Budget is 40k|Deploy with systemd" {
		t.Fatalf("head after the retry decides %q", got)
	}
}

func strPtr(s string) *string { return &s }
