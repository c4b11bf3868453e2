package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"smriti"
	"smriti/store/internal/dbx"
)

// A COMMIT that fails may have happened: the connection broke after the
// server committed, or the server committed locally and then gave up
// waiting for a synchronous standby ("the transaction has already committed
// locally"). Writing again would store the same thing twice; reporting a
// failure would hide a write that is there. Ids are made in Go before the
// transaction, so the store settles the question by looking: it waits for
// the transaction to end (a share lock on a row the transaction locked is
// granted only then) and reads whether its rows are stored.

// settleTimeout bounds the look-up after an ambiguous COMMIT.
const settleTimeout = 10 * time.Second

// stored waits until no transaction holds a lock on the rows lockIDs of
// lockTable, then reports which of ids are rows of table.
func (s *Store) stored(ctx context.Context, lockTable string, lockIDs []smriti.ID, table string, ids []smriti.ID) (map[smriti.ID]bool, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
	defer cancel()
	found := map[smriti.ID]bool{}
	err := s.tx1(ctx, func(tx *sql.Tx) error {
		if s.d.Name == "postgres" && len(lockIDs) > 0 {
			args := make([]any, len(lockIDs))
			for i, id := range lockIDs {
				args[i] = id
			}
			rows, err := tx.QueryContext(ctx, s.d.Rebind(`SELECT id FROM `+lockTable+` WHERE id IN (`+dbx.Placeholders(len(args))+`) ORDER BY id FOR SHARE`), args...)
			if err != nil {
				return fmt.Errorf("wait for the transaction: %w", err)
			}
			rows.Close()
		}
		for start := 0; start < len(ids); start += 500 {
			part := ids[start:min(len(ids), start+500)]
			args := make([]any, len(part))
			for i, id := range part {
				args[i] = id
			}
			got, err := dbx.QueryAll(ctx, s.d, tx, "look up written rows", func(r interface{ Scan(...any) error }) (smriti.ID, error) {
				var id smriti.ID
				return id, r.Scan(&id)
			}, `SELECT id FROM `+table+` WHERE id IN (`+dbx.Placeholders(len(args))+`)`, args...)
			if err != nil {
				return err
			}
			for _, id := range got {
				found[id] = true
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("settle an interrupted commit: %w", err)
	}
	return found, nil
}

// settleCheckpoint answers a checkpoint write whose COMMIT failed from what
// is stored: the checkpoint written (the space's row was locked by the
// transaction), or the commit's error when it is not there.
func (s *Store) settleCheckpoint(ctx context.Context, spaceID smriti.ID, c *smriti.Checkpoint, err error) (*smriti.Checkpoint, error) {
	if err == nil || c == nil || !dbx.Ambiguous(err) {
		return c, err
	}
	found, lerr := s.stored(ctx, "spaces", []smriti.ID{spaceID}, "checkpoints", []smriti.ID{c.ID})
	if lerr != nil {
		return nil, errors.Join(err, lerr)
	}
	if found[c.ID] {
		s.log.WarnContext(ctx, "commit reported an error but the checkpoint is stored", "checkpoint", c.ID, "err", err)
		return c, nil
	}
	return nil, err
}
