package storetest

import (
	"reflect"
	"testing"
	"time"

	"smriti"
	"smriti/contract"
	"smriti/store"
)

// testMounts: a mount is kept on the session, survives a reload, is
// replaced and ended; seed_from a checkpoint mounts it with base -1; a
// send can record a mount in its own transaction.
func testMounts(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	se := newSession(t, ctx, s, sp)
	cp1 := commit(t, ctx, s, sp, se, "one")
	cp2 := commit(t, ctx, s, sp, se, "two")
	if se.Mount != nil {
		t.Fatalf("new session mounted %+v", se.Mount)
	}
	want := &smriti.Mount{CheckpointID: cp1.ID, BaseSeq: 3}
	got := Get(s.SetMount(ctx, se.ID, want)).Must(t)
	if !reflect.DeepEqual(got.Mount, want) {
		t.Fatalf("SetMount = %+v, want %+v", got.Mount, want)
	}
	if again := Get(s.Session(ctx, se.ID)).Must(t); !reflect.DeepEqual(again.Mount, want) {
		t.Fatalf("reloaded mount = %+v, want %+v", again.Mount, want)
	}
	ex := contract.Exchange{SessionID: se.ID, User: contract.TurnWrite{Content: "q"}, Assistant: contract.TurnWrite{Content: "a"},
		Mount: &smriti.Mount{CheckpointID: cp2.ID, BaseSeq: -1}}
	Get(s.AppendExchange(ctx, ex)).Must(t)
	if again := Get(s.Session(ctx, se.ID)).Must(t); !reflect.DeepEqual(again.Mount, ex.Mount) || again.LastSeq != 1 {
		t.Fatalf("mount after a mounting send = %+v (last seq %d), want %+v", again.Mount, again.LastSeq, ex.Mount)
	}
	if got := Get(s.SetMount(ctx, se.ID, nil)).Must(t); got.Mount != nil {
		t.Fatalf("unmount left %+v", got.Mount)
	}
	if again := Get(s.Session(ctx, se.ID)).Must(t); again.Mount != nil {
		t.Fatalf("reloaded after unmount: %+v", again.Mount)
	}

	// Refusals leave the session as it was.
	other := newSpace(t, ctx, s)
	otherSe := newSession(t, ctx, s, other)
	foreign := commit(t, ctx, s, other, otherSe, "elsewhere")
	for _, tt := range []struct {
		name    string
		session smriti.ID
		m       smriti.Mount
		code    string
	}{
		{"UnknownSession", smriti.NewID(), smriti.Mount{CheckpointID: cp1.ID}, smriti.ENOTFOUND},
		{"UnknownCheckpoint", se.ID, smriti.Mount{CheckpointID: smriti.NewID()}, smriti.ENOTFOUND},
		{"OtherSpace", se.ID, smriti.Mount{CheckpointID: foreign.ID}, smriti.EINVALID},
		{"BaseBelowMinusOne", se.ID, smriti.Mount{CheckpointID: cp1.ID, BaseSeq: -2}, smriti.EUNPROCESSABLE},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.SetMount(ctx, tt.session, &tt.m)
			wantCode(t, err, tt.code)
			if again := Get(s.Session(ctx, se.ID)).Must(t); again.Mount != nil {
				t.Fatalf("refused mount was written: %+v", again.Mount)
			}
		})
	}
	bad := ex
	bad.Mount = &smriti.Mount{CheckpointID: foreign.ID, BaseSeq: -1}
	_, err := s.AppendExchange(ctx, bad)
	wantCode(t, err, smriti.EINVALID)
	if again := Get(s.Session(ctx, se.ID)).Must(t); again.LastSeq != 1 {
		t.Fatalf("refused mounting send wrote turns: last seq %d", again.LastSeq)
	}
	noSpace := Get(s.CreateSession(ctx, smriti.SessionCreate{})).Must(t)
	_, err = s.SetMount(ctx, noSpace.ID, &smriti.Mount{CheckpointID: cp1.ID})
	wantCode(t, err, smriti.EINVALID)

	// seed_from: a checkpoint id mounts it with every turn; head does not.
	seeded := Get(s.CreateSession(ctx, smriti.SessionCreate{SpaceID: &sp.ID, SeedFrom: cp1.ID.String()})).Must(t)
	wantMount := &smriti.Mount{CheckpointID: cp1.ID, BaseSeq: -1}
	if !reflect.DeepEqual(seeded.Mount, wantMount) {
		t.Fatalf("seed_from id mount = %+v, want %+v", seeded.Mount, wantMount)
	}
	if again := Get(s.Session(ctx, seeded.ID)).Must(t); !reflect.DeepEqual(again.Mount, wantMount) {
		t.Fatalf("reloaded seeded mount = %+v", again.Mount)
	}
	head := Get(s.CreateSession(ctx, smriti.SessionCreate{SpaceID: &sp.ID, SeedFrom: "head"})).Must(t)
	if head.Mount != nil || head.SeededCheckpointID == nil || *head.SeededCheckpointID != cp2.ID {
		t.Fatalf("seed head: mount %+v seed %v", head.Mount, head.SeededCheckpointID)
	}
}

// testKeyDigestAndRetention: the digest is stored and returned with a
// replay; a key older than the retention is ignored, reusable, and purged.
func testKeyDigestAndRetention(t *testing.T, s *store.Store) {
	ctx := userCtx()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s.Now = func() time.Time { return now }
	s.KeyRetention = time.Hour
	se := Get(s.CreateSession(ctx, smriti.SessionCreate{})).Must(t)
	ex := contract.Exchange{SessionID: se.ID, IdempotencyKey: "k", RequestHash: "h1",
		User: contract.TurnWrite{Content: "q"}, Assistant: contract.TurnWrite{Content: "a"}}
	first := Get(s.AppendExchange(ctx, ex)).Must(t)
	if first.RequestHash != "h1" || first.Replayed {
		t.Fatalf("first = %+v", first)
	}
	again := Get(s.ReplayExchange(ctx, se.ID, "k")).Must(t)
	if again == nil || again.RequestHash != "h1" || again.Assistant.ID != first.Assistant.ID {
		t.Fatalf("replay = %+v", again)
	}
	now = now.Add(59 * time.Minute)
	if Get(s.ReplayExchange(ctx, se.ID, "k")).Must(t) == nil {
		t.Fatal("key forgotten within its retention")
	}
	if n := Get(s.PurgeSendKeys(ctx)).Must(t); n != 0 {
		t.Fatalf("purged %d keys within retention", n)
	}
	now = now.Add(2 * time.Minute)
	if got := Get(s.ReplayExchange(ctx, se.ID, "k")).Must(t); got != nil {
		t.Fatalf("expired key replayed: %+v", got)
	}
	ex.RequestHash = "h2"
	reused := Get(s.AppendExchange(ctx, ex)).Must(t)
	if reused.Replayed || reused.User.Seq != 2 || reused.RequestHash != "h2" {
		t.Fatalf("expired key not reusable: %+v", reused)
	}
	now = now.Add(2 * time.Hour)
	if n := Get(s.PurgeSendKeys(ctx)).Must(t); n < 1 {
		t.Fatalf("purged %d keys after retention, want at least 1", n)
	}
	if got := Get(s.ReplayExchange(ctx, se.ID, "k")).Must(t); got != nil {
		t.Fatalf("purged key replayed: %+v", got)
	}
}
