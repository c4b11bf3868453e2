package cli

import (
	"context"
	"fmt"
	"smriti/client"
	"smriti/internal/textutil"
	"smriti/wire"

	"smriti"
)

const spaceListHint = "Run `smriti space list` to see the spaces."

// resolveSpace finds a space by UUID or by name (exact, then
// case-insensitive); several matches ask for the UUID.
func resolveSpace(ctx context.Context, c *client.Client, arg string) (*wire.Repo, error) {
	if textutil.LooksLikeID(arg) {
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
	i, err := client.MatchSpaceName(names, arg)
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
	// The server resolves the reference in one query: a UUID, or 7+
	// characters of a hash (what Smriti shows) or an id.
	cp, err := c.ResolveCheckpoint(ctx, arg, nil)
	return cp, withHint(err, smriti.ENOTFOUND, hint)
}

// spaceName is how a space appears in messages.
func spaceName(r *wire.Repo) string {
	if r.Name == "" {
		return fmt.Sprintf("(unnamed) %s", r.ID)
	}
	return r.Name
}
