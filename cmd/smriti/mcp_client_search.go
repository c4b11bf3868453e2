package main

import (
	"context"

	"smriti"
	"smriti/client"
	"smriti/mcp"
)

var _ mcp.Searcher = clientOps{}

// Search implements mcp.Searcher over the HTTP search endpoint.
func (o clientOps) Search(ctx context.Context, q smriti.SearchQuery) ([]*smriti.SearchHit, error) {
	res, err := o.c.Search(ctx, client.SearchParams{Q: q.Text, SpaceID: q.SpaceID, Kinds: q.Kinds, Branch: q.Branch, Limit: q.Limit})
	if err != nil {
		return nil, err
	}
	return res.Results, nil
}
