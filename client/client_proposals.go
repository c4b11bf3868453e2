package client

import (
	"context"
	"net/http"
	"net/url"

	"smriti"
	"smriti/wire"
)

func proposalsPath(space smriti.ID) string { return "/api/v5/spaces/" + space.String() + "/proposals" }

// SaveProposal saves a draft for later as a pending proposal.
func (c *Client) SaveProposal(ctx context.Context, space smriti.ID, req wire.ProposalRequest) (*wire.ProposalOut, error) {
	var out wire.ProposalOut
	return &out, c.post(ctx, proposalsPath(space), req, &out)
}

// Proposals lists a space's proposals, newest first, of one status when
// status is set.
func (c *Client) Proposals(ctx context.Context, space smriti.ID, status string) ([]wire.ProposalOut, error) {
	var out []wire.ProposalOut
	v := url.Values{}
	if status != "" {
		v.Set("status", status)
	}
	return out, c.get(ctx, withQuery(proposalsPath(space), v), &out)
}

// Proposal reads one proposal.
func (c *Client) Proposal(ctx context.Context, space, id smriti.ID) (*wire.ProposalOut, error) {
	var out wire.ProposalOut
	return &out, c.get(ctx, proposalsPath(space)+"/"+id.String(), &out)
}

// EditProposal changes a pending proposal's content.
func (c *Client) EditProposal(ctx context.Context, space, id smriti.ID, req wire.ProposalEditRequest) (*wire.ProposalOut, error) {
	var out wire.ProposalOut
	_, err := c.Do(ctx, http.MethodPatch, proposalsPath(space)+"/"+id.String(), req, &out)
	return &out, err
}

// AcceptProposal commits a proposal; a conflict is an error whose
// smriti.ErrorData is a *smriti.CommitConflict.
func (c *Client) AcceptProposal(ctx context.Context, space, id smriti.ID, resolutions []smriti.MergeResolution) (*wire.ProposalAccepted, error) {
	var out wire.ProposalAccepted
	return &out, c.post(ctx, proposalsPath(space)+"/"+id.String()+"/accept", wire.ProposalAcceptRequest{Resolutions: resolutions}, &out)
}

// RejectProposal rejects a pending proposal.
func (c *Client) RejectProposal(ctx context.Context, space, id smriti.ID) (*wire.ProposalOut, error) {
	var out wire.ProposalOut
	return &out, c.post(ctx, proposalsPath(space)+"/"+id.String()+"/reject", nil, &out)
}
