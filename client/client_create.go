package client

import (
	"context"
	"smriti/wire"

	"smriti"
)

// StatusOf is the HTTP status the server answers for err's domain code
// (500 for errors without one), for clients that report it.
func StatusOf(err error) int {
	if s, ok := wire.StatusByCode[smriti.ErrorCode(err)]; ok {
		return s
	}
	return 500
}

// CreateSessionWith creates a session from a full request (seed_from).
func (c *Client) CreateSessionWith(ctx context.Context, req wire.SessionCreateRequest) (*wire.SessionOut, error) {
	var out wire.SessionOut
	return &out, c.post(ctx, "/api/v4/chat/sessions", req, &out)
}
