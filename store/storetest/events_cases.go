package storetest

import (
	"testing"

	"smriti"
	"smriti/contract"
	"smriti/coord"
	"smriti/store"
)

// testSpaceEvents: every write a live view cares about lands in the space's
// event log in the same transaction, in log order, and only the space's
// owner reads it.
func testSpaceEvents(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	start := Get(s.LogPosition(ctx, sp.ID)).Must(t)
	other := newSpace(t, ctx, s)

	se := newSession(t, ctx, s, sp)
	newSession(t, ctx, s, other) // another space: not in this log
	ex := send(t, ctx, s, se, "hello")
	a := commit(t, ctx, s, sp, se, "A")
	Get(s.SetSessionTitle(ctx, se.ID, "Renamed")).Must(t)
	Get(s.SetSessionTitle(ctx, se.ID, "Renamed")).Must(t) // no change, no event
	fork := Get(s.ForkSession(ctx, smriti.ForkCreate{SpaceID: sp.ID, CheckpointID: a.ID, BranchName: "exp"})).Must(t)
	Get(s.SetBranchDisposition(ctx, sp.ID, "exp", smriti.DispositionAbandoned)).Must(t)
	loose := Get(s.CreateSession(ctx, smriti.SessionCreate{Provider: "mock"})).Must(t)
	Get(s.AttachSession(ctx, loose.ID, sp.ID)).Must(t)
	claim, _, err := s.CreateClaim(ctx, coord.ClaimCreate{SpaceID: sp.ID, Agent: "codex", Scope: "Book the tickets", BranchName: "exp"})
	if err != nil {
		t.Fatal(err)
	}
	Get(s.FinishClaim(ctx, claim.ID, "done")).Must(t)

	evs := Get(s.SpaceEvents(ctx, sp.ID, start, 100)).Must(t)
	want := []struct {
		kind    string
		subject smriti.ID
		branch  string
	}{
		{contract.EventSessionCreated, se.ID, "main"},
		{contract.EventSessionUpdated, se.ID, "main"},
		{contract.EventCheckpointCreated, a.ID, "main"},
		{contract.EventSessionUpdated, se.ID, "main"},
		{contract.EventSessionCreated, fork.ID, "exp"},
		{contract.EventDispositionChanged, fork.ID, "exp"},
		{contract.EventSessionUpdated, loose.ID, "main"},
		{contract.EventClaimChanged, claim.ID, "exp"},
		{contract.EventClaimChanged, claim.ID, "exp"},
	}
	if len(evs) != len(want) {
		t.Fatalf("got %d events, want %d: %+v", len(evs), len(want), evs)
	}
	for i, w := range want {
		e := evs[i]
		if e.Kind != w.kind || e.SubjectID != w.subject || e.BranchName != w.branch || e.SpaceID != sp.ID {
			t.Fatalf("event %d = %+v, want %s of %s on %s", i, e, w.kind, w.subject, w.branch)
		}
		if e.Position <= start || (i > 0 && e.Position <= evs[i-1].Position) {
			t.Fatalf("event %d position %d not after %d", i, e.Position, start)
		}
		if e.CreatedAt.IsZero() {
			t.Fatalf("event %d has no time", i)
		}
	}
	// A checkpoint's and a reply's events carry their own log positions.
	if evs[1].Position != ex.Assistant.LogPos || evs[2].Position != a.LogPos {
		t.Fatalf("positions %d, %d; want the reply's %d and the checkpoint's %d", evs[1].Position, evs[2].Position, ex.Assistant.LogPos, a.LogPos)
	}
	// Resuming after a position returns exactly what followed it.
	rest := Get(s.SpaceEvents(ctx, sp.ID, evs[4].Position, 100)).Must(t)
	if len(rest) != 4 || rest[0].Position != evs[5].Position {
		t.Fatalf("after %d: %+v", evs[4].Position, rest)
	}
	if got := Get(s.SpaceEvents(ctx, sp.ID, start, 2)).Must(t); len(got) != 2 || got[1].Position != evs[1].Position {
		t.Fatalf("limit 2: %+v", got)
	}
	if pos := Get(s.LogPosition(ctx, sp.ID)).Must(t); pos < evs[len(evs)-1].Position {
		t.Fatalf("log position %d behind the last event %d", pos, evs[len(evs)-1].Position)
	}
	// Another user cannot read the log; an unknown space is not found.
	_, err = s.SpaceEvents(userCtx(), sp.ID, 0, 10)
	wantCode(t, err, smriti.ENOTFOUND)
	_, err = s.SpaceEvents(ctx, smriti.NewID(), 0, 10)
	wantCode(t, err, smriti.ENOTFOUND)
	// Deleting the space removes its log.
	Get(0, s.DeleteSpace(ctx, sp.ID)).Must(t)
	_, err = s.SpaceEvents(ctx, sp.ID, 0, 10)
	wantCode(t, err, smriti.ENOTFOUND)
}
