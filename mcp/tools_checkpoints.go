package mcp

import (
	"context"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"smriti"
	"smriti/app"
	"smriti/render"
)

// registerCheckpoints adds the tools that read a checkpoint or what a send would carry, and the LLM review.
func (t *tools) registerCheckpoints(s *sdk.Server) {
	add(t, s, "smriti_show_checkpoint", "Show a checkpoint in full, with its notes.", readOnly,
		func(ctx context.Context, in showIn) (string, error) {
			c, err := t.checkpoint(ctx, in.CheckpointID)
			if err != nil {
				return "", err
			}
			return render.RenderCheckpoint(c, viewOptions(in.FullArtifacts)), nil
		})
	add(t, s, "smriti_list_checkpoints", "A space's checkpoints, newest first, with full ids.", readOnly,
		func(ctx context.Context, in listCheckpointsIn) (string, error) {
			sp, err := t.space(ctx, in.Space)
			if err != nil {
				return "", err
			}
			cps, err := t.ops.AllCheckpoints(ctx, sp.ID, in.Branch)
			if err != nil {
				return "", err
			}
			return render.RenderCheckpointList(cps, time.Now()), nil
		})
	add(t, s, "smriti_restore", "Continuation brief to resume from a checkpoint; changes nothing.", readOnly,
		func(ctx context.Context, in restoreIn) (string, error) {
			c, err := t.checkpoint(ctx, in.CheckpointID)
			if err != nil {
				return "", err
			}
			sp, err := t.ops.Space(ctx, c.SpaceID)
			if err != nil {
				return "", err
			}
			return t.checkedRestore(ctx, sp, c, !in.Preview), nil
		})
	add(t, s, "smriti_verify", "Recompute a checkpoint's hash chain back to its roots.", readOnly,
		func(ctx context.Context, in checkpointArg) (string, error) {
			c, err := t.checkpoint(ctx, in.CheckpointID)
			if err != nil {
				return "", err
			}
			v, err := t.ops.VerifyCheckpoint(ctx, c.ID)
			if err != nil {
				return "", err
			}
			if !v.OK {
				return "", smriti.Errorf(smriti.ECONFLICT, "hash chain of %s does not verify: first mismatch at %v (%d checked)", short(c.Hash), v.FirstMismatch, v.Checked)
			}
			return fmt.Sprintf("Verified `%s`: %d checkpoint(s) in its history, every hash matches.\n", short(c.Hash), v.Checked), nil
		})
	add(t, s, "smriti_context", "What a send would give the model (mode, checkpoints, turns, messages), without calling it.", readOnly,
		func(ctx context.Context, in contextIn) (string, error) {
			if strings.TrimSpace(in.Message) == "" {
				return "", smriti.Errorf(smriti.EUNPROCESSABLE, "message must not be empty")
			}
			var session smriti.ID
			var space *smriti.ID
			if in.Session != "" {
				id, err := smriti.ParseID("session", in.Session)
				if err != nil {
					return "", err
				}
				session = id
			} else {
				// What a new session of the space would start from; no
				// session is made for the preview.
				sp, err := t.space(ctx, in.Space)
				if err != nil {
					return "", err
				}
				space = &sp.ID
			}
			p, err := t.ops.PreviewContext(ctx, space, app.SendRequest{SessionID: session, Message: in.Message})
			if err != nil {
				return "", err
			}
			return formatPreview(p), nil
		})
	add(t, s, "smriti_review_checkpoint", "LLM review of a checkpoint: contradictions, hidden assumptions, instruction-like content.",
		&sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(true)},
		func(ctx context.Context, in checkpointArg) (string, error) {
			c, err := t.checkpoint(ctx, in.CheckpointID)
			if err != nil {
				return "", err
			}
			r, err := t.ops.Review(ctx, c.ID)
			if err != nil {
				return "", err
			}
			return render.RenderReview(r), nil
		})
}
