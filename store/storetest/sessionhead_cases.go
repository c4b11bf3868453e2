package storetest

import (
	"context"
	"testing"

	"smriti"
	"smriti/store"
)

// testSessionHead: SessionHead is the session as Session reads it and the
// head of main in its space as CheckpointHeads reads it, before the first
// checkpoint, after each new one, after a message is rewritten in place and
// after the newest is deleted; a
// session without a space has none, and another user sees nothing.
func testSessionHead(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	se := newSession(t, ctx, s, sp)
	check := func(what string, want *smriti.Checkpoint) {
		t.Helper()
		got, head, err := s.SessionHead(ctx, se.ID)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		read := Get(s.Session(ctx, se.ID)).Must(t)
		if got.ID != read.ID || got.LastSeq != read.LastSeq || !sameID(got.SpaceID, read.SpaceID) || got.BranchName != read.BranchName {
			t.Fatalf("%s: session %+v, want %+v", what, got, read)
		}
		switch {
		case want == nil && head != nil:
			t.Fatalf("%s: head %s, want none", what, head.Message)
		case want == nil:
		case head == nil:
			t.Fatalf("%s: no head, want %s", what, want.Message)
		default:
			heads := Get(s.CheckpointHeads(ctx, sp.ID, smriti.MainBranch, 1)).Must(t)
			if len(heads) != 1 {
				t.Fatalf("%s: %d heads", what, len(heads))
			}
			for _, h := range []*smriti.Checkpoint{head, heads[0]} {
				if h.ID != want.ID || h.SpaceID != want.SpaceID || h.Hash != want.Hash || !sameID(h.ParentID, want.ParentID) ||
					h.BranchName != want.BranchName || h.Message != want.Message || h.LogPos != want.LogPos ||
					!h.CreatedAt.Equal(want.CreatedAt) || h.HashVersion != want.HashVersion {
					t.Fatalf("%s: head %+v, want the identity of %+v", what, h, want)
				}
			}
			// What a caller does to its copy stays with it.
			head.Message = "changed by the caller"
		}
	}
	check("no checkpoint", nil)
	a := commit(t, ctx, s, sp, se, "A")
	check("first", a)
	check("first again", a)
	b := commit(t, ctx, s, sp, se, "B")
	check("second", b)
	// A secret purge rewrites a message in place, the hash kept.
	if _, err := s.DB().Exec(s.Rebind(`UPDATE checkpoints SET message = 'rewritten' WHERE id = ?`), b.ID); err != nil {
		t.Fatal(err)
	}
	b.Message = "rewritten"
	check("second, its message rewritten", b)
	if err := s.DeleteCheckpoint(ctx, b.ID, false); err != nil {
		t.Fatal(err)
	}
	check("after the newest is deleted", a)

	fresh := Get(s.CreateSession(ctx, smriti.SessionCreate{Title: "no space"})).Must(t)
	got, head, err := s.SessionHead(ctx, fresh.ID)
	if err != nil || got.ID != fresh.ID || got.SpaceID != nil || head != nil {
		t.Fatalf("session without a space: %+v, %+v, %v", got, head, err)
	}
	stranger := smriti.WithUser(context.Background(), smriti.NewID())
	_, _, err = s.SessionHead(stranger, se.ID)
	wantCode(t, err, smriti.ENOTFOUND)
}
