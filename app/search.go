package app

import (
	"context"
	"strings"

	"smriti"
	"smriti/search"
)

// Search is full-text search of checkpoints, notes and turns, best first.
// A query that is an item version's name (item@version) finds that
// version instead: the checkpoint that introduced it, one hit per version
// the name's hash prefix matches.
func (a *App) Search(ctx context.Context, q search.Query) ([]*search.SearchHit, error) {
	if hits, ok, err := a.searchVersion(ctx, q); ok || err != nil {
		return hits, err
	}
	return a.store.Search(ctx, q)
}

// searchVersion answers a query that is an item version's name (ok false
// for any other query, which full-text search answers): the checkpoint of
// each version matching it, of the query's space and branch, [] when none.
func (a *App) searchVersion(ctx context.Context, q search.Query) ([]*search.SearchHit, bool, error) {
	text := strings.TrimSpace(q.Text)
	if !isItemVersionRef(text) || strings.ContainsAny(text, " \t\r\n") {
		return nil, false, nil
	}
	v, err := smriti.ParseItemVersion(text)
	if err != nil {
		return nil, false, nil // words with an @ in them, searched as words
	}
	if err := q.Validate(); err != nil {
		return nil, true, err
	}
	hits := []*search.SearchHit{}
	if !q.Wants(search.KindCheckpoint) {
		return hits, true, nil
	}
	evs, err := a.store.ItemVersions(ctx, q.SpaceID, v.ItemID, v.Hash, q.Limit)
	if err != nil {
		return nil, true, err
	}
	for i := range evs {
		ev := &evs[i]
		if !ev.IsVersion(v.ItemID) || q.Branch != "" && ev.BranchName != q.Branch {
			continue
		}
		c, err := a.store.Checkpoint(ctx, ev.CheckpointID)
		if err != nil {
			return nil, true, err
		}
		id, hash, name := ev.CheckpointID, ev.CommitHash, ev.VersionName()
		hits = append(hits, &search.SearchHit{Kind: search.KindCheckpoint, ID: id, SpaceID: ev.SpaceID, CheckpointID: &id,
			CommitHash: &hash, Branch: ev.BranchName, Title: c.Message, Snippet: ev.Item.Text, Score: 1, ItemVersion: &name, Text: ev.Item.Text})
	}
	return hits, true, nil
}
