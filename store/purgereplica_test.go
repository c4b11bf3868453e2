package store_test

import (
	"context"
	"strings"
	"testing"

	"smriti"
	"smriti/contract"
	"smriti/secretlog"
	"smriti/store/storetest"
)

// TestPurgeReachesTheOtherServersCaches: two servers on one PostgreSQL
// database. B holds a session's turns in its cache when A purges a secret
// from them; at B's next probe of the database (as after a reconnect, and
// within 3 s of reads otherwise) B drops its cache and moves its cache
// epoch (which the App's rendered-state cache follows), so B's next read
// answers the purged text, not the cached one.
func TestPurgeReachesTheOtherServersCaches(t *testing.T) {
	dsn := storetest.PostgresDSN(t)
	a, b := openDSN(t, dsn), openDSN(t, dsn)
	ctx := smriti.WithUser(context.Background(), smriti.NewID())
	sp := storetest.Get(a.CreateSpace(ctx, smriti.SpaceCreate{Name: "purge-replicas"})).Must(t)
	se := storetest.Get(a.CreateSession(ctx, smriti.SessionCreate{SpaceID: &sp.ID})).Must(t)
	const key = "ghp_R8x2Kq9LmZ4vT7wN1pY6sB3dF5hJ0cG2aE4u"
	storetest.Get(a.AppendExchange(ctx, contract.Exchange{SessionID: se.ID,
		User: contract.TurnWrite{Content: "deploy with " + key}, Assistant: contract.TurnWrite{Content: "ok"}})).Must(t)
	first := func() string {
		t.Helper()
		snap := storetest.Get(b.Session(ctx, se.ID)).Must(t)
		w := storetest.Get(b.History(ctx, snap, contract.HistoryQuery{Budget: 1000})).Must(t)
		if len(w.Turns) != 2 {
			t.Fatalf("history = %d turns, want 2", len(w.Turns))
		}
		for _, tu := range w.Turns {
			if tu.Role == smriti.RoleUser {
				return tu.Content
			}
		}
		t.Fatal("history holds no user turn")
		return ""
	}
	if got := first(); got != "deploy with "+key { // B caches the turns and learns the purge mark
		t.Fatalf("before: %q", got)
	}
	epoch := b.CacheEpoch()
	p := storetest.Get(a.PurgeSecrets(ctx, secretlog.PurgeRequest{SpaceID: sp.ID, Rule: "github-pat", By: "ana",
		Find: func(text string) []secretlog.SecretMatch {
			if strings.Contains(text, key) {
				return []secretlog.SecretMatch{{Value: key, Rule: "github-pat", Replacement: "[redacted: github-pat]"}}
			}
			return nil
		}})).Must(t)
	if p.Values != 1 {
		t.Fatalf("purge: %+v", p)
	}
	b.MarkProbeDue()
	read := b.HistoryRowsRead()
	if got := first(); got != "deploy with [redacted: github-pat]" {
		t.Fatalf("B after the purge answers %q", got)
	}
	if b.CacheEpoch() != epoch+1 || b.HistoryRowsRead()-read != 2 {
		t.Fatalf("B: cache epoch %d (was %d), %d rows read; want %d, 2", b.CacheEpoch(), epoch, b.HistoryRowsRead()-read, epoch+1)
	}
	// Nothing else changed: the next probe keeps the cache.
	b.MarkProbeDue()
	read = b.HistoryRowsRead()
	first()
	if b.CacheEpoch() != epoch+1 || b.HistoryRowsRead() != read {
		t.Fatalf("B, no purge since: cache epoch %d, %d rows read; want %d, 0", b.CacheEpoch(), b.HistoryRowsRead()-read, epoch+1)
	}
}
