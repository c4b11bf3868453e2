package main

import (
	"context"
	"fmt"

	"smriti"
	"smriti/portability"
	"smriti/store"
)

// backupHoldsNoSecret refuses a backup of a store that still holds a
// secret stored before redaction existed, naming it and the commands that
// find and purge it: nothing leaves with a secret, a backup file included.
// Values a space allows pass. It reads every space once, before the backup
// writes anything.
func backupHoldsNoSecret(ctx context.Context, db *store.Store) error {
	spaces, err := db.AllSpaces(ctx)
	if err != nil {
		return err
	}
	for _, sp := range spaces {
		owner := smriti.WithUser(ctx, sp.OwnerID)
		allowed := map[string]bool{}
		list, err := db.SecretAllowlist(owner, sp.ID)
		if err != nil {
			return err
		}
		for _, a := range list {
			allowed[a.Rule+"/"+a.Fingerprint] = true
		}
		guard := &portability.SecretGuard{Space: sp.ID, Exit: "backup",
			Allowed: func(rule, fp string) bool { return allowed[rule+"/"+fp] }}
		if err := db.ExportSpace(owner, sp.ID, guard); err != nil {
			return fmt.Errorf("space %s (%s): %w", sp.ID, sp.Name, err)
		}
	}
	return nil
}
