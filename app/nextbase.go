package app

import (
	"context"

	"smriti"
)

// NextBase is what the next checkpoint of a space, written in a session
// or with none, builds on: its branch and its parent (nil when it would be
// the first of its line), with the parent's hash.
type NextBase struct {
	BranchName   string
	CheckpointID *smriti.ID
	// CommitHash is the parent's hash ("" when there is none).
	CommitHash string
}

// NextBase answers what a checkpoint committed now in session (smriti.NilID:
// with no session, onto main) would build on, by the one domain rule
// (smriti.Session.CommitBranch, smriti.Session.CommitBase). ENOTFOUND for a space the
// caller cannot see, or a session the caller cannot see or of another
// space.
func (a *App) NextBase(ctx context.Context, space, session smriti.ID) (*NextBase, error) {
	var se *smriti.Session
	if session != smriti.NilID {
		var err error
		if se, err = a.store.Session(ctx, session); err != nil {
			return nil, err
		}
		if !se.InSpace(space) {
			return nil, smriti.Errorf(smriti.ENOTFOUND, "Session not found in this space")
		}
	}
	branch := se.CommitBranch()
	// The store tells a space the caller cannot see from an empty one.
	heads, err := a.store.LatestCheckpoints(ctx, space, branch, 1)
	if err != nil {
		return nil, err
	}
	var head *smriti.ID
	if len(heads) > 0 {
		head = &heads[0].ID
	}
	out := &NextBase{BranchName: branch, CheckpointID: se.CommitBase(head)}
	switch {
	case out.CheckpointID == nil:
	case head != nil && *out.CheckpointID == *head:
		out.CommitHash = heads[0].Hash
	default:
		base, err := a.store.Checkpoint(ctx, *out.CheckpointID)
		if err != nil {
			return nil, err
		}
		out.CommitHash = base.Hash
	}
	return out, nil
}

// CommitBase is the checkpoint a checkpoint committed now in session
// (smriti.NilID: with no session, onto main) would build on (NextBase);
// nil when it would be the first of its line.
func (a *App) CommitBase(ctx context.Context, space, session smriti.ID) (*smriti.ID, error) {
	nb, err := a.NextBase(ctx, space, session)
	if err != nil {
		return nil, err
	}
	return nb.CheckpointID, nil
}
