package client

import (
	"context"
	"net/url"
	"strings"

	"smriti"
	"smriti/wire"
)

// ResolveSession finds the session ref names: its UUID or a unique prefix
// (4+ characters) of its id.
func (c *Client) ResolveSession(ctx context.Context, ref string) (*wire.SessionOut, error) {
	var out wire.SessionOut
	return &out, c.get(ctx, "/api/v5/sessions/resolve?"+url.Values{"ref": {ref}}.Encode(), &out)
}

// ResolveProposal finds space's proposal ref names: its UUID or a unique
// prefix (4+ characters) of its id.
func (c *Client) ResolveProposal(ctx context.Context, space smriti.ID, ref string) (*wire.ProposalOut, error) {
	var out wire.ProposalOut
	q := url.Values{"ref": {ref}, "space_id": {space.String()}}
	return &out, c.get(ctx, "/api/v5/proposals/resolve?"+q.Encode(), &out)
}

// ResolveItem is the history of the item ref names in space: an item id,
// an item@version name, or words of its text (matched against the head).
func (c *Client) ResolveItem(ctx context.Context, space smriti.ID, ref string) (*wire.ItemHistoryOut, error) {
	var out wire.ItemHistoryOut
	q := url.Values{"ref": {ref}, "space_id": {space.String()}}
	return &out, c.get(ctx, "/api/v5/items/resolve?"+q.Encode(), &out)
}

// ResolveClaim finds the claim ref names: its UUID or a unique prefix (4+
// characters) of its id.
func (c *Client) ResolveClaim(ctx context.Context, ref string) (*wire.ClaimOut, error) {
	var out wire.ClaimOut
	return &out, c.get(ctx, "/api/v5/claims/resolve?"+url.Values{"ref": {ref}}.Encode(), &out)
}

// MatchSpaceName is how people and agents name a space when they do not
// give its UUID; the CLI and the MCP tools both resolve names with it. It
// returns the index of the one name equal to arg, else of
// the one equal ignoring case. Several matches are EINVALID (use the UUID),
// none is ENOTFOUND.
func MatchSpaceName(names []string, arg string) (int, error) {
	var exact, fold []int
	for i, n := range names {
		if n == arg {
			exact = append(exact, i)
		} else if strings.EqualFold(n, arg) {
			fold = append(fold, i)
		}
	}
	switch {
	case len(exact) == 1:
		return exact[0], nil
	case len(exact) > 1:
		return -1, smriti.Errorf(smriti.EINVALID, "several spaces are named %q; use the UUID to choose one", arg)
	case len(fold) == 1:
		return fold[0], nil
	case len(fold) > 1:
		return -1, smriti.Errorf(smriti.EINVALID, "several spaces match %q ignoring case; use the UUID to choose one", arg)
	}
	return -1, smriti.Errorf(smriti.ENOTFOUND, "no space found matching %q", arg)
}
