package store_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"smriti"
	"smriti/store"
	"smriti/store/storetest"
)

func TestSessionReadBringsOtherReplicasTurnsSQLite(t *testing.T) {
	dsn := filepath.Join(t.TempDir(), "smriti.db")
	testSessionReadBringsOtherReplicasTurns(t, openDSN(t, dsn), openDSN(t, dsn))
}

func TestSessionReadBringsOtherReplicasTurnsPostgres(t *testing.T) {
	dsn := storetest.PostgresDSN(t)
	testSessionReadBringsOtherReplicasTurns(t, openDSN(t, dsn), openDSN(t, dsn))
}

// testSessionReadBringsOtherReplicasTurns: when a cached session was
// written by another replica, reading the session brings exactly the new
// turns along (one statement), so the History that follows reads nothing;
// the read keeps the session's visibility.
func testSessionReadBringsOtherReplicasTurns(t *testing.T, a, b *store.Store) {
	ctx := smriti.WithUser(context.Background(), smriti.NewID())
	sp := storetest.Get(a.CreateSpace(ctx, smriti.SpaceCreate{Name: "shared"})).Must(t)
	se := storetest.Get(a.CreateSession(ctx, smriti.SessionCreate{SpaceID: &sp.ID})).Must(t)
	send := func(s *store.Store, name string) {
		t.Helper()
		storetest.Get(s.AppendExchange(ctx, smriti.Exchange{SessionID: se.ID,
			User: smriti.TurnWrite{Content: "q " + name, Tokens: 2}, Assistant: smriti.TurnWrite{Content: "a " + name, Tokens: 3}})).Must(t)
	}
	send(a, "0")
	// Warm: a reads the session and its history into its cache.
	storetest.Get(a.History(ctx, storetest.Get(a.Session(ctx, se.ID)).Must(t), smriti.HistoryQuery{Budget: 1000})).Must(t)
	for i := 1; i <= 3; i++ {
		send(b, fmt.Sprint(i))
	}
	before := a.HistoryRowsRead()
	cur := storetest.Get(a.Session(ctx, se.ID)).Must(t)
	if read := a.HistoryRowsRead() - before; read != 6 || cur.LastSeq != 7 {
		t.Fatalf("session read: %d turn rows, last_seq %d; want 6 rows, last_seq 7", read, cur.LastSeq)
	}
	w := storetest.Get(a.History(ctx, cur, smriti.HistoryQuery{Budget: 1000})).Must(t)
	if read := a.HistoryRowsRead() - before; read != 6 || len(w.Turns) != 8 || w.Turns[0].Content != "a 3" || w.Turns[7].Content != "q 0" {
		t.Fatalf("history after the session read: %d rows in all, %d turns, newest %q", read, len(w.Turns), w.Turns[0].Content)
	}
	// Nothing new: the read brings nothing.
	before = a.HistoryRowsRead()
	if cur := storetest.Get(a.Session(ctx, se.ID)).Must(t); a.HistoryRowsRead() != before || cur.LastSeq != 7 {
		t.Fatalf("repeated session read: %d rows, last_seq %d", a.HistoryRowsRead()-before, cur.LastSeq)
	}
	// Cached or not, another user does not see the session.
	other := smriti.WithUser(context.Background(), smriti.NewID())
	if _, err := a.Session(other, se.ID); smriti.ErrorCode(err) != smriti.ENOTFOUND {
		t.Fatalf("another user's read of a cached session: %v, want ENOTFOUND", err)
	}
	if _, err := a.Session(ctx, smriti.NewID()); smriti.ErrorCode(err) != smriti.ENOTFOUND {
		t.Fatalf("unknown session: %v, want ENOTFOUND", err)
	}
}
