package store

import (
	"context"
	"fmt"

	"smriti"
)

// maxVerify bounds a verification walk; a chain longer than this is reported
// as not fully checked rather than walked without end.
const maxVerify = 100000

// VerifyCheckpoint implements smriti.CheckpointService. It loads the
// checkpoint's ancestry (both parent edges) with one recursive query and
// recomputes every hash from the stored content and the stored hashes of the
// parents, so an edit to any row shows up as a mismatch at that row. Purged
// fields are reported (smriti.Verification.Purged).
func (s *Store) VerifyCheckpoint(ctx context.Context, id smriti.ID) (*smriti.Verification, error) {
	start, err := s.checkpoint(ctx, s.read, id)
	if err != nil {
		return nil, err
	}
	chain, err := s.queryCheckpoints(ctx, s.read, `WITH RECURSIVE anc (id, depth) AS (
			SELECT CAST(? AS `+s.d.idType()+`), 0
			UNION
			SELECT p.id, anc.depth + 1 FROM anc JOIN checkpoints c ON c.id = anc.id
			JOIN checkpoints p ON p.id = c.parent_id OR p.id = c.merge_parent_id
			WHERE anc.depth < ?
		)
		SELECT `+checkpointCols+` FROM checkpoints c WHERE c.id IN (SELECT id FROM anc) AND c.space_id = ?
		ORDER BY c.log_pos DESC`, id, maxVerify, start.SpaceID)
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	var itemized []*smriti.Checkpoint
	for _, c := range chain {
		if c.HashVersion >= 2 {
			itemized = append(itemized, c)
		}
	}
	if err := s.attachItems(ctx, s.read, itemized...); err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	if err := s.attachPurged(ctx, s.read, chain...); err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	byID := make(map[smriti.ID]*smriti.Checkpoint, len(chain))
	for _, c := range chain {
		byID[c.ID] = c
	}
	v := &smriti.Verification{OK: true}
	hashOf := func(p *smriti.ID) (string, bool) {
		if p == nil {
			return "", true
		}
		c, ok := byID[*p]
		if !ok {
			return "", false
		}
		return c.Hash, true
	}
	// Newest first, so the first mismatch reported is the one nearest the
	// checkpoint asked about.
	// A purged field of a version 3 checkpoint is proven by the digest it
	// kept; an older checkpoint's hash covers the text that is gone, so its
	// stored hash is taken as it is (its descendants still link to it) and
	// the verification says what is no longer proven.
	for _, c := range chain {
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
	return v, nil
}
