package storetest

import (
	"testing"
	"time"

	"smriti"
	"smriti/coord"
	"smriti/store"
)

// leaseCases: a claim's lease is renewed by any checkpoint its holder
// writes (from the claim's session, or as its agent), on both engines.
var leaseCases = []struct {
	name string
	fn   func(t *testing.T, s *store.Store)
}{
	{"HolderWriteRenewsLease", testHolderWriteRenewsLease},
}

func testHolderWriteRenewsLease(t *testing.T, s *store.Store) {
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	clk := &clock{t: t0}
	s.Now = clk.now
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	se := newSession(t, ctx, s, sp)
	claim := func(in coord.ClaimCreate) *coord.Claim {
		t.Helper()
		c, _, err := s.CreateClaim(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	bySession := claim(coord.ClaimCreate{SpaceID: sp.ID, SessionID: &se.ID, Agent: "codex", Scope: "index", TaskID: "t1", TTL: ttl(time.Hour)})
	byAgent := claim(coord.ClaimCreate{SpaceID: sp.ID, Agent: "claude", Scope: "docs", TTL: ttl(2 * time.Hour)})
	other := claim(coord.ClaimCreate{SpaceID: sp.ID, Agent: "cursor", Scope: "tests", TTL: ttl(time.Hour)})
	expiry := func(id smriti.ID) time.Time {
		t.Helper()
		for _, c := range get2(s.Claims(ctx, sp.ID, coord.ClaimQuery{IncludeExpired: true})).Must(t) {
			if c.ID == id {
				return c.ExpiresAt
			}
		}
		t.Fatalf("claim %s not listed", id)
		return time.Time{}
	}

	// 50 minutes on, a checkpoint from the claim's session renews its lease
	// (one hour from now) and nobody else's.
	clk.advance(50 * time.Minute)
	Get(s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: se.ID,
		Content: smriti.Content{Message: "progress"}})).Must(t)
	if got, want := expiry(bySession.ID), t0.Add(110*time.Minute); !got.Equal(want) {
		t.Fatalf("session's claim expires %s, want %s", got, want)
	}
	if got, want := expiry(byAgent.ID), t0.Add(2*time.Hour); !got.Equal(want) {
		t.Fatalf("claude's claim expires %s, want %s (unrenewed)", got, want)
	}
	// Its task is held as long: another claimer is still refused at 1h05.
	clk.advance(15 * time.Minute)
	_, _, err := s.CreateClaim(ctx, coord.ClaimCreate{SpaceID: sp.ID, Agent: "b", Scope: "s", TaskID: "t1", TTL: ttl(time.Hour)})
	wantCode(t, err, smriti.ECONFLICT)

	// A checkpoint authored by the agent renews the agent's claims: two
	// hours (its own lease) from 1h05.
	claude := "claude"
	Get(s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, AuthorAgent: &claude,
		Content: smriti.Content{Message: "docs"}})).Must(t)
	if got, want := expiry(byAgent.ID), t0.Add(185*time.Minute); !got.Equal(want) {
		t.Fatalf("claude's claim expires %s, want %s", got, want)
	}
	// Another agent's claim is untouched; a heartbeat runs the original
	// length again, not the grown one.
	if got := expiry(other.ID); !got.Equal(t0.Add(time.Hour)) {
		t.Fatalf("cursor's claim expires %s, want %s", got, t0.Add(time.Hour))
	}
	hb := Get(s.HeartbeatClaim(ctx, bySession.ID, nil)).Must(t)
	if want := clk.t.Add(time.Hour); !hb.ExpiresAt.Equal(want) {
		t.Fatalf("heartbeat: expires %s, want %s", hb.ExpiresAt, want)
	}
}
