package store_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"smriti"
	"smriti/contract"
	"smriti/store"
	"smriti/store/storetest"
)

// TestBrokenPoolDoesNotReachTheCallerPostgres breaks every pooled
// connection at once, as a failover does, and brings the database back at
// once: the next reads and writes (outside and inside transactions, through
// group commit and on their own) succeed without an error, each write is
// stored once, and the idle connections were replaced.
func TestBrokenPoolDoesNotReachTheCallerPostgres(t *testing.T) {
	proxy, via := storetest.NewProxy(t, storetest.PostgresDSN(t))
	s, err := store.OpenWith(context.Background(), via, nil, store.Options{MaxConns: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := smriti.WithUser(context.Background(), smriti.NewID())
	sp := storetest.Get(s.CreateSpace(ctx, smriti.SpaceCreate{Name: "x"})).Must(t)
	se := storetest.Get(s.CreateSession(ctx, smriti.SessionCreate{SpaceID: &sp.ID})).Must(t)
	send := func(i int, key string) error {
		_, err := s.AppendExchange(ctx, contract.Exchange{SessionID: se.ID, IdempotencyKey: key,
			User: contract.TurnWrite{Content: fmt.Sprint("q", i)}, Assistant: contract.TurnWrite{Content: fmt.Sprint("a", i)}})
		return err
	}
	// Fill the pool: eight connections, all idle afterwards.
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.DB().ExecContext(ctx, `SELECT pg_sleep(0.05)`); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if idle := s.DB().Stats().Idle; idle != 8 {
		t.Fatalf("idle connections before the cut = %d, want 8", idle)
	}
	for round := 0; round < 3; round++ {
		proxy.Cut()
		proxy.Restore()
		switch round {
		case 0: // a read first
			if _, err := s.Session(ctx, se.ID); err != nil {
				t.Fatalf("read after the cut: %v", err)
			}
		case 1: // a write on its own (with a key: not grouped)
			if err := send(round, fmt.Sprint("k", round)); err != nil {
				t.Fatalf("write after the cut: %v", err)
			}
		case 2: // concurrent writes through group commit, and a checkpoint
			errs := make(chan error, 9)
			for i := 0; i < 8; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs <- send(100+i, "")
				}()
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: se.ID, Content: smriti.Content{Message: "m"}})
				errs <- err
			}()
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatalf("concurrent write after the cut: %v", err)
				}
			}
		}
	}
	turns := storetest.Get(s.Turns(ctx, se.ID, contract.TurnQuery{})).Must(t)
	if len(turns) != 2*9 {
		t.Fatalf("turns = %d, want %d (each write once)", len(turns), 2*9)
	}
	seen := map[string]bool{}
	for _, tr := range turns {
		if seen[tr.Content] {
			t.Fatalf("%q stored twice", tr.Content)
		}
		seen[tr.Content] = true
	}
	if cps, _, err := s.Checkpoints(ctx, sp.ID, contract.CheckpointQuery{}); err != nil || len(cps) != 1 {
		t.Fatalf("checkpoints = %d (%v), want 1", len(cps), err)
	}
}

// TestPoolAcquireTimeoutPostgres: with every connection held, a write
// waits no longer than the acquire timeout and fails with ETRYAGAIN (503),
// and succeeds once a connection is free.
func TestPoolAcquireTimeoutPostgres(t *testing.T) {
	s, err := store.OpenWith(context.Background(), storetest.PostgresDSN(t), nil,
		store.Options{MaxConns: 1, AcquireTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := smriti.WithUser(context.Background(), smriti.NewID())
	held, err := s.DB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.CreateSpace(ctx, smriti.SpaceCreate{Name: "x"})
	if code := smriti.ErrorCode(s.Classify(err)); code != smriti.ETRYAGAIN {
		t.Fatalf("write with the pool held: %q (%v), want %q", code, err, smriti.ETRYAGAIN)
	}
	var de *smriti.Error
	if !errors.As(err, &de) || de.Message != "the database is unavailable right now; try again shortly" {
		t.Fatalf("error = %v", err)
	}
	held.Close()
	storetest.Get(s.CreateSpace(ctx, smriti.SpaceCreate{Name: "x"})).Must(t)
}

func TestIdentityChangeDropsTurnCacheSQLite(t *testing.T) {
	testIdentityChangeDropsTurnCache(t, openDSN(t, filepath.Join(t.TempDir(), "s.db")))
}

func TestIdentityChangeDropsTurnCachePostgres(t *testing.T) {
	testIdentityChangeDropsTurnCache(t, openDSN(t, storetest.PostgresDSN(t)))
}

// testIdentityChangeDropsTurnCache: the turn cache serves a hot session
// from memory while the database is the same one, and is dropped — the
// history read again from the database — when the database's identity or
// timeline is another (as after a failover to a standby, or a split brain).
func testIdentityChangeDropsTurnCache(t *testing.T, s *store.Store) {
	ctx := smriti.WithUser(context.Background(), smriti.NewID())
	se := storetest.Get(s.CreateSession(ctx, smriti.SessionCreate{})).Must(t)
	for i := 0; i < 2; i++ {
		storetest.Get(s.AppendExchange(ctx, contract.Exchange{SessionID: se.ID,
			User: contract.TurnWrite{Content: "q"}, Assistant: contract.TurnWrite{Content: "a"}})).Must(t)
	}
	identity := "7714491086006758926/1"
	s.SetIdentityProbe(func(context.Context) (string, error) { return identity, nil })
	history := func() {
		t.Helper()
		snap := storetest.Get(s.Session(ctx, se.ID)).Must(t)
		if w := storetest.Get(s.History(ctx, snap, contract.HistoryQuery{Budget: 1000})).Must(t); len(w.Turns) != 4 {
			t.Fatalf("history = %d turns, want 4", len(w.Turns))
		}
	}
	step := func(what, id string, wantRead, wantDrops int64) {
		t.Helper()
		identity = id
		s.SetIdentityProbe(func(context.Context) (string, error) { return identity, nil })
		before := s.HistoryRowsRead()
		history()
		if read, drops := s.HistoryRowsRead()-before, s.IdentityCacheDrops(); read != wantRead || drops != wantDrops {
			t.Fatalf("%s: read %d rows, %d drops; want %d rows, %d drops", what, read, drops, wantRead, wantDrops)
		}
	}
	history() // fills the cache (the first identity is learnt, nothing dropped)
	step("same database", "7714491086006758926/1", 0, 0)
	step("new timeline (a promotion)", "7714491086006758926/2", 4, 1)
	step("same again", "7714491086006758926/2", 0, 1)
	step("another cluster", "7714491086006758999/2", 4, 2)
	// A probe that fails leaves the cache as it is.
	s.SetIdentityProbe(func(context.Context) (string, error) { return "", errors.New("connection refused") })
	before := s.HistoryRowsRead()
	history()
	if read := s.HistoryRowsRead() - before; read != 0 || s.IdentityCacheDrops() != 2 {
		t.Fatalf("failed probe: read %d rows, %d drops", read, s.IdentityCacheDrops())
	}
}

// TestIdentityProbePostgres: the real probe names the cluster and its
// timeline.
func TestIdentityProbePostgres(t *testing.T) {
	s := openDSN(t, storetest.PostgresDSN(t))
	var sys, tli int64
	if err := s.DB().QueryRow(`SELECT system_identifier, ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::int
		FROM pg_control_system()`).Scan(&sys, &tli); err != nil {
		t.Fatal(err)
	}
	got, err := s.Identity(context.Background())
	if want := fmt.Sprintf("%d/%d", sys, tli); err != nil || got != want {
		t.Fatalf("identity = %q (%v), want %q", got, err, want)
	}
}
