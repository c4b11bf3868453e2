package app

import (
	"context"
	"smriti/contract"
	"smriti/internal/pages"

	"smriti"
)

// Checkpoint opens a checkpoint (ENOTFOUND when missing or not the
// caller's to see).
func (a *App) Checkpoint(ctx context.Context, id smriti.ID) (*smriti.Checkpoint, error) {
	return a.store.Checkpoint(ctx, id)
}

// Checkpoints lists one page of a space's checkpoints, newest first, and
// the cursor of the next ("" after the last).
func (a *App) Checkpoints(ctx context.Context, space smriti.ID, q contract.CheckpointQuery) ([]*smriti.Checkpoint, string, error) {
	return a.store.Checkpoints(ctx, space, q)
}

// AllCheckpoints lists every checkpoint of a space, newest first, of one
// branch unless branch is "".
func (a *App) AllCheckpoints(ctx context.Context, space smriti.ID, branch string) ([]*smriti.Checkpoint, error) {
	q := contract.CheckpointQuery{}
	if branch != "" {
		q.Branch = &branch
	}
	return pages.All(func(after string) ([]*smriti.Checkpoint, string, error) {
		q.After = after
		return a.store.Checkpoints(ctx, space, q)
	})
}

// LatestCheckpoints are the newest n checkpoints of a branch of a space.
func (a *App) LatestCheckpoints(ctx context.Context, space smriti.ID, branch string, n int) ([]*smriti.Checkpoint, error) {
	return a.store.LatestCheckpoints(ctx, space, branch, n)
}

// ReachableCheckpoints are the checkpoints a session's context can reach.
func (a *App) ReachableCheckpoints(ctx context.Context, sessionID smriti.ID) ([]*smriti.Checkpoint, error) {
	return a.store.ReachableCheckpoints(ctx, sessionID)
}

// DeleteCheckpoint deletes a checkpoint; without cascade it refuses with
// ECONFLICT and the dependents as data.
func (a *App) DeleteCheckpoint(ctx context.Context, id smriti.ID, cascade bool) error {
	return a.store.DeleteCheckpoint(ctx, id, cascade)
}

// AddNote annotates a checkpoint.
func (a *App) AddNote(ctx context.Context, id smriti.ID, in smriti.NoteCreate) (*smriti.Note, error) {
	rs := a.redactText(ctx, func() (smriti.ID, error) {
		c, err := a.store.Checkpoint(ctx, id)
		if err != nil {
			return smriti.NilID, err
		}
		return c.SpaceID, nil
	}, "text", &in.Text)
	n, err := a.store.AddNote(ctx, id, in)
	if err != nil {
		return nil, err
	}
	n.Redactions = rs
	return n, nil
}

// VerifyCheckpoint rechecks the hashes of a checkpoint and its ancestors.
func (a *App) VerifyCheckpoint(ctx context.Context, id smriti.ID) (*smriti.Verification, error) {
	return a.store.VerifyCheckpoint(ctx, id)
}

// CheckpointItems are a checkpoint's items, each with the version it
// holds (Item.Version: the hash of the checkpoint that introduced it).
func (a *App) CheckpointItems(ctx context.Context, id smriti.ID) ([]smriti.Item, error) {
	c, err := a.store.Checkpoint(ctx, id)
	if err != nil {
		return nil, err
	}
	items, err := a.store.CheckpointItems(ctx, id)
	if err != nil {
		return nil, err
	}
	return items, a.store.SetItemVersions(ctx, c, items)
}

// ItemHistory is an item's changes in a space, oldest first (ENOTFOUND
// for an item the space never had).
func (a *App) ItemHistory(ctx context.Context, space smriti.ID, itemID string) ([]smriti.ItemEvent, error) {
	return a.store.ItemHistory(ctx, space, itemID)
}

// Comparison is what two checkpoints share and what each has alone.
type Comparison struct {
	A, B *smriti.Checkpoint
	Diff smriti.CheckpointDiff
	// Ancestor is their lowest common ancestor: nil when their histories
	// are unrelated, and for checkpoints of two spaces, which share no
	// history but whose diff is still worth reading.
	Ancestor *smriti.Checkpoint
}

// Compare diffs two checkpoints the caller can see (ENOTFOUND otherwise),
// for every entry point: checkpoints of two spaces are compared too, with
// no common ancestor.
func (a *App) Compare(ctx context.Context, x, y smriti.ID) (*Comparison, error) {
	cx, err := a.store.Checkpoint(ctx, x)
	if err != nil {
		return nil, err
	}
	cy, err := a.store.Checkpoint(ctx, y)
	if err != nil {
		return nil, err
	}
	out := &Comparison{A: cx, B: cy, Diff: smriti.DiffCheckpoints(cx, cy)}
	if cx.SpaceID == cy.SpaceID {
		if out.Ancestor, err = a.store.CommonAncestor(ctx, x, y); err != nil {
			return nil, err
		}
	}
	return out, nil
}
