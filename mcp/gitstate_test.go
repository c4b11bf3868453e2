package mcp

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"smriti"
)

// connectWithGit is connect with cfg.GitState set.
func connectWithGit(t *testing.T, ops Ops, git func(ctx context.Context, dir string) (*smriti.GitState, error)) *sdk.ClientSession {
	t.Helper()
	return connectConfig(t, Config{Ops: ops, Version: "test", GitState: git, Tools: ToolsetAll})
}

// A checkpoint written with a project_root records where that work tree's
// git stood; without one, or when the root is no work tree, git is not
// asked or nothing is recorded, and the checkpoint is written either way.
func TestCreateCheckpointRecordsGitOfProjectRoot(t *testing.T) {
	state := &smriti.GitState{Commit: strings.Repeat("1", 40), Branch: "main", Dirty: true, DiffSHA256: strings.Repeat("2", 64)}
	var asked []string
	git := func(_ context.Context, dir string) (*smriti.GitState, error) {
		asked = append(asked, dir)
		if dir == "/src/not-a-repo" {
			return nil, smriti.Errorf(smriti.ENOTFOUND, "%s is not a git work tree with a commit", dir)
		}
		return state, nil
	}
	var got []*smriti.GitState
	ops := &fakeOps{
		SpacesFn: func(context.Context) ([]*smriti.Space, error) { return []*smriti.Space{demo}, nil },
		CommitCheckpointFn: func(_ context.Context, in smriti.CheckpointCommit) (*smriti.Checkpoint, error) {
			got = append(got, in.Git)
			return &smriti.Checkpoint{ID: smriti.NewID(), Hash: strings.Repeat("ab", 32), BranchName: "main", Content: in.Content}, nil
		},
	}
	cs := connectWithGit(t, ops, git)
	for _, root := range []string{"/src/proj", "", "/src/not-a-repo"} {
		args := map[string]any{"space": "demo", "content": map[string]any{"message": "m"}}
		if root != "" {
			args["project_root"] = root
		}
		if out, isErr := callTool(t, cs, "smriti_create_checkpoint", args); isErr || out != "Created checkpoint `abababa` on branch `main`: m\n" {
			t.Fatalf("project_root %q: %q (error %v)", root, out, isErr)
		}
	}
	if strings.Join(asked, ",") != "/src/proj,/src/not-a-repo" {
		t.Errorf("git asked about %q, want /src/proj then /src/not-a-repo", asked)
	}
	if len(got) != 3 || got[0] != state || got[1] != nil || got[2] != nil {
		t.Fatalf("commits carried git %v, want the work tree's state, then none, then none", got)
	}
}
