package app

import (
	"context"
	"smriti/contract"

	"smriti"
)

// LogPosition is where a space's change log is now (where a watcher that
// wants only new changes starts).
func (a *App) LogPosition(ctx context.Context, space smriti.ID) (int64, error) {
	return a.store.LogPosition(ctx, space)
}

// SpaceEvents are up to limit changes of a space after a log position,
// oldest first.
func (a *App) SpaceEvents(ctx context.Context, space smriti.ID, after int64, limit int) ([]contract.SpaceEvent, error) {
	return a.store.SpaceEvents(ctx, space, after, limit)
}
