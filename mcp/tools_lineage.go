package mcp

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"smriti"
	"smriti/app"
	"smriti/render"
)

// registerLineage adds the tools over branches and history: compare, fork, close, merge, why.
func (t *tools) registerLineage(s *sdk.Server) {
	add(t, s, "smriti_compare", "Diff two checkpoints: shared and one-sided decisions, assumptions, tasks; common ancestor.", readOnly,
		func(ctx context.Context, in compareIn) (string, error) {
			a, err := t.checkpoint(ctx, in.CheckpointA)
			if err != nil {
				return "", err
			}
			b, err := t.checkpoint(ctx, in.CheckpointB)
			if err != nil {
				return "", err
			}
			cmp, err := t.ops.Compare(ctx, a.ID, b.ID)
			if err != nil {
				return "", err
			}
			return formatCompare(cmp), nil
		})
	add(t, s, "smriti_fork", "New branch from a checkpoint; returns its session, whose checkpoints extend the branch.", additive,
		func(ctx context.Context, in forkIn) (string, error) {
			c, err := t.checkpoint(ctx, in.CheckpointID)
			if err != nil {
				return "", err
			}
			se, err := t.ops.ForkSession(ctx, smriti.ForkCreate{SpaceID: c.SpaceID, CheckpointID: c.ID, BranchName: in.Branch})
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("Forked from `%s` — %q\n  → new session: %s (%s)\n  → seeded from: %s\n\nNext: smriti_create_checkpoint(space=%q, session=%q, content=...)\n",
				short(c.Hash), c.Message, se.BranchName, se.ID, short(c.Hash), c.SpaceID.String(), se.ID.String()), nil
		})
	add(t, s, "smriti_close_branch", "Mark a branch's sessions integrated, abandoned or active.", idempotent,
		func(ctx context.Context, in closeBranchIn) (string, error) {
			sp, err := t.space(ctx, in.Space)
			if err != nil {
				return "", err
			}
			if in.Disposition == "" {
				in.Disposition = "integrated"
			}
			n, err := t.ops.SetBranchDisposition(ctx, sp.ID, in.Branch, in.Disposition)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("Branch `%s` marked `%s` (%d session(s) updated).\n", in.Branch, in.Disposition, n), nil
		})
	add(t, s, "smriti_merge", "Merge a checkpoint into main's head or target: commit=false previews conflicts; commit=true with resolutions writes.", additive,
		func(ctx context.Context, in mergeIn) (string, error) {
			src, err := t.checkpoint(ctx, in.Source)
			if err != nil {
				return "", err
			}
			req := app.MergeRequest{SpaceID: src.SpaceID, SourceID: src.ID, DryRun: !in.Commit, Message: in.Message}
			for _, r := range in.Resolutions {
				req.Resolutions = append(req.Resolutions, smriti.MergeResolution(r))
			}
			if in.Target != "" {
				tg, err := t.checkpoint(ctx, in.Target)
				if err != nil {
					return "", err
				}
				req.TargetID = &tg.ID
			}
			o, err := t.ops.Merge(ctx, req)
			if err != nil {
				return "", err
			}
			return formatMerge(o), nil
		})
	add(t, s, "smriti_why", "Where an item (decision, task, …) came from and how it changed, with turns and quotes.", readOnly,
		func(ctx context.Context, in whyIn) (string, error) {
			sp, err := t.space(ctx, in.Space)
			if err != nil {
				return "", err
			}
			ref, err := t.ops.ResolveItem(ctx, sp.ID, in.Item)
			if err != nil {
				return "", err
			}
			at, err := t.ops.Item(ctx, sp.ID, ref)
			if err != nil {
				return "", err
			}
			return render.RenderItem(at), nil
		})
}
