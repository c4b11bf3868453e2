package store_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"smriti"
	"smriti/contract"
	"smriti/store"
	"smriti/store/storetest"
)

func TestGroupCommitSQLite(t *testing.T) {
	testGroupCommit(t, openDSN(t, filepath.Join(t.TempDir(), "smriti.db")))
}

func TestGroupCommitPostgres(t *testing.T) {
	testGroupCommit(t, openDSN(t, storetest.PostgresDSN(t)))
}

// testGroupCommit writes one batch mixing two sessions, an unknown
// session, another user's session, a cancelled request and an exchange
// that cannot be stored: each gets the answer it would get alone, and the
// stored turns are numbered, positioned and totalled as single sends number
// them.
func testGroupCommit(t *testing.T, s *store.Store) {
	// A clock that moves a second per reading: a batch written in one
	// transaction stamps all its turns alike.
	var tick sync.Mutex
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s.Now = func() time.Time {
		tick.Lock()
		defer tick.Unlock()
		clock = clock.Add(time.Second)
		return clock
	}
	ctx := smriti.WithUser(context.Background(), smriti.NewID())
	other := smriti.WithUser(context.Background(), smriti.NewID())
	a := storetest.Get(s.CreateSession(ctx, smriti.SessionCreate{Provider: "mock", Model: "mock"})).Must(t)
	b := storetest.Get(s.CreateSession(ctx, smriti.SessionCreate{Provider: "mock", Model: "mock"})).Must(t)
	hidden := storetest.Get(s.CreateSession(other, smriti.SessionCreate{Provider: "mock", Model: "mock"})).Must(t)
	exchange := func(id smriti.ID, name string) contract.Exchange {
		return contract.Exchange{SessionID: id,
			User:      contract.TurnWrite{Content: "q " + name, Provider: "mock", Model: "mock", Tokens: len(name) + 1},
			Assistant: contract.TurnWrite{Content: "a " + name, Provider: "mock", Model: "mock", Tokens: 2 * len(name)}}
	}
	// A first send on its own, and a read that puts a in the turn cache.
	storetest.Get(s.AppendExchange(ctx, exchange(a.ID, "a0"))).Must(t)
	storetest.Get(s.History(ctx, storetest.Get(s.Session(ctx, a.ID)).Must(t), contract.HistoryQuery{Budget: 1000})).Must(t)

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	bad := exchange(b.ID, "bad")
	bad.Assistant.Metadata = map[string]any{"x": math.Inf(1)} // does not encode as JSON
	ctxs := []context.Context{ctx, ctx, ctx, ctx, ctx, cancelled, ctx, ctx, ctx}
	exs := []contract.Exchange{exchange(a.ID, "a1"), exchange(b.ID, "b1"), exchange(a.ID, "a2"), exchange(smriti.NewID(), "x"),
		exchange(hidden.ID, "h"), exchange(a.ID, "gone"), bad, exchange(b.ID, "b2"), exchange(a.ID, "a3")}
	for _, round := range []string{"batch", "batch with a failing exchange"} {
		if round == "batch" {
			// The first round leaves the exchange that cannot be stored out.
			res, errs := s.WriteGroup(slices.Delete(slices.Clone(ctxs), 6, 7), slices.Delete(slices.Clone(exs), 6, 7))
			checkGroup(t, res, errs, []string{"a1", "b1", "a2", "ENOTFOUND", "ENOTFOUND", "cancelled", "b2", "a3"}, []int64{2, 0, 4, -1, -1, -1, 2, 6})
			if at := stamps(res); len(at) != 1 {
				t.Fatalf("the batch's turns carry %d timestamps, want 1 (one transaction)", len(at))
			}
			continue
		}
		res, errs := s.WriteGroup(ctxs, exs)
		checkGroup(t, res, errs, []string{"a1", "b1", "a2", "ENOTFOUND", "ENOTFOUND", "cancelled", "failed", "b2", "a3"},
			[]int64{8, 4, 10, -1, -1, -1, -1, 6, 12})
		// The failed batch was written again exchange by exchange.
		if at := stamps(res); len(at) != 5 {
			t.Fatalf("the rewritten exchanges carry %d timestamps, want 5 (one transaction each)", len(at))
		}
	}
	// Turns: in pairs, consecutive, log positions growing with sequence
	// numbers, running token totals as single sends store them.
	for _, se := range []*smriti.Session{a, b} {
		turns := mustTurns(t, s, ctx, se.ID)
		var sum, lastPos int64
		for i, turn := range turns {
			if turn.Seq != int64(i) || turn.LogPos <= lastPos {
				t.Fatalf("session turn %d: seq %d log %d after log %d", i, turn.Seq, turn.LogPos, lastPos)
			}
			if i%2 == 1 && (turn.Role != smriti.RoleAssistant || turn.Content[2:] != turns[i-1].Content[2:] || turn.LogPos != turns[i-1].LogPos+1) {
				t.Fatalf("turn %d %q does not answer %q", i, turn.Content, turns[i-1].Content)
			}
			lastPos = turn.LogPos
			sum += int64(turn.Tokens)
			var total int64
			if err := s.DB().QueryRow(s.Rebind(`SELECT token_total FROM turns WHERE id = ?`), turn.ID).Scan(&total); err != nil {
				t.Fatal(err)
			}
			if total != sum {
				t.Fatalf("turn %d token_total = %d, want %d", turn.Seq, total, sum)
			}
		}
		got := storetest.Get(s.Session(ctx, se.ID)).Must(t)
		if got.LastSeq != int64(len(turns)-1) {
			t.Fatalf("session last_seq = %d with %d turns", got.LastSeq, len(turns))
		}
	}
	if n := len(mustTurns(t, s, other, hidden.ID)); n != 0 {
		t.Fatalf("another user's session got %d turns", n)
	}
	// The cached session got the batch's turns without reading them back.
	before := s.HistoryRowsRead()
	w := storetest.Get(s.History(ctx, storetest.Get(s.Session(ctx, a.ID)).Must(t), contract.HistoryQuery{Budget: 1000})).Must(t)
	if read := s.HistoryRowsRead() - before; read != 0 || len(w.Turns) != 14 || w.Turns[0].Content != "a a3" {
		t.Fatalf("history after the batch: %d rows read, %d turns, newest %q", read, len(w.Turns), w.Turns[0].Content)
	}
}

// stamps collects the distinct creation times of the stored exchanges.
func stamps(res []*contract.ExchangeResult) map[time.Time]bool {
	at := map[time.Time]bool{}
	for _, r := range res {
		if r != nil {
			at[r.User.CreatedAt], at[r.Assistant.CreatedAt] = true, true
		}
	}
	return at
}

// checkGroup compares a batch's results with the expected outcome of each
// exchange: its name (stored, user turn at seq) or the failure.
func checkGroup(t *testing.T, res []*contract.ExchangeResult, errs []error, want []string, seqs []int64) {
	t.Helper()
	for i, w := range want {
		switch w {
		case "ENOTFOUND":
			if smriti.ErrorCode(errs[i]) != smriti.ENOTFOUND || res[i] != nil {
				t.Fatalf("exchange %d: %v, want not found", i, errs[i])
			}
		case "cancelled", "failed":
			if errs[i] == nil || res[i] != nil {
				t.Fatalf("exchange %d: stored (%v), want it %s", i, res[i], w)
			}
		default:
			if errs[i] != nil {
				t.Fatalf("exchange %d: %v", i, errs[i])
			}
			r := res[i]
			if got := fmt.Sprintf("%s %d %d", r.User.Content, r.User.Seq, r.Assistant.Seq); got != fmt.Sprintf("q %s %d %d", w, seqs[i], seqs[i]+1) {
				t.Fatalf("exchange %d = %s, want q %s at %d", i, got, w, seqs[i])
			}
		}
	}
}
