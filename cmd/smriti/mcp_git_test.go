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

	"smriti/client"
)

// dirtyGitRepo is gitRepo with an untracked file: HEAD's commit and the
// repository's directory.
func dirtyGitRepo(t *testing.T) (dir, head string) {
	t.Helper()
	dir = gitRepo(t)
	if err := os.WriteFile(filepath.Join(dir, "wip.go"), []byte("package wip\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return dir, strings.TrimSpace(string(out))
}

// Checkpoints written through MCP with a project_root that is a git work
// tree record its commit, branch and dirtiness as metadata.git — over stdio
// (git read on the agent's side) and at the server's /mcp (read by the
// server, which already runs git in the project roots clients name) — and
// `checkpoint show` and the brief print it. A relative project_root at /mcp records
// nothing: it would name a directory of the server's.
func TestMCPCheckpointsRecordGit(t *testing.T) {
	bin := buildBinary(t)
	repo, head := dirtyGitRepo(t)
	gitLine := regexp.MustCompile("(?m)^git: " + head[:12] + ` on main, dirty \(diff [0-9a-f]{12}\)$`)
	created := regexp.MustCompile("^Created checkpoint `([0-9a-f]{7})` on branch `main`: ")
	connectStdio := func(t *testing.T, base string) *sdk.ClientSession {
		cmd := exec.Command(bin, "mcp", "--tools", "all")
		cmd.Env = append(cmd.Environ(), "SMRITI_API_URL="+base)
		s, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, tc := range []struct {
		name    string
		connect func(*testing.T, string) *sdk.ClientSession
	}{{"stdio", connectStdio}, {"http", mcpOverAll}} {
		t.Run(tc.name, func(t *testing.T) {
			base := startAPI(t)
			s := tc.connect(t, base)
			defer s.Close()
			call := func(args map[string]any) string {
				t.Helper()
				res, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: "smriti_create_checkpoint", Arguments: args})
				if err != nil {
					t.Fatal(err)
				}
				m := created.FindStringSubmatch(textOf(res))
				if res.IsError || m == nil {
					t.Fatalf("%v: error=%v %q", args, res.IsError, textOf(res))
				}
				return m[1]
			}
			show := func(ref string) string {
				t.Helper()
				cmd := exec.Command(bin, "checkpoint", "show", ref)
				cmd.Env = append(cmd.Environ(), "SMRITI_API_URL="+base)
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("checkpoint show %s: %v\n%s", ref, err, out)
				}
				return string(out)
			}
			if res, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: "smriti_create_space", Arguments: map[string]any{"name": "demo"}}); err != nil || res.IsError {
				t.Fatalf("create space: %v %q", err, textOf(res))
			}
			structured := call(map[string]any{"space": "demo", "project_root": repo, "content": map[string]any{"message": "Chose SQLite"}})
			if out := show(structured); !gitLine.MatchString(out) {
				t.Fatalf("structured checkpoint shows no git line matching %s:\n%s", gitLine, out)
			}
			extracted := call(map[string]any{"space": "demo", "project_root": repo, "content": "# Plan\n\nDecision: use SQLite.\n"})
			if out := show(extracted); !gitLine.MatchString(out) {
				t.Fatalf("extracted checkpoint shows no git line matching %s:\n%s", gitLine, out)
			}
			// The brief shows the head's code.
			res, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: "smriti_state", Arguments: map[string]any{"space": "demo", "compact": true}})
			if err != nil || res.IsError || !strings.Contains(textOf(res), "\nCode: git "+head[:12]+" on main, dirty\n") {
				t.Fatalf("smriti_state: %v %q, want the head's code line", err, textOf(res))
			}
			cp, err := client.NewClient(base).ResolveCheckpoint(context.Background(), extracted, nil)
			if err != nil {
				t.Fatal(err)
			}
			g, _ := cp.Metadata["git"].(map[string]any)
			if g["commit"] != head || g["branch"] != "main" || g["dirty"] != true || len(g["diff_sha256"].(string)) != 64 {
				t.Fatalf("metadata.git = %v, want commit %s on main, dirty, with a diff hash", cp.Metadata["git"], head)
			}
			plain := call(map[string]any{"space": "demo", "content": map[string]any{"message": "No root"}})
			if out := show(plain); strings.Contains(out, "\ngit: ") {
				t.Fatalf("a checkpoint without project_root shows a git line:\n%s", out)
			}
			if tc.name == "http" {
				rel := call(map[string]any{"space": "demo", "project_root": "relative/dir", "content": map[string]any{"message": "Relative root"}})
				if out := show(rel); strings.Contains(out, "\ngit: ") {
					t.Fatalf("a relative project_root at /mcp shows a git line:\n%s", out)
				}
			}
		})
	}
}
