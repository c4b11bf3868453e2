package mcp

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"smriti/coord"
	"smriti/render"
)

type worktreeOpenIn struct {
	Space      string `json:"space" jsonschema:"space name or UUID"`
	Agent      string `json:"agent,omitempty" jsonschema:"agent name (default: you)"`
	Branch     string `json:"branch,omitempty" jsonschema:"git branch (default smriti/AGENT/SUFFIX)"`
	BaseCommit string `json:"base_commit,omitempty" jsonschema:"default the project's HEAD"`
	BasePath   string `json:"base_path,omitempty" jsonschema:"absolute path to create"`
}

type worktreeListIn struct {
	Space         string `json:"space" jsonschema:"space name or UUID"`
	IncludeClosed bool   `json:"include_closed,omitempty" jsonschema:"also closed ones"`
}

type worktreeIn struct {
	WorktreeID string `json:"worktree_id" jsonschema:"id or 4+ char prefix"`
}

type worktreeCloseIn struct {
	WorktreeID string `json:"worktree_id" jsonschema:"id or 4+ char prefix"`
	Force      bool   `json:"force,omitempty" jsonschema:"even with uncommitted changes"`
}

func (t *tools) registerWorktrees(s *sdk.Server) {
	add(t, s, "smriti_worktree_open", "A git worktree of the space's project for an agent; work only there.", additive,
		func(ctx context.Context, in worktreeOpenIn) (string, error) {
			sp, err := t.space(ctx, in.Space)
			if err != nil {
				return "", err
			}
			if in.Agent == "" {
				in.Agent = t.agent(ctx)
			}
			w, err := t.ops.OpenWorktree(ctx, coord.WorktreeOpen{SpaceID: sp.ID, Agent: in.Agent, BranchName: in.Branch,
				BaseCommitSHA: in.BaseCommit, BasePath: in.BasePath})
			if err != nil {
				return "", err
			}
			base := ""
			if w.BaseCommitSHA != nil {
				base = *w.BaseCommitSHA
			}
			return fmt.Sprintf("Created worktree `%s` for `%s`.\nPath: `%s`\nBranch: `%s`\nBase: `%s`\n", w.ID, w.Agent, w.Path, w.BranchName, base), nil
		})
	add(t, s, "smriti_worktree_list", "A space's worktrees with drift (dirty files, ahead/behind).", readOnly,
		func(ctx context.Context, in worktreeListIn) (string, error) {
			sp, err := t.space(ctx, in.Space)
			if err != nil {
				return "", err
			}
			wts, probes, err := t.ops.Worktrees(ctx, sp.ID, in.IncludeClosed)
			if err != nil {
				return "", err
			}
			return render.RenderWorktrees(wts, probes, in.IncludeClosed, ""), nil
		})
	add(t, s, "smriti_worktree_show", "Show one worktree.", readOnly, func(ctx context.Context, in worktreeIn) (string, error) {
		w, err := t.ops.Worktree(ctx, in.WorktreeID)
		if err != nil {
			return "", err
		}
		return render.RenderWorktree(w), nil
	})
	add(t, s, "smriti_worktree_close", "Remove a worktree (its branch stays); refuses uncommitted changes unless force.", destructive,
		func(ctx context.Context, in worktreeCloseIn) (string, error) {
			w, err := t.ops.CloseWorktree(ctx, in.WorktreeID, in.Force)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("Closed worktree `%s` at `%s`.\n", w.ID, w.Path), nil
		})
}
