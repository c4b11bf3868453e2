package mcp

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"smriti"
)

// registerWrites adds the tools that save, annotate and delete checkpoints.
func (t *tools) registerWrites(s *sdk.Server) {
	addReply(t, s, "smriti_create_checkpoint", "Save state: markdown (extracted) or an object (as is). A save behind the head is rebased, or refused listing the conflicts.", additive,
		t.createCheckpoint)
	add(t, s, "smriti_checkpoint_note", "Annotate a checkpoint without changing it.", additive,
		func(ctx context.Context, in noteIn) (string, error) {
			c, err := t.checkpoint(ctx, in.CheckpointID)
			if err != nil {
				return "", err
			}
			if in.Author == "" {
				in.Author = t.agent(ctx)
			}
			if in.Kind == "" {
				in.Kind = smriti.NoteKindNote
			}
			n, err := t.ops.AddNote(ctx, c.ID, smriti.NoteCreate{Author: in.Author, Text: in.Text, Kind: in.Kind})
			if err != nil {
				return "", err
			}
			suffix := ""
			if n.Kind != smriti.NoteKindNote {
				suffix = " [" + n.Kind + "]"
			}
			return fmt.Sprintf("Note added to checkpoint `%s…`%s\n", c.ID.String()[:8], suffix) + redactedText(n.Redactions), nil
		})
	add(t, s, "smriti_delete_checkpoint", "Delete a checkpoint; refused while others depend on it, unless cascade.", destructive,
		func(ctx context.Context, in deleteCheckpointIn) (string, error) {
			c, err := t.checkpoint(ctx, in.CheckpointID)
			if err != nil {
				return "", err
			}
			if err := t.ops.DeleteCheckpoint(ctx, c.ID, in.Cascade); err != nil {
				return "", err
			}
			suffix := ""
			if in.Cascade {
				suffix = " (cascade)"
			}
			return fmt.Sprintf("Deleted checkpoint `%s`%s.\n", short(c.Hash), suffix), nil
		})
}
