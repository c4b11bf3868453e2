package store_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"

	"smriti"
	"smriti/contract"
	"smriti/store"
	"smriti/store/storetest"
)

func TestAmbiguousCommitSQLite(t *testing.T) {
	testAmbiguousCommit(t, func() *store.Store { return openDSN(t, filepath.Join(t.TempDir(), "smriti.db")) })
}

func TestAmbiguousCommitPostgres(t *testing.T) {
	storetest.PostgresDSN(t) // skips without a server
	testAmbiguousCommit(t, func() *store.Store { return openDSN(t, storetest.PostgresDSN(t)) })
}

// failOnce returns a fault that fails its first call only, and counts calls.
func failOnce(calls *atomic.Int32) func() error {
	return func() error {
		if calls.Add(1) == 1 {
			return errors.New("connection lost while COMMIT was answered")
		}
		return nil
	}
}

// testAmbiguousCommit makes COMMIT report an error after the transaction
// committed (what a lost connection or a synchronous standby given up on
// does), and an error just before COMMIT: every request is answered with
// what is stored, nothing is written twice, and sequence numbers stay
// gapless.
func testAmbiguousCommit(t *testing.T, open func() *store.Store) {
	ctx := smriti.WithUser(context.Background(), smriti.NewID())
	exchange := func(id smriti.ID, name string) contract.Exchange {
		return contract.Exchange{SessionID: id,
			User:      contract.TurnWrite{Content: "q " + name, Provider: "mock", Model: "mock", Tokens: 1},
			Assistant: contract.TurnWrite{Content: "a " + name, Provider: "mock", Model: "mock", Tokens: 1}}
	}
	// stored is every turn of the session as "seq:content".
	stored := func(t *testing.T, s *store.Store, id smriti.ID) []string {
		turns := storetest.Get(s.Turns(ctx, id, contract.TurnQuery{})).Must(t)
		out := []string{}
		for _, tu := range turns {
			out = append(out, fmt.Sprintf("%d:%s", tu.Seq, tu.Content))
		}
		return out
	}
	for _, when := range []string{"AfterCommit", "BeforeCommit"} {
		t.Run("GroupSucceedsOnce"+when, func(t *testing.T) {
			s := open()
			a := storetest.Get(s.CreateSession(ctx, smriti.SessionCreate{Provider: "mock", Model: "mock"})).Must(t)
			b := storetest.Get(s.CreateSession(ctx, smriti.SessionCreate{Provider: "mock", Model: "mock"})).Must(t)
			var calls atomic.Int32
			if when == "AfterCommit" {
				s.SetCommitFaults(nil, failOnce(&calls))
			} else {
				s.SetCommitFaults(failOnce(&calls), nil)
			}
			exs := []contract.Exchange{exchange(a.ID, "a1"), exchange(b.ID, "b1"), exchange(a.ID, "a2"), exchange(b.ID, "b2")}
			res, errs := s.WriteGroup([]context.Context{ctx, ctx, ctx, ctx}, exs)
			s.SetCommitFaults(nil, nil)
			for i, err := range errs {
				if err != nil {
					t.Fatalf("exchange %d: %v", i, err)
				}
			}
			got := fmt.Sprintf("%d/%d %d/%d %d/%d %d/%d", res[0].User.Seq, res[0].Assistant.Seq, res[1].User.Seq, res[1].Assistant.Seq,
				res[2].User.Seq, res[2].Assistant.Seq, res[3].User.Seq, res[3].Assistant.Seq)
			if got != "0/1 0/1 2/3 2/3" {
				t.Errorf("answered sequence numbers %s, want 0/1 0/1 2/3 2/3", got)
			}
			wantA := "[0:q a1 1:a a1 2:q a2 3:a a2]"
			if g := fmt.Sprint(stored(t, s, a.ID)); g != wantA {
				t.Errorf("session a holds %s, want %s", g, wantA)
			}
			wantB := "[0:q b1 1:a b1 2:q b2 3:a b2]"
			if g := fmt.Sprint(stored(t, s, b.ID)); g != wantB {
				t.Errorf("session b holds %s, want %s", g, wantB)
			}
			// Each answer names the turn that is stored.
			turns := storetest.Get(s.Turns(ctx, a.ID, contract.TurnQuery{})).Must(t)
			if turns[0].ID != res[0].User.ID || turns[3].ID != res[2].Assistant.ID {
				t.Error("the answers name turns other than the stored ones")
			}
			// A next send continues the numbering.
			next := storetest.Get(s.AppendExchange(ctx, exchange(a.ID, "a3"))).Must(t)
			if next.User.Seq != 4 {
				t.Errorf("next send took seq %d, want 4", next.User.Seq)
			}
		})
	}
	t.Run("IdempotentSendSucceedsOnce", func(t *testing.T) {
		s := open()
		a := storetest.Get(s.CreateSession(ctx, smriti.SessionCreate{Provider: "mock", Model: "mock"})).Must(t)
		var calls atomic.Int32
		s.SetCommitFaults(nil, failOnce(&calls))
		ex := exchange(a.ID, "k")
		ex.IdempotencyKey = "key-1"
		res, err := s.AppendExchange(ctx, ex)
		s.SetCommitFaults(nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.User.Seq != 0 || res.Replayed {
			t.Errorf("answer seq %d replayed %v, want 0 false", res.User.Seq, res.Replayed)
		}
		if g := fmt.Sprint(stored(t, s, a.ID)); g != "[0:q k 1:a k]" {
			t.Errorf("session holds %s", g)
		}
	})
	t.Run("CheckpointSucceedsOnce", func(t *testing.T) {
		s := open()
		sp := storetest.Get(s.CreateSpace(ctx, smriti.SpaceCreate{Name: "ambiguous"})).Must(t)
		var calls atomic.Int32
		s.SetCommitFaults(nil, failOnce(&calls))
		c, err := s.CreateCheckpoint(ctx, smriti.CheckpointCreate{SpaceID: sp.ID, Content: smriti.Content{Message: "once", Summary: "once"}})
		s.SetCommitFaults(nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		list, _, err := s.Checkpoints(ctx, sp.ID, contract.CheckpointQuery{})
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 1 || list[0].ID != c.ID {
			t.Errorf("space holds %d checkpoints, want exactly the one answered", len(list))
		}
	})
	t.Run("CheckpointNotStoredFails", func(t *testing.T) {
		s := open()
		sp := storetest.Get(s.CreateSpace(ctx, smriti.SpaceCreate{Name: "ambiguous"})).Must(t)
		var calls atomic.Int32
		s.SetCommitFaults(failOnce(&calls), nil)
		_, err := s.CreateCheckpoint(ctx, smriti.CheckpointCreate{SpaceID: sp.ID, Content: smriti.Content{Message: "never", Summary: "never"}})
		s.SetCommitFaults(nil, nil)
		if err == nil {
			t.Fatal("a transaction that never committed was reported written")
		}
		list, _, err := s.Checkpoints(ctx, sp.ID, contract.CheckpointQuery{})
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 0 {
			t.Errorf("space holds %d checkpoints, want 0", len(list))
		}
	})
}

// Behind a transaction-mode pooler the store prepares nothing and speaks
// the simple protocol; the same writes give the same answers.
func TestTransactionPoolerModePostgres(t *testing.T) {
	storetest.PostgresDSN(t)
	open := func() *store.Store {
		s, err := store.OpenWith(context.Background(), storetest.PostgresDSN(t), nil, store.Options{Pooler: store.PoolerTransaction})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	testGroupCommit(t, open())
	testAmbiguousCommit(t, open)
}
