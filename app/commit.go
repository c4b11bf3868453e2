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
	return a.store.CommitCheckpoint(ctx, in)
}

// CommitBase is the checkpoint a checkpoint committed now in session
// (smriti.NilID: with no session, onto main) would build on, by
// smriti.CommitBase; nil when it would be the first of its line.
// ENOTFOUND for a session the caller cannot see or of another space.
func (a *App) CommitBase(ctx context.Context, space, session smriti.ID) (*smriti.ID, error) {
	var se *smriti.Session
	if session != smriti.NilID {
		var err error
		if se, err = a.store.Session(ctx, session); err != nil {
			return nil, err
		}
		if se.SpaceID == nil || *se.SpaceID != space {
			return nil, smriti.Errorf(smriti.ENOTFOUND, "Session not found in this space")
		}
	}
	heads, err := a.store.LatestCheckpoints(ctx, space, smriti.CommitBranch(se), 1)
	if err != nil {
		return nil, err
	}
	var head *smriti.ID
	if len(heads) > 0 {
		head = &heads[0].ID
	}
	return smriti.CommitBase(se, head), nil
}

// CreateCheckpoint saves a checkpoint with an explicit parent and branch
// (the older commit route), its author settled as for CommitCheckpoint.
func (a *App) CreateCheckpoint(ctx context.Context, in smriti.CheckpointCreate) (*smriti.Checkpoint, error) {
	author, err := smriti.CommitAuthor(in.AuthorType, in.AuthorAgent, false, a.backgroundModel())
	if err != nil {
		return nil, err
	}
	in.AuthorType, in.AuthorAgent = author.Type, author.Agent
	return a.store.CreateCheckpoint(ctx, in)
}
