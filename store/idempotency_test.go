package store_test

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"

	"smriti"
	"smriti/contract"
	"smriti/idempotency"
	"smriti/store"
	"smriti/store/storetest"
)

func TestKeyedCommitAfterAmbiguousCommitSQLite(t *testing.T) {
	testKeyedAmbiguousCommit(t, openDSN(t, filepath.Join(t.TempDir(), "smriti.db")))
}

func TestKeyedCommitAfterAmbiguousCommitPostgres(t *testing.T) {
	testKeyedAmbiguousCommit(t, openDSN(t, storetest.PostgresDSN(t)))
}

// A checkpoint commit whose COMMIT reports an error after it happened is
// answered from what is stored, and its key's row, written by the same
// transaction, is there: a retry finds the key and writes nothing.
func testKeyedAmbiguousCommit(t *testing.T, s *store.Store) {
	ctx := smriti.WithUser(context.Background(), smriti.NewID())
	sp := storetest.Get(s.CreateSpace(ctx, smriti.SpaceCreate{Name: "trip"})).Must(t)
	se := storetest.Get(s.CreateSession(ctx, smriti.SessionCreate{SpaceID: &sp.ID, Provider: "mock", Model: "mock"})).Must(t)
	claim := &idempotency.Claim{Kind: "commit", Key: "k", RequestHash: "h"}
	var calls atomic.Int32
	s.SetCommitFaults(nil, failOnce(&calls))
	cp, err := s.CommitCheckpoint(idempotency.WithClaim(ctx, claim),
		smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: se.ID, Content: smriti.Content{Message: "A"}})
	s.SetCommitFaults(nil, nil)
	if err != nil {
		t.Fatalf("commit: %v", err)
	}
	if calls.Load() == 0 {
		t.Fatal("the COMMIT fault never ran")
	}
	if !claim.Placed() {
		t.Fatal("claim not placed by the ambiguous commit")
	}
	got := storetest.Get(s.IdempotentAnswer(ctx, "commit", "k")).Must(t)
	if got == nil || got.RequestHash != "h" || got.Status != 0 {
		t.Fatalf("key after the ambiguous commit = %+v", got)
	}
	list, _, err := s.Checkpoints(ctx, sp.ID, contract.CheckpointQuery{})
	if err != nil || len(list) != 1 || list[0].ID != cp.ID {
		t.Fatalf("checkpoints = %d (err %v), want only %s", len(list), err, cp.ID)
	}
}
