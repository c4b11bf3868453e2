package client

import (
	"context"
	"net/http"
	"smriti/wire"

	"smriti"
)

// Fork starts a session on a new branch from a checkpoint.
func (c *Client) Fork(ctx context.Context, req wire.ForkRequest) (*wire.ForkResponse, error) {
	var out wire.ForkResponse
	return &out, c.write(ctx, "/api/v5/lineage/sessions/fork", req, &out)
}

// Tree returns a space's branch tree.
func (c *Client) Tree(ctx context.Context, space smriti.ID) (*wire.LineageTree, error) {
	var out wire.LineageTree
	return &out, c.get(ctx, "/api/v5/lineage/spaces/"+space.String(), &out)
}

// Compare compares two checkpoints of a space.
func (c *Client) Compare(ctx context.Context, a, b smriti.ID) (*wire.CompareResponse, error) {
	var out wire.CompareResponse
	return &out, c.get(ctx, "/api/v5/lineage/checkpoints/"+a.String()+"/compare/"+b.String(), &out)
}

// Reachable lists the checkpoints a session can reach, newest first.
func (c *Client) Reachable(ctx context.Context, session smriti.ID) ([]wire.Commit, error) {
	var out []wire.Commit
	return out, c.get(ctx, "/api/v5/lineage/sessions/"+session.String()+"/checkpoints", &out)
}

// SetDisposition marks every session of a branch active, integrated or
// abandoned.
func (c *Client) SetDisposition(ctx context.Context, space smriti.ID, branch, disposition string) (*wire.DispositionResponse, error) {
	var out wire.DispositionResponse
	sp := space.String()
	_, err := c.Do(ctx, http.MethodPatch, "/api/v5/lineage/branches/disposition",
		wire.DispositionRequest{SpaceID: &sp, BranchName: &branch, Disposition: &disposition}, &out)
	return &out, err
}

// Merge commits a merge (req.DryRun is ignored). Unresolved conflicts come
// back as ECONFLICT whose Data holds "message" and "conflicts".
func (c *Client) Merge(ctx context.Context, req wire.MergeRequest) (*wire.MergeCommitted, error) {
	req.DryRun = false
	var out wire.MergeCommitted
	return &out, c.write(ctx, "/api/v5/lineage/merge", req, &out)
}

// MergePreview runs a merge as a dry run: the merged content and the
// conflicts still to resolve, nothing written.
func (c *Client) MergePreview(ctx context.Context, req wire.MergeRequest) (*wire.MergePreview, error) {
	req.DryRun = true
	var out wire.MergePreview
	return &out, c.post(ctx, "/api/v5/lineage/merge", req, &out)
}
