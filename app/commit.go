package app

import (
	"context"

	"smriti"
)

// backgroundModel names the model that drafts and extracts ("" when none
// is configured), the author of drafted content.
func (a *App) backgroundModel() string {
	if a.providers == nil {
		return ""
	}
	if _, model, err := a.providers.Background(); err == nil {
		return model
	}
	return ""
}

// CreateCheckpoint saves a checkpoint with an explicit parent and branch
// (the older commit route), its author settled as for CommitCheckpoint.
func (a *App) CreateCheckpoint(ctx context.Context, in smriti.CheckpointCreate) (*smriti.Checkpoint, error) {
	rs, err := a.settleWrite(ctx, in.SpaceID, &in.AuthorType, &in.AuthorAgent, false, a.backgroundModel(), &in.Content, in.Items)
	if err != nil {
		return nil, err
	}
	rs.text("raw_source_text", in.RawSourceText)
	rs.object("context_blob", in.ContextBlob)
	rs.object("metadata", in.Metadata)
	c, err := a.store.CreateCheckpoint(ctx, in)
	if err != nil {
		return nil, err
	}
	c.Redactions = rs.found
	return c, nil
}
