package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"smriti"
	"smriti/wire"
)

// createStructuredCheckpoint writes smriti_create_checkpoint's structured
// form: the fields are the checkpoint write's own (message, summary,
// objective, decisions, assumptions, tasks, open_questions, entities,
// artifacts), saved as given — no model is called. Items keep their ids by
// matching the parent's by text, as every checkpoint write does.
func (t *tools) createStructuredCheckpoint(ctx context.Context, in createCheckpointIn) (string, error) {
	if strings.TrimSpace(in.Content) != "" {
		return "", smriti.Errorf(smriti.EUNPROCESSABLE, "give content (markdown) or checkpoint (structured), not both")
	}
	raw, err := json.Marshal(in.Checkpoint)
	if err != nil {
		return "", smriti.Errorf(smriti.EUNPROCESSABLE, "checkpoint: %v", err)
	}
	var f wire.ContentFields
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return "", smriti.Errorf(smriti.EUNPROCESSABLE, "checkpoint: %v", err)
	}
	content := f.Content()
	if content.Message == "" {
		return "", smriti.Errorf(smriti.EUNPROCESSABLE, "checkpoint.message must be a non-empty string (the checkpoint's title)")
	}
	if in.DryRun {
		j, _ := json.MarshalIndent(f, "", "  ")
		return "Dry run — payload (no checkpoint created):\n\n```json\n" + string(j) + "\n```\n", nil
	}
	sp, err := t.space(ctx, in.Space)
	if err != nil {
		return "", err
	}
	req := smriti.CheckpointCommit{SpaceID: sp.ID, Content: content}
	if in.Session != "" {
		if req.SessionID, err = smriti.ParseID("session", in.Session); err != nil {
			return "", err
		}
	}
	if in.AuthorAgent != "" {
		req.AuthorAgent = &in.AuthorAgent
	}
	if in.ProjectRoot != "" {
		req.ProjectRoot = &in.ProjectRoot
		req.Git = t.gitOf(ctx, in.ProjectRoot)
	}
	c, err := t.ops.CommitCheckpoint(ctx, req)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Created checkpoint `%s` on branch `%s`: %s\n", short(c.Hash), c.BranchName, c.Message), nil
}
