package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"smriti"
	"smriti/app"
	"smriti/client"
	"smriti/gitcli"
	"smriti/httpapi"
	"smriti/provider"
	"smriti/store"
)

// startAPI runs the real server (mock providers, fresh SQLite) on
// 127.0.0.1 and returns its base URL.
func startAPI(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := store.Open(ctx, filepath.Join(dir, "smriti.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := provider.Load(provider.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: httpapi.New(apiConfig(db, provider.New(cfg), nil, &app.Coordinator{Briefs: db, Store: db, Git: gitcli.New(), Root: filepath.Join(dir, "worktrees")}, nil, app.GateConfig{})), ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close(); db.Close() })
	return "http://" + ln.Addr().String()
}

// wantTools is every tool the server offers.
var wantTools = []string{
	"smriti_check", "smriti_checkpoint_note", "smriti_close_branch", "smriti_compare", "smriti_context", "smriti_create_checkpoint",
	"smriti_claim", "smriti_claim_done", "smriti_ready",
	"smriti_create_space", "smriti_delete_checkpoint", "smriti_delete_space", "smriti_fork", "smriti_install_skill",
	"smriti_list_checkpoints", "smriti_list_claims", "smriti_list_spaces", "smriti_merge", "smriti_metrics",
	"smriti_restore", "smriti_review_checkpoint", "smriti_search", "smriti_show_checkpoint", "smriti_state", "smriti_verify",
	"smriti_why", "smriti_worktree_open", "smriti_worktree_list", "smriti_worktree_show", "smriti_worktree_close",
	"smriti_propose", "smriti_list_proposals", "smriti_show_proposal", "smriti_edit_proposal", "smriti_accept_proposal", "smriti_reject_proposal",
	"smriti_fetch", "smriti_pull", "smriti_push",
}

func TestMCPOverHTTP(t *testing.T) {
	base := startAPI(t)
	session := mcpOverAll(t, base)
	exerciseTools(t, session, base)
}

func TestMCPOverStdio(t *testing.T) {
	bin := buildBinary(t)
	base := startAPI(t)
	cmd := exec.Command(bin, "mcp", "--tools", "all")
	cmd.Env = append(cmd.Environ(), "SMRITI_API_URL="+base)
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	session, err := client.Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	exerciseTools(t, session, base)
}

func TestMCPStdioServerDown(t *testing.T) {
	bin := buildBinary(t)
	cmd := exec.Command(bin, "mcp", "--api-url", "http://"+freeAddr(t))
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	session, err := client.Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	res, err := session.CallTool(context.Background(), &sdk.CallToolParams{Name: "smriti_list_spaces", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(res); !res.IsError || !strings.Contains(got, "HTTP 503\ncannot reach the Smriti server") {
		t.Fatalf("got error=%v %q, want a 503 tool error saying the server cannot be reached", res.IsError, got)
	}
}

// gitRepo makes a git repository with one commit.
func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"commit", "-q", "--allow-empty", "-m", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(cmd.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

func textOf(r *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// exerciseTools lists the tools, checks their annotations and schemas, and
// calls each one — successes and error paths — on a fresh server.
func exerciseTools(t *testing.T, s *sdk.ClientSession, base string) {
	ctx := context.Background()
	list, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	byName := map[string]*sdk.Tool{}
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		byName[tool.Name] = tool
	}
	sort.Strings(names)
	want := append([]string(nil), wantTools...)
	sort.Strings(want)
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Fatalf("tools = %v\nwant %v", names, want)
	}
	if a := byName["smriti_list_spaces"].Annotations; a == nil || !a.ReadOnlyHint {
		t.Error("smriti_list_spaces is not annotated read-only")
	}
	if a := byName["smriti_delete_space"].Annotations; a == nil || a.DestructiveHint == nil || !*a.DestructiveHint {
		t.Error("smriti_delete_space is not annotated destructive")
	}
	if a := byName["smriti_close_branch"].Annotations; a == nil || !a.IdempotentHint {
		t.Error("smriti_close_branch is not annotated idempotent")
	}
	schema, _ := byName["smriti_create_checkpoint"].InputSchema.(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	content, _ := props["content"].(map[string]any)
	if d, _ := content["description"].(string); !strings.Contains(d, "markdown") {
		t.Errorf("content has no description in the input schema: %v", schema)
	}
	if req := fmt.Sprint(schema["required"]); req != "[space content]" {
		t.Errorf("smriti_create_checkpoint requires %s, want [space content]", req)
	}

	var vars = map[string]string{}
	call := func(name string, args map[string]any, wantErr bool, want ...string) string {
		t.Helper()
		for k, v := range args {
			if s, ok := v.(string); ok && strings.HasPrefix(s, "$") {
				args[k] = vars[s[1:]]
			}
		}
		res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := textOf(res)
		if res.IsError != wantErr {
			t.Fatalf("%s(%v): isError=%v, want %v; text:\n%s", name, args, res.IsError, wantErr, got)
		}
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Fatalf("%s(%v): answer lacks %q:\n%s", name, args, w, got)
			}
		}
		return got
	}
	capture := func(text, pattern, key string) {
		t.Helper()
		m := regexp.MustCompile(pattern).FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("no %s (%s) in:\n%s", key, pattern, text)
		}
		vars[key] = m[1]
	}

	call("smriti_list_spaces", map[string]any{}, false, "No spaces yet.")
	out := call("smriti_create_space", map[string]any{"name": "demo", "description": "a demo"}, false, "Created space `")
	capture(out, "`([0-9a-f-]{36})`", "space")
	call("smriti_create_space", map[string]any{"name": "  "}, true, "HTTP 422\nname must not be empty")
	call("smriti_list_spaces", map[string]any{}, false, "1 space(s):", "- **demo** `"+vars["space"]+"`", "  a demo")

	handoff := "# Chose SQLite\n\nWe decided to use SQLite by default.\n\n- [ ] write the docs\n"
	call("smriti_create_checkpoint", map[string]any{"space": "demo", "content": handoff, "dry_run": true}, false, "Dry run — extracted payload", "```json")
	call("smriti_list_checkpoints", map[string]any{"space": "demo"}, false, "No checkpoints yet.")
	out = call("smriti_create_checkpoint", map[string]any{"space": "demo", "content": handoff, "author_agent": "claude-code"}, false,
		"Created checkpoint `", "on branch `main`")
	capture(out, "`([0-9a-f]{7})`", "a")
	call("smriti_create_checkpoint", map[string]any{"space": "demo", "content": "   "}, true, "HTTP 422\ncontent must be a non-empty markdown string or a checkpoint object")
	call("smriti_create_checkpoint", map[string]any{"space": "demo"}, true, `validating "arguments": validating root: required: missing properties: ["content"]`)
	call("smriti_create_checkpoint", map[string]any{"space": "demo", "content": 7}, true, `validating "arguments": validating root: validating /properties/content: type: 7 has type "integer", want one of "string, object"`)
	call("smriti_create_checkpoint", map[string]any{"space": "nosuch", "content": handoff}, true, "HTTP 404\nno space found matching \"nosuch\"")
	call("smriti_create_checkpoint", map[string]any{"space": "demo", "content": handoff, "session": "nope"}, true, "HTTP 400\n")
	// Creating a checkpoint makes no session.
	sessionCount := func() int {
		list, err := client.NewClient(base).Sessions(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return len(list)
	}
	if n := sessionCount(); n != 0 {
		t.Fatalf("after smriti_create_checkpoint: %d sessions, want 0", n)
	}

	out = call("smriti_list_checkpoints", map[string]any{"space": "demo"}, false, "1 checkpoint(s):")
	capture(out, `\(([0-9a-f-]{36})\)`, "a_id")
	call("smriti_list_checkpoints", map[string]any{"space": "demo", "branch": "nosuch"}, false, "No checkpoints yet.")
	call("smriti_show_checkpoint", map[string]any{"checkpoint_id": "$a"}, false, "by `claude-code`", "id: `"+vars["a_id"]+"`")
	call("smriti_show_checkpoint", map[string]any{"checkpoint_id": "$a_id", "full_artifacts": true}, false, "branch `main`")
	call("smriti_show_checkpoint", map[string]any{"checkpoint_id": "abc"}, true, "HTTP 400\n", "at least 7 characters")
	call("smriti_show_checkpoint", map[string]any{"checkpoint_id": "00000000-0000-4000-8000-000000000000"}, true, "HTTP 404\n")
	call("smriti_show_checkpoint", map[string]any{}, true)

	call("smriti_checkpoint_note", map[string]any{"checkpoint_id": "$a", "text": "keep", "kind": "milestone"}, false, "Note added to checkpoint `", "[milestone]")
	call("smriti_checkpoint_note", map[string]any{"checkpoint_id": "$a", "text": "x", "kind": "bogus"}, true, "HTTP 400\nInvalid kind")
	call("smriti_show_checkpoint", map[string]any{"checkpoint_id": "$a"}, false, "## Notes", "[milestone] test")
	call("smriti_review_checkpoint", map[string]any{"checkpoint_id": "$a"}, false)
	call("smriti_verify", map[string]any{"checkpoint_id": "$a"}, false, "every hash matches")
	out = call("smriti_why", map[string]any{"space": "demo", "item": "use sqlite by default"}, false, "## decision d-", "- introduced on main (", "Use SQLite by default",
		"Validity:\n- `d-", "` \"Use SQLite by default\" (open) on main: since `", " (the newest).")
	// An item version's name, item@version, names that version.
	capture(out, "Version `(d-[0-9a-f]{6}@[0-9a-f]{12})`", "version")
	call("smriti_why", map[string]any{"space": "demo", "item": "$version"}, false, "## decision d-", "Use SQLite by default", "Version `"+vars["version"]+"` (the newest).")
	call("smriti_why", map[string]any{"space": "demo", "item": "d-000000@1234567"}, true, "HTTP 400\nitem version \"d-000000@1234567\": give at least 8 hex digits")
	call("smriti_why", map[string]any{"space": "demo", "item": vars["version"][:9] + "00000000"}, true, "HTTP 404\nItem "+vars["version"][:8]+" has no version 00000000 in this space; its versions: "+vars["version"])
	call("smriti_check", map[string]any{"space": "nosuch"}, true, "HTTP 404\nno space found matching \"nosuch\"")
	call("smriti_why", map[string]any{"space": "demo", "item": "d-000000"}, true, "HTTP 404\nItem d-000000 not found in this space")
	call("smriti_why", map[string]any{"space": "demo", "item": "nothing like it"}, true, "HTTP 404\nNo item of the head matches")
	call("smriti_restore", map[string]any{"checkpoint_id": "$a", "preview": true}, false, "_Continuation brief for checkpoint `"+vars["a"]+"`_", "# demo")

	out = call("smriti_fork", map[string]any{"checkpoint_id": "$a", "branch": "try-x"}, false, "→ new session: try-x (")
	capture(out, `try-x \(([0-9a-f-]{36})\)`, "fork")
	call("smriti_fork", map[string]any{"checkpoint_id": "$a", "branch": "try-x"}, true, "HTTP 409\n")
	out = call("smriti_create_checkpoint", map[string]any{"space": "$space", "content": "# Plan B\n\nWe decided to add Postgres.\n", "session": "$fork"}, false, "on branch `try-x`")
	capture(out, "`([0-9a-f]{7})`", "b")
	call("smriti_compare", map[string]any{"checkpoint_a": "$a", "checkpoint_b": "$b"}, false, "# Compare `"+vars["a"]+"` ↔ `"+vars["b"]+"`", "Common ancestor: `"+vars["a"]+"` ("+vars["a_id"]+")")
	call("smriti_compare", map[string]any{"checkpoint_a": "$a", "checkpoint_b": "fffffff"}, true, "HTTP 404\nno checkpoint matches")

	call("smriti_merge", map[string]any{"source": "$b"}, false, "# Merge preview (nothing written)")
	call("smriti_merge", map[string]any{"source": "$b", "resolutions": []map[string]any{{"field": "summary", "choice": "ours"}}, "commit": true}, true,
		"HTTP 422\n")
	call("smriti_merge", map[string]any{"source": "$b", "commit": true, "message": "Merge try-x"}, false, "Merged into `main`: created `")
	call("smriti_merge", map[string]any{"source": "$b", "commit": true}, true, "HTTP 409\nNothing to merge")

	call("smriti_close_branch", map[string]any{"space": "demo", "branch": "try-x", "disposition": "abandoned"}, false, "Branch `try-x` marked `abandoned` (1 session(s) updated).")
	call("smriti_close_branch", map[string]any{"space": "demo", "branch": "try-x", "disposition": "merged"}, true, "HTTP 400\nInvalid disposition 'merged'")
	call("smriti_close_branch", map[string]any{"space": "demo", "branch": "nosuch"}, true, "HTTP 404\n")

	before := sessionCount()
	call("smriti_context", map[string]any{"space": "demo", "message": "what now?"}, false, "# Context: ", "## system")
	if n := sessionCount(); n != before {
		t.Fatalf("after smriti_context: %d sessions, want %d (none made for a preview)", n, before)
	}
	call("smriti_context", map[string]any{"space": "demo", "message": ""}, true, "HTTP 422\nmessage must not be empty")

	call("smriti_install_skill", map[string]any{"target": "claude-code"}, false, "# Smriti skill pack for Claude Code", "`.claude/skills/smriti/SKILL.md`", "smriti_state(")
	call("smriti_install_skill", map[string]any{"target": "vim"}, true, "HTTP 422\nunknown skill pack target \"vim\"")

	call("smriti_state", map[string]any{"space": "demo", "compact": true}, false, "# demo", "Latest checkpoint: `")
	call("smriti_state", map[string]any{"space": "demo", "since": "$a"}, false, "## State: changed since `"+vars["a"]+"`")
	call("smriti_state", map[string]any{"space": "demo", "main_only": true, "since": "$a"}, false, "# demo")
	call("smriti_state", map[string]any{"space": "nosuch"}, true, "HTTP 404\nno space found matching")
	out = call("smriti_claim", map[string]any{"space": "demo", "scope": "write docs", "task_id": "T1"}, false,
		"Claimed: [implement] \"write docs\" on `main` by `test`", "Claim ID: `")
	capture(out, "Claim ID: `([0-9a-f-]{36})`", "claim")
	call("smriti_claim", map[string]any{"space": "demo", "scope": "also docs", "task_id": "T1", "agent": "codex", "intent_type": "review"}, true,
		"HTTP 409\nTask 'T1' is already claimed by test (claim ")
	call("smriti_claim", map[string]any{"space": "demo", "scope": "Write docs", "task_id": "T2", "agent": "codex", "intent_type": "review"}, false,
		"Collides with 1 live claim(s)", "`test` [implement]")
	call("smriti_claim", map[string]any{"space": "demo", "scope": "x", "intent_type": "dance"}, true, "HTTP 400\n")
	call("smriti_claim", map[string]any{"space": "demo", "scope": "x", "worktree_id": "nope"}, true, "HTTP 400\n")
	call("smriti_list_claims", map[string]any{"space": "demo"}, false, "2 active claim(s):", "write docs (task: T1)")
	call("smriti_ready", map[string]any{"space": "nosuch"}, true, "HTTP 404\n")
	call("smriti_ready", map[string]any{"space": "demo", "claim": true, "ttl": "soon"}, true, "HTTP 400\ninvalid duration \"soon\"")
	call("smriti_claim_done", map[string]any{"claim_id": "$claim"}, false, "marked done.")
	call("smriti_claim_done", map[string]any{"claim_id": "$claim", "abandon": true}, true, "HTTP 409\n")
	call("smriti_claim_done", map[string]any{"claim_id": "bad"}, true, "HTTP 400\n")
	call("smriti_list_claims", map[string]any{"space": "demo", "all": true}, false, "2 claim(s):", " · done")
	call("smriti_metrics", map[string]any{"space": "demo"}, false, "# demo — project metrics", "2 claims · 100% completion · 2 with task IDs")
	call("smriti_metrics", map[string]any{"space": "nosuch"}, true, "HTTP 404\n")

	// Worktrees need the space's project root to be a git repository.
	repo := gitRepo(t)
	spaceID, _ := smriti.ParseID("space", vars["space"])
	if _, err := client.NewClient(base).SetProjectRoot(ctx, spaceID, repo); err != nil {
		t.Fatal(err)
	}
	out = call("smriti_worktree_open", map[string]any{"space": "demo", "agent": "codex", "branch": "codex/x"}, false,
		"for `codex`.", "Branch: `codex/x`")
	capture(out, "Created worktree `([0-9a-f-]{36})`", "wt")
	call("smriti_worktree_open", map[string]any{"space": "demo", "agent": "codex", "branch": "codex/x"}, true, "HTTP 409\nBranch already exists")
	call("smriti_worktree_list", map[string]any{"space": "demo"}, false, "ID  ", " codex ", "codex/x")
	call("smriti_worktree_show", map[string]any{"worktree_id": vars["wt"][:6]}, false, "agent: codex", "status: active")
	call("smriti_worktree_show", map[string]any{"worktree_id": "ab"}, true, "HTTP 400\n")
	call("smriti_worktree_close", map[string]any{"worktree_id": "$wt"}, false, "Closed worktree `"+vars["wt"]+"`")
	call("smriti_worktree_close", map[string]any{"worktree_id": "$wt"}, true, "HTTP 409\n")
	call("smriti_worktree_list", map[string]any{"space": "demo"}, false, "No active worktrees.")

	call("smriti_delete_checkpoint", map[string]any{"checkpoint_id": "$a"}, true, "HTTP 409\n", "\"child_commits\"")
	call("smriti_delete_checkpoint", map[string]any{"checkpoint_id": "$a", "cascade": true}, false, "Deleted checkpoint `"+vars["a"]+"` (cascade).")
	call("smriti_delete_space", map[string]any{"space": "demo"}, false, "Deleted space 'demo' and its 0 checkpoint(s).")
	call("smriti_delete_space", map[string]any{"space": "demo"}, true, "HTTP 404\n")
}

// mcpOver connects an MCP client to the server at base over streamable
// HTTP; the session is closed when the test ends.
func mcpOver(t *testing.T, base string) *sdk.ClientSession {
	t.Helper()
	s, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// mcpOverAll is mcpOver with every tool (/mcp?tools=all), not the core
// toolset.
func mcpOverAll(t *testing.T, base string) *sdk.ClientSession {
	t.Helper()
	s, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: base + "/mcp?tools=all"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// listTools is the session's tools/list.
func listTools(t *testing.T, s *sdk.ClientSession) *sdk.ListToolsResult {
	t.Helper()
	list, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return list
}
