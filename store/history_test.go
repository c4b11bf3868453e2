package store_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"smriti"
	"smriti/contract"
	"smriti/internal/estimate"
	"smriti/store"
	"smriti/store/storetest"
)

func TestHistorySQLite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "smriti.db")
	testHistory(t, func(t *testing.T) *store.Store { return openDSN(t, path) })
}

func TestHistoryPostgres(t *testing.T) {
	dsn := storetest.PostgresDSN(t)
	testHistory(t, func(t *testing.T) *store.Store { return openDSN(t, dsn) })
}

func openDSN(t *testing.T, dsn string) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// wantHistory is the reference answer: the allowed non-system turns newest
// first until their TurnTokens sum passes the budget, and how many older
// allowed turns were left unread.
func wantHistory(all []*smriti.Turn, floor int64, budget int) (seqs []int64, unread int) {
	used := 0
	for i := len(all) - 1; i >= 0; i-- {
		t := all[i]
		if t.Seq < floor || t.Role == smriti.RoleSystem {
			continue
		}
		used += t.TokenCount()
		seqs = append(seqs, t.Seq)
		if used > budget {
			return seqs, int(t.Seq - floor)
		}
	}
	return seqs, 0
}

func seqsOf(ts []*smriti.Turn) []int64 {
	out := make([]int64, len(ts))
	for i, t := range ts {
		out[i] = t.Seq
	}
	return out
}

// testHistory runs two stores (two servers) on one database: a's cache must
// stay correct while b writes, and a warm send must read only new rows.
func testHistory(t *testing.T, open func(t *testing.T) *store.Store) {
	a, b := open(t), open(t)
	ctx := smriti.WithUser(context.Background(), smriti.NewID())
	se, err := a.CreateSession(ctx, smriti.SessionCreate{Provider: "mock", Model: "mock"})
	if err != nil {
		t.Fatal(err)
	}
	write := func(s *store.Store, i int) {
		t.Helper()
		u := fmt.Sprintf("message %d %s", i, strings.Repeat("word ", i%7))
		r := fmt.Sprintf("reply %d %s", i, strings.Repeat("longer text ", i%5))
		if _, err := s.AppendExchange(ctx, contract.Exchange{SessionID: se.ID,
			User:      contract.TurnWrite{Content: u, Provider: "mock", Model: "mock", Tokens: estimate.Tokens(u)},
			Assistant: contract.TurnWrite{Content: r, Provider: "mock", Model: "mock", Tokens: estimate.Tokens(r)}}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 300 {
		write(a, i)
	}
	// check asks s for the history and compares it with the reference over
	// every turn; it returns the turn rows the store read for it.
	check := func(s *store.Store, floor *int64, afterLog *int64, budget int) int64 {
		t.Helper()
		cur, err := s.Session(ctx, se.ID)
		if err != nil {
			t.Fatal(err)
		}
		all, err := s.Turns(ctx, se.ID, contract.TurnQuery{})
		if err != nil {
			t.Fatal(err)
		}
		lo := int64(0)
		if floor != nil {
			lo = *floor + 1
		}
		if afterLog != nil {
			for _, t := range all {
				if t.LogPos <= *afterLog {
					lo = max(lo, t.Seq+1)
				}
			}
		}
		wantSeqs, wantUnread := wantHistory(all, lo, budget)
		before := s.HistoryRowsRead()
		w, err := s.History(ctx, cur, contract.HistoryQuery{AfterSeq: floor, AfterLogPos: afterLog, Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		read := s.HistoryRowsRead() - before
		if got := seqsOf(w.Turns); !slices.Equal(got, wantSeqs) || w.Unread != wantUnread {
			t.Fatalf("history (after %v, log %v, budget %d) = %v unread %d, want %v unread %d",
				floor, afterLog, budget, got, w.Unread, wantSeqs, wantUnread)
		}
		for i, got := range w.Turns {
			if want := all[got.Seq]; got.Content != want.Content || got.Role != want.Role || got.Tokens != want.Tokens || got.LogPos != want.LogPos {
				t.Fatalf("turn %d = %+v, want %+v", i, got, want)
			}
		}
		return read
	}

	// Cold: one range read, exactly the turns the budget reaches.
	const budget = 400
	if read := check(a, nil, nil, budget); read == 0 || read > 60 {
		t.Fatalf("cold history read %d rows", read)
	} else if w, _ := wantHistory(mustTurns(t, a, ctx, se.ID), 0, budget); read != int64(len(w)) {
		t.Fatalf("cold history read %d rows for a window of %d", read, len(w))
	}
	// Warm, after this server's own send: nothing read.
	write(a, 300)
	if read := check(a, nil, nil, budget); read != 0 {
		t.Fatalf("warm history after an own send read %d rows, want 0", read)
	}
	// Another server wrote three exchanges: exactly those six turns read.
	for i := 301; i < 304; i++ {
		write(b, i)
	}
	if read := check(a, nil, nil, budget); read != 6 {
		t.Fatalf("warm history after another server's sends read %d rows, want 6", read)
	}
	if read := check(a, nil, nil, budget); read != 0 {
		t.Fatalf("repeated warm history read %d rows, want 0", read)
	}
	// A larger budget reads only the older turns the cache lacks.
	full := check(b, nil, nil, 3*budget)
	if read := check(a, nil, nil, 3*budget); read == 0 || read >= full {
		t.Fatalf("larger budget read %d rows (a cold read is %d)", read, full)
	}
	// Bounds: after a sequence number, after a log position, everything.
	after := int64(590)
	check(a, &after, nil, budget)
	check(b, &after, nil, 1<<20)
	all := mustTurns(t, a, ctx, se.ID)
	pos := all[595].LogPos
	check(a, nil, &pos, budget)
	check(a, nil, &pos, 1<<20)
	past := all[len(all)-1].LogPos
	check(a, nil, &past, budget)
	check(b, nil, nil, 1<<20)
	check(a, nil, nil, 0)

	// The running totals stored with the turns and the session.
	var sum int64
	for _, turn := range all {
		sum += int64(turn.Tokens)
		var total int64
		if err := a.DB().QueryRow(a.Rebind(`SELECT token_total FROM turns WHERE id = ?`), turn.ID).Scan(&total); err != nil {
			t.Fatal(err)
		}
		if total != sum {
			t.Fatalf("turn %d token_total = %d, want %d", turn.Seq, total, sum)
		}
	}
	var total int64
	if err := a.DB().QueryRow(a.Rebind(`SELECT token_total FROM sessions WHERE id = ?`), se.ID).Scan(&total); err != nil {
		t.Fatal(err)
	}
	if total != sum {
		t.Fatalf("session token_total = %d, want %d", total, sum)
	}

	// The memory bound holds, and a store without a cache answers the same.
	a.SetTurnCacheBytes(4096)
	check(a, nil, nil, budget)
	if _, bytes := a.TurnCacheSize(); bytes > 4096 {
		t.Fatalf("cache holds %d bytes over a 4096-byte bound", bytes)
	}
	a.SetTurnCacheBytes(0)
	for range 2 {
		if read := check(a, nil, nil, budget); read == 0 {
			t.Fatal("a store without a cache read no rows")
		}
	}
	if n, bytes := a.TurnCacheSize(); n != 0 || bytes != 0 {
		t.Fatalf("cache off holds %d sessions, %d bytes", n, bytes)
	}
	// A deleted session leaves the cache.
	if n, _ := b.TurnCacheSize(); n != 1 {
		t.Fatalf("b caches %d sessions, want 1", n)
	}
	if err := b.DeleteSession(ctx, se.ID); err != nil {
		t.Fatal(err)
	}
	if n, _ := b.TurnCacheSize(); n != 0 {
		t.Fatalf("b caches %d sessions after the delete, want 0", n)
	}
}

func mustTurns(t *testing.T, s *store.Store, ctx context.Context, id smriti.ID) []*smriti.Turn {
	t.Helper()
	all, err := s.Turns(ctx, id, contract.TurnQuery{})
	if err != nil {
		t.Fatal(err)
	}
	return all
}
