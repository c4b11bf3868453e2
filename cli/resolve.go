package cli

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"smriti"
	"smriti/httpapi"
)

const spaceListHint = "Run `smriti space list` to see the spaces."

// resolveSpace finds a space by UUID or by name (exact, then
// case-insensitive); several matches ask for the UUID.
func resolveSpace(ctx context.Context, c *httpapi.Client, arg string) (*httpapi.Repo, error) {
	if looksLikeUUID(arg) {
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
	var exact, fold []httpapi.Repo
	for _, r := range all {
		if r.Name == arg {
			exact = append(exact, r)
		} else if strings.EqualFold(r.Name, arg) {
			fold = append(fold, r)
		}
	}
	switch {
	case len(exact) == 1:
		return &exact[0], nil
	case len(exact) > 1:
		return nil, failf("several spaces are named %q; use the UUID to choose one (`smriti space list`)", arg)
	case len(fold) == 1:
		return &fold[0], nil
	case len(fold) > 1:
		return nil, failf("several spaces match %q ignoring case; use the UUID to choose one (`smriti space list`)", arg)
	}
	return nil, &hinted{err: smriti.Errorf(smriti.ENOTFOUND, "no space found matching %q", arg), hint: spaceListHint}
}

func looksLikeUUID(s string) bool {
	return len(s) == 36 && strings.Count(s, "-") == 4
}

// minPrefix is the shortest checkpoint id or hash prefix accepted.
const minPrefix = 7

// resolveCheckpoint finds a checkpoint by full UUID, or by a unique prefix
// (at least 7 characters) of its id or hash across every space the caller
// can see.
func resolveCheckpoint(ctx context.Context, c *httpapi.Client, arg string) (*httpapi.Commit, error) {
	hint := "Run `smriti checkpoint list <space>` to see checkpoint ids."
	if looksLikeUUID(arg) {
		id, err := smriti.ParseID("checkpoint", arg)
		if err != nil {
			return nil, err
		}
		cp, err := c.Checkpoint(ctx, id)
		return cp, withHint(err, smriti.ENOTFOUND, hint)
	}
	p := strings.ToLower(arg)
	if len(p) < minPrefix {
		return nil, failf("checkpoint %q: give the full id or at least %d characters of its id or hash", arg, minPrefix)
	}
	spaces, err := c.Spaces(ctx)
	if err != nil {
		return nil, err
	}
	var found []httpapi.Commit
	for _, s := range spaces {
		cps, err := c.Checkpoints(ctx, s.ID, "")
		if err != nil {
			return nil, err
		}
		for _, cp := range cps {
			if strings.HasPrefix(cp.ID.String(), p) || strings.HasPrefix(cp.CommitHash, p) {
				found = append(found, cp)
			}
		}
	}
	switch len(found) {
	case 0:
		return nil, &hinted{err: smriti.Errorf(smriti.ENOTFOUND, "no checkpoint matches %q", arg), hint: hint}
	case 1:
		// The list shape has no notes; read the checkpoint itself.
		return c.Checkpoint(ctx, found[0].ID)
	}
	ids := make([]string, len(found))
	for i, f := range found {
		ids[i] = short(f.CommitHash) + " (" + f.ID.String() + ")"
	}
	sort.Strings(ids)
	return nil, failf("checkpoint prefix %q is ambiguous: %s; give more characters", arg, strings.Join(ids, ", "))
}

// spaceName is how a space appears in messages.
func spaceName(r *httpapi.Repo) string {
	if r.Name == "" {
		return fmt.Sprintf("(unnamed) %s", r.ID)
	}
	return r.Name
}
