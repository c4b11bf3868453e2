package client

import (
	"context"
	"net/url"

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
