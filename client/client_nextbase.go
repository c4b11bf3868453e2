package client

import (
	"context"

	"smriti"
	"smriti/wire"
)

// NextBase asks the server what a checkpoint committed now in session
// (smriti.NilID: none, onto main) would build on: its branch and parent.
// ENOTFOUND for a space or session the caller cannot see, or a session of
// another space.
func (c *Client) NextBase(ctx context.Context, space, session smriti.ID) (*wire.NextBaseOut, error) {
	path := "/api/v5/spaces/" + space.String() + "/next-base"
	if session != smriti.NilID {
		path += "?session_id=" + session.String()
	}
	var out wire.NextBaseOut
	return &out, c.get(ctx, path, &out)
}

// CommitBase is the checkpoint a checkpoint committed now in session
// (smriti.NilID: none, onto main) would build on, as the server decides it
// (NextBase); nil when it would be the first of its line.
func (c *Client) CommitBase(ctx context.Context, space, session smriti.ID) (*smriti.ID, error) {
	nb, err := c.NextBase(ctx, space, session)
	if err != nil {
		return nil, err
	}
	return nb.BaseCheckpointID, nil
}
