package store

import (
	"context"
	"errors"
	"fmt"

	"smriti"
	"smriti/store/internal/dbx"
)

// Item versions (see smriti.ItemVersion) are read from the rows where a
// checkpoint changed an item; nothing extra is stored, so a copy of a space
// that keeps its item rows and hashes answers the same names.

// ItemVersions returns up to limit versions of itemID, oldest first: the
// rows where a checkpoint changed that item and whose checkpoint's hash
// starts with hashPrefix (lower-case hex), among the spaces the caller can
// see (of one space when space is set). [] when none.
func (s *Store) ItemVersions(ctx context.Context, space *smriti.ID, itemID, hashPrefix string, limit int) ([]smriti.ItemEvent, error) {
	if !smriti.ValidItemID(itemID) || hashPrefix == "" {
		return nil, nil
	}
	q := `SELECT ` + itemEventCols + `
		FROM checkpoint_items ci JOIN checkpoints c ON c.id = ci.checkpoint_id
		WHERE c.space_id` + memberSpace + ` AND ci.item_id = ? AND ci.change_op <> '' AND c.commit_hash LIKE ?`
	args := []any{smriti.UserFromContext(ctx), itemID, hashPrefix + "%"}
	if space != nil {
		q += ` AND c.space_id = ?`
		args = append(args, *space)
	}
	q += ` ORDER BY c.log_pos, ci.position LIMIT ?`
	args = append(args, limit)
	rows, err := s.read.QueryContext(ctx, s.d.Rebind(q), args...)
	if err != nil {
		return nil, fmt.Errorf("item versions: %w", err)
	}
	out, err := scanItemEvents(rows)
	if err != nil {
		return nil, fmt.Errorf("item versions: %w", err)
	}
	return out, nil
}

// SetItemVersions sets Version on each of items, the items checkpoint c
// holds (c visible to the caller): c's own hash for an item c changed;
// for an item c carried, the hash of the nearest checkpoint below c on its
// first-parent chain that changed it (a carried item is always its first
// parent's version). One query reads the candidate rows; the skip pointers
// tell which of them lie on c's chain. Items of a checkpoint written
// before the ancestry columns keep Version "".
func (s *Store) SetItemVersions(ctx context.Context, c *smriti.Checkpoint, items []smriti.Item) error {
	var carried []any
	at := map[string][]int{}
	for i := range items {
		it := &items[i]
		if it.Change != nil && it.Change.Op != "" {
			it.Version = c.Hash
			continue
		}
		if _, ok := at[it.ID]; !ok {
			carried = append(carried, it.ID)
		}
		at[it.ID] = append(at[it.ID], i)
	}
	if len(carried) == 0 {
		return nil
	}
	anc := s.newAncestry(s.read)
	top, err := anc.node(ctx, c.ID)
	if errors.Is(err, errNoAncestry) {
		return nil
	}
	if err != nil {
		return err
	}
	rows, err := s.read.QueryContext(ctx, s.d.Rebind(`SELECT ci.item_id, c.id, c.commit_hash, c.depth
		FROM checkpoint_items ci JOIN checkpoints c ON c.id = ci.checkpoint_id
		WHERE c.space_id = ? AND ci.change_op <> '' AND c.depth < ? AND ci.item_id IN (`+dbx.Placeholders(len(carried))+`)
		ORDER BY c.depth DESC`), append([]any{c.SpaceID, top.depth}, carried...)...)
	if err != nil {
		return fmt.Errorf("item versions: %w", err)
	}
	type candidate struct {
		item, hash string
		id         smriti.ID
		depth      int64
	}
	var cands []candidate
	for rows.Next() {
		var k candidate
		if err := rows.Scan(&k.item, &k.id, &k.hash, &k.depth); err != nil {
			rows.Close()
			return fmt.Errorf("item versions: %w", err)
		}
		cands = append(cands, k)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("item versions: %w", err)
	}
	for _, k := range cands {
		idx := at[k.item]
		if len(idx) == 0 || items[idx[0]].Version != "" {
			continue
		}
		n, err := anc.ancestorAt(ctx, top, k.depth)
		if errors.Is(err, errNoAncestry) {
			return nil
		}
		if err != nil {
			return err
		}
		if n.id == k.id {
			for _, i := range idx {
				items[i].Version = k.hash
			}
		}
	}
	return nil
}
