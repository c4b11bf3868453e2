package storetest

import (
	"testing"

	"smriti"
	"smriti/store"
)

func itemNamed(t *testing.T, items []smriti.Item, text string) smriti.Item {
	t.Helper()
	for _, it := range items {
		if it.Text == text {
			return it
		}
	}
	t.Fatalf("no item %q in %+v", text, items)
	return smriti.Item{}
}

// testItemsAcrossCommits: ids live across checkpoints, a dropped item is a
// tombstone of the commit that dropped it, and the hash covers the items.
func testItemsAcrossCommits(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	se := newSession(t, ctx, s, sp)
	a := commit(t, ctx, s, sp, se, "A", "Use Go", "Keep the API")
	b := commit(t, ctx, s, sp, se, "B", "Use Go", "Ship weekly")
	ia := Get(s.CheckpointItems(ctx, a.ID)).Must(t)
	ib := Get(s.CheckpointItems(ctx, b.ID)).Must(t)
	if a.HashVersion != smriti.CurrentHashVersion || len(ia) != 2 || len(ib) != 3 {
		t.Fatalf("hash version %d, items %+v then %+v", a.HashVersion, ia, ib)
	}
	goA, goB := itemNamed(t, ia, "Use Go"), itemNamed(t, ib, "Use Go")
	if goA.ID != goB.ID || goB.Change != nil || goB.Origin.CheckpointID == nil || *goB.Origin.CheckpointID != a.ID {
		t.Errorf("carried item = %+v, want %s from %s", goB, goA.ID, a.ID)
	}
	if gone := itemNamed(t, ib, "Keep the API"); gone.Status != smriti.ItemRetracted || gone.Change == nil || gone.Change.Op != smriti.OpRetract {
		t.Errorf("dropped item = %+v", gone)
	}
	if v := Get(s.VerifyCheckpoint(ctx, b.ID)).Must(t); !v.OK || v.Checked != 2 {
		t.Fatalf("verify = %+v", v)
	}
	if _, err := s.DB().Exec(s.Rebind(`UPDATE checkpoint_items SET text = 'Use Rust' WHERE checkpoint_id = ? AND item_id = ?`), a.ID, goA.ID); err != nil {
		t.Fatal(err)
	}
	if v := Get(s.VerifyCheckpoint(ctx, b.ID)).Must(t); v.OK || v.FirstMismatch == nil || *v.FirstMismatch != a.ID {
		t.Errorf("tampered item: verify = %+v, want a mismatch at %s", v, a.ID)
	}
	bob := userCtx()
	_, err := s.CheckpointItems(bob, a.ID)
	wantCode(t, err, smriti.ENOTFOUND)
}

// testItemHistory: the changes to an item along the lineage, oldest first.
func testItemHistory(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	se := newSession(t, ctx, s, sp)
	a := commit(t, ctx, s, sp, se, "A", "TTL is 15 minutes")
	ttl := Get(s.CheckpointItems(ctx, a.ID)).Must(t)[0]
	b := Get(s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: se.ID,
		Content: smriti.Content{Message: "B", Decisions: []string{"TTL is 30 minutes"}},
		Items:   []smriti.Item{{ID: ttl.ID, Kind: smriti.KindDecision, Text: "TTL is 30 minutes"}}})).Must(t)
	commit(t, ctx, s, sp, se, "C", "TTL is 30 minutes") // carried: no event
	evs := Get(s.ItemHistory(ctx, sp.ID, ttl.ID)).Must(t)
	if len(evs) != 2 || evs[0].CheckpointID != a.ID || evs[1].CheckpointID != b.ID ||
		evs[0].KindFor(ttl.ID) != smriti.EventIntroduced || evs[1].KindFor(ttl.ID) != smriti.EventChanged ||
		evs[1].Item.Change.Before == nil || *evs[1].Item.Change.Before != "TTL is 15 minutes" {
		t.Fatalf("history = %+v", evs)
	}
	_, err := s.ItemHistory(ctx, sp.ID, "d-000000")
	wantCode(t, err, smriti.ENOTFOUND)
	_, err = s.ItemHistory(userCtx(), sp.ID, ttl.ID)
	wantCode(t, err, smriti.ENOTFOUND)
}

// testItemsBackfill: a checkpoint written before items had ids (hash
// version 1, no item rows) gets its items at start-up, matched to its
// parent's by text, and its hash still verifies.
func testItemsBackfill(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	se := newSession(t, ctx, s, sp)
	a := commit(t, ctx, s, sp, se, "A", "Use Go", "Keep the API")
	b := commit(t, ctx, s, sp, se, "B", "use go", "Ship weekly")
	asVersion1(t, s, a, b)
	if v := Get(s.VerifyCheckpoint(ctx, b.ID)).Must(t); !v.OK {
		t.Fatalf("version 1 chain does not verify: %+v", v)
	}
	if err := s.BackfillItems(ctx); err != nil {
		t.Fatal(err)
	}
	ia, ib := Get(s.CheckpointItems(ctx, a.ID)).Must(t), Get(s.CheckpointItems(ctx, b.ID)).Must(t)
	if len(ia) != 2 || len(ib) != 3 || itemNamed(t, ia, "Use Go").ID != itemNamed(t, ib, "use go").ID ||
		itemNamed(t, ib, "Keep the API").Status != smriti.ItemRetracted {
		t.Fatalf("backfilled items %+v then %+v", ia, ib)
	}
	if v := Get(s.VerifyCheckpoint(ctx, b.ID)).Must(t); !v.OK || v.Checked != 2 {
		t.Fatalf("after backfill verify = %+v", v)
	}
	// A new commit on top is version 2 and matches the backfilled ids.
	c := commit(t, ctx, s, sp, se, "C", "use go", "Ship weekly")
	ic := Get(s.CheckpointItems(ctx, c.ID)).Must(t)
	if c.HashVersion != smriti.CurrentHashVersion || itemNamed(t, ic, "Ship weekly").ID != itemNamed(t, ib, "Ship weekly").ID {
		t.Errorf("commit after backfill: %+v", ic)
	}
	if v := Get(s.VerifyCheckpoint(ctx, c.ID)).Must(t); !v.OK || v.Checked != 3 {
		t.Errorf("mixed chain verify = %+v", v)
	}
}

// asVersion1 makes a root checkpoint and its descendants in line (in that
// order) what an older version wrote: version 1 hashes, no items, items
// not derived yet.
func asVersion1(t *testing.T, s *store.Store, line ...*smriti.Checkpoint) {
	t.Helper()
	parentHash := ""
	for _, c := range line {
		c.HashVersion, c.Items = 1, nil
		c.Hash = c.ComputeHash(parentHash, "")
		parentHash = c.Hash
		if _, err := s.DB().Exec(s.Rebind(`DELETE FROM checkpoint_items WHERE checkpoint_id = ?`), c.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.DB().Exec(s.Rebind(`UPDATE checkpoints SET hash_version = 1, items_ready = 0, commit_hash = ? WHERE id = ?`), c.Hash, c.ID); err != nil {
			t.Fatal(err)
		}
	}
}
