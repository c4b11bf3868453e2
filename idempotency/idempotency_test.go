package idempotency

import (
	"context"
	"sync"
	"testing"
)

// A claim is placed by the first transaction that commits it: Begin hands
// it to one transaction at a time, End(false) (a rollback) hands it back,
// End(true) (a commit, or a COMMIT whose outcome is unknown) keeps it.
func TestClaimLifecycle(t *testing.T) {
	c := &Claim{Kind: "send", Key: "k", RequestHash: "h"}
	steps := []struct {
		do         func() bool
		want       bool
		wantPlaced bool
	}{
		{c.Begin, true, false},
		{c.Begin, false, false}, // held by the open transaction
		{func() bool { c.End(false); return true }, true, false},
		{c.Begin, true, false}, // a retry after the rollback takes it again
		{func() bool { c.End(true); return true }, true, true},
		{c.Begin, false, true}, // placed: no later transaction inserts it again
	}
	for i, s := range steps {
		if got := s.do(); got != s.want || c.Placed() != s.wantPlaced {
			t.Fatalf("step %d: got %v placed %v, want %v placed %v", i, got, c.Placed(), s.want, s.wantPlaced)
		}
	}
}

// Of many transactions racing for one claim, exactly one begins with it.
func TestClaimBeginsOnce(t *testing.T) {
	c := &Claim{}
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := 0
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if c.Begin() {
				mu.Lock()
				won++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if won != 1 {
		t.Fatalf("%d transactions began with the claim, want 1", won)
	}
}

func TestClaimTravelsInContext(t *testing.T) {
	if ClaimFrom(context.Background()) != nil {
		t.Fatal("a claim in a bare context")
	}
	c := &Claim{Key: "k"}
	if got := ClaimFrom(WithClaim(context.Background(), c)); got != c {
		t.Fatalf("ClaimFrom = %v, want the claim put in", got)
	}
}
