package app

import (
	"context"

	"smriti/search"
)

// Search is full-text search of checkpoints, notes and turns, best first.
func (a *App) Search(ctx context.Context, q search.Query) ([]*search.SearchHit, error) {
	return a.store.Search(ctx, q)
}
