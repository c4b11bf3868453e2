package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

const refsSendV1 = "package app\n\n// Send sends a message.\nfunc Send(x int) int {\n\ty := x + 1\n\treturn y\n}\n"

// TestMCPChecksRefsAgainstTheAgentsWorkTree is the life of an item citing
// a function, over the stdio MCP server run in the project (as an agent
// host runs it): a save whose decision names `app.Send` cites it; the
// function is fresh, then changed by one commit (and first in
// smriti_state), moved by another with its new lines, gone with its file.
func TestMCPChecksRefsAgainstTheAgentsWorkTree(t *testing.T) {
	bin := buildBinary(t)
	base := startAPI(t)
	repo := gitRepo(t)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(cmd.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(repo, "app"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repo, "app", "send.go"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(refsSendV1)
	git("add", "-A")
	git("commit", "-q", "-m", "send")

	cmd := exec.Command(bin, "mcp", "--tools", "all")
	cmd.Dir = repo
	cmd.Env = append(cmd.Environ(), "SMRITI_API_URL="+base)
	s, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	call := func(name string, args map[string]any) (string, bool) {
		t.Helper()
		res, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		return textOf(res), res.IsError
	}
	if out, isErr := call("smriti_create_space", map[string]any{"name": "demo"}); isErr {
		t.Fatal(out)
	}
	if out, isErr := call("smriti_create_checkpoint", map[string]any{"space": "demo",
		"content": map[string]any{"message": "Send", "decisions": []string{"Sends go through `app.Send`", "Retries are the caller's"}},
		"refs":    []string{"app/send.go:4-7"}}); !isErr || !strings.Contains(out, "this write adds 2 items; name the one it is for") {
		t.Fatalf("a bare ref on a write adding two items: error=%v %q", isErr, out)
	}
	if out, isErr := call("smriti_create_checkpoint", map[string]any{"space": "demo",
		"content": map[string]any{"message": "Send", "decisions": []string{"Sends go through `app.Send`", "Retries are the caller's"}},
		"refs":    []string{"Retries=app/send.go:5"}}); isErr {
		t.Fatal(out)
	}
	check := func(want ...string) string {
		t.Helper()
		out, isErr := call("smriti_check", map[string]any{"space": "demo"})
		for _, w := range want {
			if isErr || !regexp.MustCompile(w).MatchString(out) {
				t.Fatalf("smriti_check: error=%v, want %q in:\n%s", isErr, w, out)
			}
		}
		return out
	}
	check(`(?m)^2 item\(s\) cite code in 2 ref\(s\); 0 item\(s\) to check`, `(?m)^- fresh app/send.go#app.Send:4-7$`, `(?m)^- fresh app/send.go:5$`)
	if out, _ := call("smriti_state", map[string]any{"space": "demo"}); strings.Contains(out, "Check before relying on") {
		t.Fatalf("smriti_state flags fresh refs:\n%s", out)
	}

	write(strings.Replace(refsSendV1, "return y", "return y * 2", 1))
	git("commit", "-q", "-am", "edit Send")
	check(`(?m)^## \[changed\] decision d-[0-9a-f]{6}@[0-9a-f]{12}\nSends go through .app.Send.\n- changed: app/send.go#app.Send:4-7 changed \(now lines 4-7\); 1 commit since [0-9a-f]{7}, \+1 -1$`,
		`(?m)^- fresh app/send.go:5$`)
	out, _ := call("smriti_state", map[string]any{"space": "demo"})
	if first := regexp.MustCompile(`(?m)^## .*$`).FindString(out); first != "## Check before relying on" {
		t.Fatalf("smriti_state's first section is %q, want the check:\n%s", first, out)
	}
	if !strings.Contains(out, "- Sends go through `app.Send` [check: changed]\n") || strings.Contains(out, "caller's [check") {
		t.Fatalf("smriti_state marks the wrong items:\n%s", out)
	}

	write("package app\n\nimport \"fmt\"\n\nvar _ = fmt.Sprint\n" + strings.TrimPrefix(refsSendV1, "package app\n"))
	git("commit", "-q", "-am", "move Send")
	check(`(?m)^## \[moved\] decision d-[0-9a-f]{6}@[0-9a-f]{12}$`, `(?m)^- moved: app/send.go#app.Send:4-7 moved to lines 8-11$`, `(?m)^- moved: app/send.go:5 moved to lines 9$`)

	git("rm", "-q", "app/send.go")
	git("commit", "-q", "-m", "delete")
	check(`(?m)^- gone: app/send.go#app.Send:4-7 is gone: the file was deleted; 3 commits since [0-9a-f]{7}, \+0 -7$`)
	cps, _ := call("smriti_list_checkpoints", map[string]any{"space": "demo"})
	hash := regexp.MustCompile("`([0-9a-f]{7,})`").FindStringSubmatch(cps)
	if hash == nil {
		t.Fatalf("no checkpoint hash in %q", cps)
	}
	if out, _ := call("smriti_restore", map[string]any{"checkpoint_id": hash[1]}); !strings.HasPrefix(out, "## Check before relying on\n") ||
		!strings.Contains(out, "- [gone] decision") {
		t.Fatalf("smriti_restore does not list the gone refs first:\n%s", out)
	}
}
