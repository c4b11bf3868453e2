package app

import (
	"context"

	"smriti"
	"smriti/portability"
	"smriti/secretlog"
)

// ScanSecrets looks for secrets in what is already stored — turns, checkpoint
// contents (items and artifacts included), notes, session titles, claims and
// proposals — in one space, or in every space the caller can see when space
// is nil. Each space is read from one consistent snapshot, one record at a
// time; found is called for each secret as it is found, and an error from it
// stops the scan. ENOTFOUND for a space the caller may not see.
func (a *App) ScanSecrets(ctx context.Context, space *smriti.ID, found func(secretlog.StoredSecret) error) (secretlog.SecretScan, error) {
	sc := &portability.SecretScanner{Found: found}
	if space != nil {
		err := a.store.ExportSpace(ctx, *space, sc)
		return sc.Read, err
	}
	spaces, err := a.AllSpaces(ctx)
	if err != nil {
		return sc.Read, err
	}
	for _, sp := range spaces {
		if err := a.store.ExportSpace(ctx, sp.ID, sc); err != nil {
			return sc.Read, err
		}
	}
	return sc.Read, nil
}
