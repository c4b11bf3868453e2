package client

import (
	"context"
	"smriti/wire"

	"smriti"
)

// Draft drafts a checkpoint from a session's recent turns.
func (c *Client) Draft(ctx context.Context, req wire.DraftRequest) (*wire.DraftOut, error) {
	var out wire.DraftOut
	return &out, c.post(ctx, "/api/v5/checkpoint/draft", req, &out)
}

// Extract extracts a checkpoint from a markdown document; useMock answers
// with the offline mock whatever the background provider is.
func (c *Client) Extract(ctx context.Context, markdown string, useMock bool, onto *smriti.ID) (*wire.ExtractOut, error) {
	var out wire.ExtractOut
	req := wire.ExtractRequest{Content: &markdown, UseMock: useMock}
	if onto != nil {
		s := onto.String()
		req.Onto = &s
	}
	return &out, c.post(ctx, "/api/v5/checkpoint/extract", req, &out)
}

// ExtractForSave extracts a checkpoint from markdown for a save in space
// (from session; smriti.NilID: onto main), settled as the save would be:
// onto base when set, else onto the checkpoint the save builds on now,
// with the save's default title when the model gave none.
func (c *Client) ExtractForSave(ctx context.Context, space, session smriti.ID, markdown string, useMock bool, base *smriti.ID) (*wire.ExtractOut, error) {
	var out wire.ExtractOut
	sp := space.String()
	req := wire.ExtractRequest{Content: &markdown, UseMock: useMock, SpaceID: &sp}
	if session != smriti.NilID {
		se := session.String()
		req.SessionID = &se
	}
	if base != nil {
		b := base.String()
		req.Onto = &b
	}
	return &out, c.post(ctx, "/api/v5/checkpoint/extract", req, &out)
}

// Review reviews a checkpoint for consistency and instruction-like content.
func (c *Client) Review(ctx context.Context, checkpoint smriti.ID) (*wire.ReviewOut, error) {
	var out wire.ReviewOut
	return &out, c.post(ctx, "/api/v5/checkpoint/"+checkpoint.String()+"/review", nil, &out)
}

// GenerateTitle names a session after its first turns; the session comes
// back unchanged when no title could be generated.
func (c *Client) GenerateTitle(ctx context.Context, session smriti.ID) (*wire.SessionOut, error) {
	var out wire.SessionOut
	return &out, c.post(ctx, "/api/v4/chat/sessions/"+session.String()+"/title", nil, &out)
}
