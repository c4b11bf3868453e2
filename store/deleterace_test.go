package store_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"smriti"
	"smriti/contract"
	"smriti/store"
	"smriti/store/storetest"
)

func TestHistoryOfDeletedSessionSQLite(t *testing.T) {
	testHistoryOfDeletedSession(t, openDSN(t, filepath.Join(t.TempDir(), "smriti.db")))
}

func TestHistoryOfDeletedSessionPostgres(t *testing.T) {
	testHistoryOfDeletedSession(t, openDSN(t, storetest.PostgresDSN(t)))
}

// A send reads its session, then its history; when the session is deleted
// in between (a send racing a delete), the history read is not found, not
// an internal error about missing turns.
func testHistoryOfDeletedSession(t *testing.T, s *store.Store) {
	ctx := smriti.WithUser(context.Background(), smriti.NewID())
	se := storetest.Get(s.CreateSession(ctx, smriti.SessionCreate{Provider: "mock", Model: "mock"})).Must(t)
	storetest.Get(s.AppendExchange(ctx, contract.Exchange{SessionID: se.ID,
		User: contract.TurnWrite{Content: "q", Tokens: 1}, Assistant: contract.TurnWrite{Content: "a", Tokens: 1}})).Must(t)
	snapshot := storetest.Get(s.Session(ctx, se.ID)).Must(t)
	s.SetTurnCacheBytes(0) // the history must come from the database
	if err := s.DeleteSession(ctx, se.ID); err != nil {
		t.Fatal(err)
	}
	_, err := s.History(ctx, snapshot, contract.HistoryQuery{Budget: 1000})
	if code := smriti.ErrorCode(err); code != smriti.ENOTFOUND {
		t.Fatalf("history of a session deleted meanwhile: %q (%v), want %q", code, err, smriti.ENOTFOUND)
	}
}

// A server started before its database answers waits for it (--db-wait)
// instead of exiting; with no wait it fails at once with the cause.
func TestOpenWaitsForTheDatabase(t *testing.T) {
	proxy, via := storetest.NewProxy(t, storetest.PostgresDSN(t))
	proxy.Cut()
	if _, err := store.OpenWith(context.Background(), via, nil, store.Options{}); err == nil {
		t.Fatal("opened a database that refuses connections")
	}
	restored := make(chan struct{})
	go func() {
		time.Sleep(300 * time.Millisecond) // a few failed tries first
		proxy.Restore()
		close(restored)
	}()
	s, err := store.OpenWith(context.Background(), via, nil, store.Options{WaitFor: time.Minute})
	<-restored
	if err != nil {
		t.Fatalf("open with a wait: %v", err)
	}
	s.Close()
}
