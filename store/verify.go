package store

import (
	"context"
	"database/sql"
	"fmt"

	"smriti"
	"smriti/internal/memtrim"
	"smriti/store/internal/dbx"
)

// maxVerify bounds a verification walk; a chain longer than this is reported
// as not fully checked rather than walked without end.
const maxVerify = 100000

// verifyPage is how many checkpoints a verification holds with their
// content and items at a time.
const verifyPage = 200

// VerifyCheckpoint implements contract.CheckpointService. It lists the
// checkpoint's ancestry (both parent edges) with one recursive query, then
// reads it a page at a time and recomputes every hash from the stored
// content and the stored hashes of the parents, so an edit to any row shows
// up as a mismatch at that row. Memory follows the page, not the history.
// Purged fields are reported (smriti.Verification.Purged): a version 3
// checkpoint's purged field is proven by the digest it kept; an older
// checkpoint's hash covers the text that is gone, so its stored hash is
// taken as it is (its descendants still link to it) and the verification
// says what is no longer proven.
func (s *Store) VerifyCheckpoint(ctx context.Context, id smriti.ID) (*smriti.Verification, error) {
	start, err := s.checkpoint(ctx, s.read, id)
	if err != nil {
		return nil, err
	}
	v := &smriti.Verification{OK: true}
	err = s.readTx(ctx, func(tx *sql.Tx) error {
		chain, hashes, err := s.verifyChain(ctx, tx, id, start.SpaceID)
		if err != nil {
			return err
		}
		if len(chain) > verifyPage {
			// Each page read and hashed is garbage by the next: a long
			// chain's collect sooner (as an import's).
			defer memtrim.Hold()()
		}
		hashOf := func(p *smriti.ID) (string, bool) {
			if p == nil {
				return "", true
			}
			h, ok := hashes[*p]
			return h, ok
		}
		// Newest first, so the first mismatch reported is the one nearest
		// the checkpoint asked about.
		for len(chain) > 0 {
			n := min(verifyPage, len(chain))
			page, err := s.verifyPageOf(ctx, tx, chain[:n])
			if err != nil {
				return err
			}
			chain = chain[n:]
			for _, c := range page {
				v.Checked++
				for _, p := range c.Purged {
					v.Purged = append(v.Purged, smriti.PurgeStatement(c, p))
				}
				if !c.HashProvable() {
					continue
				}
				ph, ok1 := hashOf(c.ParentID)
				mh, ok2 := hashOf(c.MergeParentID)
				if !ok1 || !ok2 || c.ComputeHash(ph, mh) != c.Hash {
					if v.OK {
						id := c.ID
						v.FirstMismatch = &id
					}
					v.OK = false
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	return v, nil
}

// verifyChain lists the ancestry of id within space, newest first, and
// each checkpoint's stored hash (what a child's hash is computed from).
func (s *Store) verifyChain(ctx context.Context, tx *sql.Tx, id, space smriti.ID) ([]smriti.ID, map[smriti.ID]string, error) {
	rows, err := tx.QueryContext(ctx, s.d.Rebind(`WITH RECURSIVE anc (id, depth) AS (
			SELECT CAST(? AS `+s.d.IDType()+`), 0
			UNION
			SELECT p.id, anc.depth + 1 FROM anc JOIN checkpoints c ON c.id = anc.id
			JOIN checkpoints p ON p.id = c.parent_id OR p.id = c.merge_parent_id
			WHERE anc.depth < ?
		)
		SELECT c.id, c.commit_hash FROM checkpoints c WHERE c.id IN (SELECT id FROM anc) AND c.space_id = ?
		ORDER BY c.log_pos DESC`), id, maxVerify, space)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var chain []smriti.ID
	hashes := map[smriti.ID]string{}
	for rows.Next() {
		var id smriti.ID
		var hash string
		if err := rows.Scan(&id, &hash); err != nil {
			return nil, nil, err
		}
		chain = append(chain, id)
		hashes[id] = hash
	}
	return chain, hashes, rows.Err()
}

// verifyPageOf reads the checkpoints ids with their items, in the order of
// ids.
func (s *Store) verifyPageOf(ctx context.Context, tx *sql.Tx, ids []smriti.ID) ([]*smriti.Checkpoint, error) {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	page, err := s.queryCheckpoints(ctx, tx, `SELECT `+checkpointCols+` FROM checkpoints c WHERE c.id IN (`+dbx.Placeholders(len(ids))+`)
		ORDER BY c.log_pos DESC`, args...)
	if err != nil {
		return nil, err
	}
	var itemized []*smriti.Checkpoint
	for _, c := range page {
		if c.HashVersion >= 2 {
			itemized = append(itemized, c)
		}
	}
	if err := s.attachItems(ctx, tx, itemized...); err != nil {
		return nil, err
	}
	if err := s.attachPurged(ctx, tx, page...); err != nil {
		return nil, err
	}
	return page, nil
}
