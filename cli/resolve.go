package cli

import (
	"context"
	"fmt"
	"smriti/client"
	"smriti/wire"

	"smriti"
)

const spaceListHint = "Run `smriti space list` to see the spaces."

// resolveSpace finds a space by UUID or by name (exact, then
// case-insensitive); several matches ask for the UUID.
func resolveSpace(ctx context.Context, c *client.Client, arg string) (*wire.Repo, error) {
	if smriti.LooksLikeID(arg) {
		id, err := smriti.ParseID("space", arg)
		if err == nil {
			r, err := c.Space(ctx, id)
			if err == nil {
				return r, nil
			}
			if smriti.ErrorCode(err) != smriti.ENOTFOUND {
				return nil, err
			}
		}
	}
	all, err := c.Spaces(ctx)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(all))
	for i, r := range all {
		names[i] = r.Name
	}
	i, err := smriti.MatchSpaceName(names, arg)
	if err != nil {
		return nil, withHint(withHint(err, smriti.ENOTFOUND, spaceListHint), smriti.EINVALID, spaceListHint)
	}
	return &all[i], nil
}

// resolveCheckpoint finds a checkpoint by full UUID, or by a unique prefix
// (at least 7 characters) of its id or hash across every space the caller
// can see.
func resolveCheckpoint(ctx context.Context, c *client.Client, arg string) (*wire.Commit, error) {
	hint := "Run `smriti checkpoint list <space>` to see checkpoint ids."
	id, err := smriti.ResolveCheckpointRef(ctx, arg, func(ctx context.Context) ([]smriti.ID, error) {
		spaces, err := c.Spaces(ctx)
		ids := make([]smriti.ID, len(spaces))
		for i, s := range spaces {
			ids[i] = s.ID
		}
		return ids, err
	}, func(ctx context.Context, space smriti.ID) ([]smriti.CheckpointRef, error) {
		cps, err := c.Checkpoints(ctx, space, "")
		refs := make([]smriti.CheckpointRef, len(cps))
		for i, cp := range cps {
			refs[i] = smriti.CheckpointRef{ID: cp.ID.String(), Hash: cp.CommitHash}
		}
		return refs, err
	})
	if err != nil {
		return nil, withHint(err, smriti.ENOTFOUND, hint)
	}
	// The list shape carries no notes; read the checkpoint itself.
	cp, err := c.Checkpoint(ctx, id)
	return cp, withHint(err, smriti.ENOTFOUND, hint)
}

// spaceName is how a space appears in messages.
func spaceName(r *wire.Repo) string {
	if r.Name == "" {
		return fmt.Sprintf("(unnamed) %s", r.ID)
	}
	return r.Name
}
