package store_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"smriti"
	"smriti/contract"
	"smriti/internal/estimate"
	"smriti/store"
	"smriti/store/storetest"
)

func TestReleaseMemorySQLite(t *testing.T) {
	testReleaseMemory(t, openDSN(t, filepath.Join(t.TempDir(), "smriti.db")))
}

func TestReleaseMemoryPostgres(t *testing.T) {
	testReleaseMemory(t, openDSN(t, storetest.PostgresDSN(t)))
}

// testReleaseMemory releases the store's memory while sends are written and
// read, then checks that nothing was lost: every turn is there once, in
// order, and the warm history still comes from the turn cache.
func testReleaseMemory(t *testing.T, s *store.Store) {
	ctx := smriti.WithUser(context.Background(), smriti.NewID())
	se, err := s.CreateSession(ctx, smriti.SessionCreate{Provider: "mock", Model: "mock"})
	if err != nil {
		t.Fatal(err)
	}
	const writers, each = 4, 25
	var wg sync.WaitGroup
	errs := make(chan error, writers*each+100)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				msg := fmt.Sprintf("writer %d message %d", w, i)
				if _, err := s.AppendExchange(ctx, contract.Exchange{SessionID: se.ID,
					User:      contract.TurnWrite{Content: msg, Provider: "mock", Model: "mock", Tokens: estimate.Tokens(msg)},
					Assistant: contract.TurnWrite{Content: "ok", Provider: "mock", Model: "mock", Tokens: 1}}); err != nil {
					errs <- err
				}
				if _, err := s.Turns(ctx, se.ID, contract.TurnQuery{}); err != nil {
					errs <- err
				}
			}
		}()
	}
	for range 100 {
		if err := s.ReleaseMemory(ctx); err != nil {
			errs <- err
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	turns, err := s.Turns(ctx, se.ID, contract.TurnQuery{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) != 2*writers*each {
		t.Fatalf("%d turns after the sends, want %d", len(turns), 2*writers*each)
	}
	seen := map[string]bool{}
	for i, tr := range turns {
		if tr.Seq != int64(i) {
			t.Fatalf("turn %d has sequence number %d", i, tr.Seq)
		}
		if tr.Role == smriti.RoleUser {
			if seen[tr.Content] {
				t.Fatalf("%q stored twice", tr.Content)
			}
			seen[tr.Content] = true
		}
	}

	cur, err := s.Session(ctx, se.ID)
	if err != nil {
		t.Fatal(err)
	}
	q := contract.HistoryQuery{Budget: 100000}
	if _, err := s.History(ctx, cur, q); err != nil {
		t.Fatal(err)
	}
	if err := s.ReleaseMemory(ctx); err != nil {
		t.Fatal(err)
	}
	before := s.HistoryRowsRead()
	w, err := s.History(ctx, cur, q)
	if err != nil {
		t.Fatal(err)
	}
	if read := s.HistoryRowsRead() - before; read != 0 || len(w.Turns) != 2*writers*each {
		t.Fatalf("warm history after a release read %d rows and holds %d turns, want 0 rows and %d turns",
			read, len(w.Turns), 2*writers*each)
	}
}
