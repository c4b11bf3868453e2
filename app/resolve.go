package app

import (
	"context"
	"smriti/internal/textutil"

	"smriti"
)

// maxRefCandidates is how many prefix matches are read: enough to tell one
// from several and to name a few in the "ambiguous" answer.
const maxRefCandidates = 10

// ResolveCheckpoint returns the checkpoint ref names, among those the
// caller can see (of one space when space is set): a full UUID, or a unique
// prefix of at least smriti.MinRefPrefix characters of its hash (what
// Smriti shows) or its id. One query finds the candidates. EINVALID for a
// ref too short or ambiguous, ENOTFOUND when nothing matches.
func (a *App) ResolveCheckpoint(ctx context.Context, space *smriti.ID, ref string) (*smriti.Checkpoint, error) {
	id, err := resolveCheckpointRef(ctx, ref, func(ctx context.Context, prefix string) ([]checkpointRef, error) {
		cps, err := a.store.CheckpointsByPrefix(ctx, space, prefix, maxRefCandidates)
		refs := make([]checkpointRef, len(cps))
		for i, c := range cps {
			refs[i] = checkpointRef{ID: c.ID.String(), Hash: c.Hash}
		}
		return refs, err
	})
	if err != nil {
		return nil, err
	}
	c, err := a.store.Checkpoint(ctx, id)
	if err != nil {
		return nil, err
	}
	if space != nil && c.SpaceID != *space {
		return nil, smriti.Errorf(smriti.ENOTFOUND, "no checkpoint matches %q in this space", textutil.Truncate(ref, 64))
	}
	return c, nil
}
