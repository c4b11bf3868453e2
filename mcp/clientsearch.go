package mcp

import (
	"context"

	"smriti/client"
	"smriti/search"
)

var _ Searcher = ClientOps{}

// Search implements Searcher over the HTTP search endpoint.
func (o ClientOps) Search(ctx context.Context, q search.Query) ([]*search.SearchHit, error) {
	res, err := o.c.Search(ctx, client.SearchParams{Q: q.Text, SpaceID: q.SpaceID, Kinds: q.Kinds, Branch: q.Branch, Limit: q.Limit})
	if err != nil {
		return nil, err
	}
	return res.Results, nil
}
