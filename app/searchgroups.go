package app

import (
	"context"
	"smriti"
	"smriti/search"
)

// searchGroupPool is how many hits a grouped search ranks before folding
// them into items: several checkpoints of one item fold into one result, so
// more hits than results are needed to fill a page.
const searchGroupPool = 100

// SearchGrouped finds the caller's state by its words, one result per item:
// an item carried through many checkpoints is one result listing them, a
// turn, a note or a checkpoint matched outside its items are results of
// their own. An item version's name finds that version, as in Search.
// Errors as Search.
func (a *App) SearchGrouped(ctx context.Context, q search.Query) ([]search.SearchGroup, error) {
	if hits, ok, err := a.searchVersion(ctx, q); ok || err != nil {
		groups := make([]search.SearchGroup, 0, len(hits))
		for _, h := range hits {
			groups = append(groups, search.SearchGroup{Kind: h.Kind, Hit: h, Checkpoints: []search.CheckpointRef{}})
		}
		return groups, err
	}
	if err := q.Validate(); err != nil {
		return nil, err
	}
	limit := q.Limit
	q.Limit = searchGroupPool
	hits, err := a.store.Search(ctx, q)
	if err != nil {
		return nil, err
	}
	items := func(id smriti.ID) ([]smriti.Item, error) { return a.store.CheckpointItems(ctx, id) }
	groups, err := search.Group(hits, q.Terms(), items, limit)
	if err != nil {
		return nil, err
	}
	if groups == nil {
		groups = []search.SearchGroup{}
	}
	return groups, nil
}
