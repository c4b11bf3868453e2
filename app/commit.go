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

// CommitCheckpoint saves content onto the head of a session's branch, or,
// with no session (in.SessionID is smriti.NilID), onto the head of main.
// The author is settled here (smriti.CommitAuthor): what the caller names,
// else the background model for content drafted from source turns.
func (a *App) CommitCheckpoint(ctx context.Context, in smriti.CheckpointCommit) (*smriti.Checkpoint, error) {
	author, err := smriti.CommitAuthor(in.AuthorType, in.AuthorAgent, in.SourceTurns != nil, a.backgroundModel())
	if err != nil {
		return nil, err
	}
	in.AuthorType, in.AuthorAgent = author.Type, author.Agent
	rs := a.redactor(ctx, in.SpaceID)
	rs.content(&in.Content)
	rs.items(in.Items)
	c, err := a.store.CommitCheckpoint(ctx, in)
	if err != nil {
		return nil, err
	}
	c.Redactions = rs.found
	return c, nil
}

// CreateCheckpoint saves a checkpoint with an explicit parent and branch
// (the older commit route), its author settled as for CommitCheckpoint.
func (a *App) CreateCheckpoint(ctx context.Context, in smriti.CheckpointCreate) (*smriti.Checkpoint, error) {
	author, err := smriti.CommitAuthor(in.AuthorType, in.AuthorAgent, false, a.backgroundModel())
	if err != nil {
		return nil, err
	}
	in.AuthorType, in.AuthorAgent = author.Type, author.Agent
	rs := a.redactor(ctx, in.SpaceID)
	rs.content(&in.Content)
	rs.items(in.Items)
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
