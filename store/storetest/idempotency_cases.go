package storetest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"smriti"
	"smriti/contract"
	"smriti/idempotency"
	"smriti/store"
)

// idempotencyCases are the keys of creating writes other than sends.
var idempotencyCases = []struct {
	name string
	fn   func(t *testing.T, s *store.Store)
}{
	{"IdempotencyKeyStoredWithItsWrite", testKeyStoredWithWrite},
	{"IdempotencyKeyOfAFailedWriteIsNotStored", testKeyOfFailedWrite},
	{"IdempotencyKeysScopedByUserAndKind", testKeyScopes},
	{"IdempotencyKeyRetentionAndPurge", testKeyRetention},
	{"ConcurrentWritesWithOneKeyWriteOnce", testConcurrentKeyedWrites},
}

func claimCtx(ctx context.Context, kind, key, hash string) (context.Context, *idempotency.Claim) {
	c := &idempotency.Claim{Kind: kind, Key: key, RequestHash: hash}
	return idempotency.WithClaim(ctx, c), c
}

func countCheckpoints(t *testing.T, ctx context.Context, s *store.Store, space smriti.ID) int {
	t.Helper()
	list, _, err := s.Checkpoints(ctx, space, contract.CheckpointQuery{})
	if err != nil {
		t.Fatal(err)
	}
	return len(list)
}

// The key's row is written by the write's transaction (no answer yet), the
// answer is recorded once, and a second write under the key is refused
// without writing.
func testKeyStoredWithWrite(t *testing.T, s *store.Store) {
	ctx := userCtx()
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	s.Now = func() time.Time { return now }
	sp := newSpace(t, ctx, s)
	se := newSession(t, ctx, s, sp)
	if got := Get(s.IdempotentAnswer(ctx, "commit", "k1")).Must(t); got != nil {
		t.Fatalf("answer before any write = %+v", got)
	}
	wctx, claim := claimCtx(ctx, "commit", "k1", "h1")
	cp := Get(s.CommitCheckpoint(wctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: se.ID, Content: smriti.Content{Message: "A"}})).Must(t)
	if !claim.Placed() {
		t.Fatal("the claim was not placed by the commit")
	}
	got := Get(s.IdempotentAnswer(ctx, "commit", "k1")).Must(t)
	if got == nil || got.RequestHash != "h1" || got.Status != 0 || len(got.Body) != 0 || !got.CreatedAt.Equal(now) {
		t.Fatalf("row after the write = %+v", got)
	}
	if err := s.RecordIdempotentAnswer(ctx, "commit", "k1", "h1", 201, []byte(`{"id":"`+cp.ID.String()+`"}`)); err != nil {
		t.Fatal(err)
	}
	// A second record (another request's hash, or another answer) changes nothing.
	if err := s.RecordIdempotentAnswer(ctx, "commit", "k1", "h1", 500, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordIdempotentAnswer(ctx, "commit", "k1", "h2", 200, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	got = Get(s.IdempotentAnswer(ctx, "commit", "k1")).Must(t)
	if got.Status != 201 || string(got.Body) != `{"id":"`+cp.ID.String()+`"}` || got.RequestHash != "h1" {
		t.Fatalf("recorded answer = %d %s %s", got.Status, got.Body, got.RequestHash)
	}
	wctx, claim = claimCtx(ctx, "commit", "k1", "h1")
	_, err := s.CommitCheckpoint(wctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: se.ID, Content: smriti.Content{Message: "A"}})
	if !errors.Is(err, idempotency.ErrKeyTaken) {
		t.Fatalf("second write under the key: err = %v, want idempotency.ErrKeyTaken", err)
	}
	if claim.Placed() {
		t.Fatal("a refused write placed its claim")
	}
	if n := countCheckpoints(t, ctx, s, sp.ID); n != 1 {
		t.Fatalf("checkpoints = %d, want 1", n)
	}
	// A row with no answer (the write's transaction inserted none) is
	// inserted by the record.
	if err := s.RecordIdempotentAnswer(ctx, "fork", "k9", "h9", 200, nil); err != nil {
		t.Fatal(err)
	}
	got = Get(s.IdempotentAnswer(ctx, "fork", "k9")).Must(t)
	if got == nil || got.Status != 200 || len(got.Body) != 0 || got.RequestHash != "h9" {
		t.Fatalf("inserted answer = %+v", got)
	}
}

// A write that fails rolls its key back with it: the key stays free.
func testKeyOfFailedWrite(t *testing.T, s *store.Store) {
	ctx := userCtx()
	wctx, claim := claimCtx(ctx, "note", "k", "h")
	_, err := s.AddNote(wctx, smriti.NewID(), smriti.NoteCreate{Text: "x", Kind: "note"})
	wantCode(t, err, smriti.ENOTFOUND)
	if claim.Placed() {
		t.Fatal("a failed write placed its claim")
	}
	if got := Get(s.IdempotentAnswer(ctx, "note", "k")).Must(t); got != nil {
		t.Fatalf("key of a failed write = %+v", got)
	}
	sp := newSpace(t, ctx, s)
	se := newSession(t, ctx, s, sp)
	cp := commit(t, ctx, s, sp, se, "A")
	Get(s.AddNote(wctx, cp.ID, smriti.NoteCreate{Text: "x", Kind: "note"})).Must(t)
	if got := Get(s.IdempotentAnswer(ctx, "note", "k")).Must(t); got == nil || got.RequestHash != "h" {
		t.Fatalf("key after the write that succeeded = %+v", got)
	}
}

// The same key of another user or of another kind is another key.
func testKeyScopes(t *testing.T, s *store.Store) {
	alice, bob := userCtx(), userCtx()
	for _, ctx := range []context.Context{alice, bob} {
		sp := newSpace(t, ctx, s)
		se := newSession(t, ctx, s, sp)
		wctx, _ := claimCtx(ctx, "commit", "same", "h")
		Get(s.CommitCheckpoint(wctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: se.ID, Content: smriti.Content{Message: "A"}})).Must(t)
		wctx, _ = claimCtx(ctx, "claim", "same", "h")
		Get(s.CommitCheckpoint(wctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: se.ID, Content: smriti.Content{Message: "B"}})).Must(t)
		if n := countCheckpoints(t, ctx, s, sp.ID); n != 2 {
			t.Fatalf("checkpoints = %d, want 2", n)
		}
	}
	if err := s.RecordIdempotentAnswer(alice, "commit", "same", "h", 201, []byte("alice")); err != nil {
		t.Fatal(err)
	}
	if got := Get(s.IdempotentAnswer(bob, "commit", "same")).Must(t); got == nil || got.Status != 0 {
		t.Fatalf("bob's key = %+v, want his own row with no answer", got)
	}
	if got := Get(s.IdempotentAnswer(alice, "claim", "same")).Must(t); got == nil || got.Status != 0 {
		t.Fatalf("alice's claim key = %+v, want its own row with no answer", got)
	}
}

// A key past the retention is ignored, taken over by a new write, and
// purged.
func testKeyRetention(t *testing.T, s *store.Store) {
	ctx := userCtx()
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	s.Now = func() time.Time { return now }
	s.KeyRetention = time.Hour
	sp := newSpace(t, ctx, s)
	se := newSession(t, ctx, s, sp)
	wctx, _ := claimCtx(ctx, "commit", "k", "h1")
	Get(s.CommitCheckpoint(wctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: se.ID, Content: smriti.Content{Message: "A"}})).Must(t)
	if err := s.RecordIdempotentAnswer(ctx, "commit", "k", "h1", 201, []byte("first")); err != nil {
		t.Fatal(err)
	}
	now = now.Add(59 * time.Minute)
	if got := Get(s.IdempotentAnswer(ctx, "commit", "k")).Must(t); got == nil || string(got.Body) != "first" {
		t.Fatalf("key within its retention = %+v", got)
	}
	if n := Get(s.PurgeSendKeys(ctx)).Must(t); n != 0 {
		t.Fatalf("purged %d keys within the retention", n)
	}
	now = now.Add(2 * time.Minute)
	if got := Get(s.IdempotentAnswer(ctx, "commit", "k")).Must(t); got != nil {
		t.Fatalf("expired key = %+v", got)
	}
	wctx, _ = claimCtx(ctx, "commit", "k", "h2")
	Get(s.CommitCheckpoint(wctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: se.ID, Content: smriti.Content{Message: "B"}})).Must(t)
	got := Get(s.IdempotentAnswer(ctx, "commit", "k")).Must(t)
	if got == nil || got.RequestHash != "h2" || got.Status != 0 || !got.CreatedAt.Equal(now) {
		t.Fatalf("taken-over key = %+v", got)
	}
	now = now.Add(2 * time.Hour)
	if n := Get(s.PurgeSendKeys(ctx)).Must(t); n != 1 {
		t.Fatalf("purged %d keys after the retention, want 1", n)
	}
	if got := Get(s.IdempotentAnswer(ctx, "commit", "k")).Must(t); got != nil {
		t.Fatalf("purged key = %+v", got)
	}
}

// Concurrent writes under one key: exactly one writes; every other is
// refused with idempotency.ErrKeyTaken.
func testConcurrentKeyedWrites(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	se := newSession(t, ctx, s, sp)
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wctx, _ := claimCtx(ctx, "commit", "one", "h")
			_, errs[i] = s.CommitCheckpoint(wctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: se.ID, Content: smriti.Content{Message: "A"}})
		}()
	}
	wg.Wait()
	ok, taken := 0, 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, idempotency.ErrKeyTaken):
			taken++
		default:
			t.Fatalf("unexpected error: %v", err)
		}
	}
	if ok != 1 || taken != n-1 {
		t.Fatalf("written %d, refused %d; want 1 and %d", ok, taken, n-1)
	}
	if c := countCheckpoints(t, ctx, s, sp.ID); c != 1 {
		t.Fatalf("checkpoints = %d, want 1", c)
	}
}
