package store_test

import (
	"context"
	"fmt"
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

func TestGroupCommitAcrossSpacesSQLite(t *testing.T) {
	dsn := filepath.Join(t.TempDir(), "smriti.db")
	testGroupCommitAcrossSpaces(t, openDSN(t, dsn), openDSN(t, dsn))
}

func TestGroupCommitAcrossSpacesPostgres(t *testing.T) {
	dsn := storetest.PostgresDSN(t)
	testGroupCommitAcrossSpaces(t, openDSN(t, dsn), openDSN(t, dsn))
}

// testGroupCommitAcrossSpaces writes one batch over sessions of three
// spaces, a loose session and a session of a space the caller is no member
// of — on PostgreSQL the batch's session rows and its spaces' log rows are
// each taken by one statement — and then has two stores on one database (as
// two replicas) write concurrent batches over the same sessions: every
// exchange gets the answer it would get alone, sequence numbers stay
// consecutive per session, and log positions unique and ordered per space.
func testGroupCommitAcrossSpaces(t *testing.T, s, replica *store.Store) {
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
	var sessions []*smriti.Session
	for i := 0; i < 3; i++ {
		sp := storetest.Get(s.CreateSpace(ctx, smriti.SpaceCreate{Name: fmt.Sprintf("space %d", i)})).Must(t)
		for j := 0; j <= i%2; j++ {
			sessions = append(sessions, storetest.Get(s.CreateSession(ctx, smriti.SessionCreate{SpaceID: &sp.ID, Provider: "mock", Model: "m0"})).Must(t))
		}
	}
	sessions = append(sessions, storetest.Get(s.CreateSession(ctx, smriti.SessionCreate{Provider: "mock", Model: "m0"})).Must(t))
	foreign := storetest.Get(s.CreateSpace(other, smriti.SpaceCreate{Name: "not mine"})).Must(t)
	hidden := storetest.Get(s.CreateSession(other, smriti.SessionCreate{SpaceID: &foreign.ID})).Must(t)
	exchange := func(id smriti.ID, name, model string) contract.Exchange {
		return contract.Exchange{SessionID: id,
			User:      contract.TurnWrite{Content: "q " + name, Provider: "mock", Model: model, Tokens: 3},
			Assistant: contract.TurnWrite{Content: "a " + name, Provider: "mock", Model: model, Tokens: 5}}
	}
	// Sessions 0..4: space 0 has one, space 1 two, space 2 one, then the
	// loose one. The last exchange of session 2 is a one-off model.
	keep := exchange(sessions[2].ID, "s2 once", "once")
	keep.KeepSessionModel = true
	exs := []contract.Exchange{exchange(sessions[3].ID, "s3", "m1"), exchange(sessions[1].ID, "s1", "m1"), exchange(hidden.ID, "h", "m1"),
		exchange(sessions[0].ID, "s0", "m1"), exchange(sessions[4].ID, "s4", "m1"), exchange(sessions[2].ID, "s2", "m1"), keep,
		exchange(sessions[1].ID, "s1 again", "m2")}
	ctxs := slices.Repeat([]context.Context{ctx}, len(exs))
	logBefore := logPositions(t, s)
	res, errs := s.WriteGroup(ctxs, exs)
	if at := stamps(res); len(at) != 1 {
		t.Fatalf("the batch's turns carry %d timestamps, want 1 (one transaction)", len(at))
	}
	// Each space's new turns take the positions right after its log's.
	for i, se := range sessions[:4] {
		first := mustTurns(t, s, ctx, se.ID)[0]
		if before, ok := logBefore[*se.SpaceID]; ok && (first.LogPos <= before || first.LogPos > before+6) {
			t.Fatalf("session %d: first turn at log position %d, the space's log was at %d", i, first.LogPos, before)
		}
	}
	for i, err := range errs {
		if exs[i].SessionID == hidden.ID {
			if smriti.ErrorCode(err) != smriti.ENOTFOUND {
				t.Fatalf("exchange of a foreign space's session: err %v, want ENOTFOUND", err)
			}
			continue
		}
		if err != nil || res[i].User.Content != exs[i].User.Content || res[i].Assistant.Seq != res[i].User.Seq+1 {
			t.Fatalf("exchange %d: %+v, %v", i, res[i], err)
		}
	}
	wantModel := []string{"m1", "m2", "m1", "m1", "m1"}
	for i, se := range sessions {
		got := storetest.Get(s.Session(ctx, se.ID)).Must(t)
		if got.ActiveModel != wantModel[i] {
			t.Fatalf("session %d model %q, want %q", i, got.ActiveModel, wantModel[i])
		}
	}
	if n := len(mustTurns(t, s, other, hidden.ID)); n != 0 {
		t.Fatalf("the foreign session got %d turns", n)
	}
	checkLogs(t, s, ctx, sessions)

	// One session for two callers makes two runs of it: written one run
	// after another, and the caller who may not write it is refused.
	res, errs = s.WriteGroup([]context.Context{ctx, other}, []contract.Exchange{exchange(sessions[0].ID, "mine", "m1"), exchange(sessions[0].ID, "theirs", "m1")})
	if errs[0] != nil || res[0].User.Seq != 2 || smriti.ErrorCode(errs[1]) != smriti.ENOTFOUND {
		t.Fatalf("one session for two callers: %+v, %v", res, errs)
	}
	checkLogs(t, s, ctx, sessions)

	// Two replicas, eight writers each, over every session at once.
	var wg sync.WaitGroup
	failed := make(chan error, 64)
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := []*store.Store{s, replica}[w%2]
			for n := 0; n < 12; n++ {
				se := sessions[(w+n)%len(sessions)]
				if _, err := st.AppendExchange(ctx, exchange(se.ID, fmt.Sprintf("w%d n%d", w, n), "m3")); err != nil {
					failed <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(failed)
	for err := range failed {
		t.Fatalf("concurrent send: %v", err)
	}
	total := 0
	for _, se := range sessions {
		total += len(mustTurns(t, s, ctx, se.ID))
	}
	if want := 2*len(exs) + 2*16*12; total != want {
		t.Fatalf("%d turns stored, want %d", total, want)
	}
	checkLogs(t, s, ctx, sessions)
}

// logPositions reads every space's log position (PostgreSQL keeps one per
// space; on SQLite there is none and the map is empty).
func logPositions(t *testing.T, s *store.Store) map[smriti.ID]int64 {
	t.Helper()
	out := map[smriti.ID]int64{}
	rows, err := s.DB().Query(`SELECT space_id, position FROM space_log`)
	if err != nil {
		return out
	}
	defer rows.Close()
	for rows.Next() {
		var id smriti.ID
		var pos int64
		if err := rows.Scan(&id, &pos); err != nil {
			t.Fatal(err)
		}
		out[id] = pos
	}
	return out
}

// checkLogs checks every session's turns are numbered 0, 1, … in pairs with
// running token totals, and that each space's turns hold distinct log
// positions growing with every session's sequence numbers.
func checkLogs(t *testing.T, s *store.Store, ctx context.Context, sessions []*smriti.Session) {
	t.Helper()
	positions := map[smriti.ID]map[int64]bool{}
	for _, se := range sessions {
		space := smriti.ID{}
		if se.SpaceID != nil {
			space = *se.SpaceID
		}
		if positions[space] == nil {
			positions[space] = map[int64]bool{}
		}
		var last, sum int64
		for i, turn := range mustTurns(t, s, ctx, se.ID) {
			if turn.Seq != int64(i) || (i > 0 && turn.LogPos <= last) || (i%2 == 1) != (turn.Role == smriti.RoleAssistant) {
				t.Fatalf("session %s turn %d: seq %d role %s log %d after %d", se.ID, i, turn.Seq, turn.Role, turn.LogPos, last)
			}
			if se.SpaceID != nil && positions[space][turn.LogPos] {
				t.Fatalf("log position %d taken twice in space %s", turn.LogPos, space)
			}
			positions[space][turn.LogPos] = true
			last = turn.LogPos
			sum += int64(turn.Tokens)
			var total int64
			if err := s.DB().QueryRow(s.Rebind(`SELECT token_total FROM turns WHERE id = ?`), turn.ID).Scan(&total); err != nil {
				t.Fatal(err)
			}
			if total != sum {
				t.Fatalf("turn %d token_total = %d, want %d", turn.Seq, total, sum)
			}
		}
	}
}

func TestGroupCommitSessionMovedPostgres(t *testing.T) {
	testGroupCommitSessionMoved(t, openDSN(t, storetest.PostgresDSN(t)))
}

// testGroupCommitSessionMoved (each space its own log) writes batches over a session of a space and
// a loose one, attaches the loose one to another space between two batches
// (on PostgreSQL a batch reserves the logs' positions by the spaces its
// sessions were in before), and checks every turn took the positions of
// the log of the space it was written in.
func testGroupCommitSessionMoved(t *testing.T, s *store.Store) {
	ctx := smriti.WithUser(context.Background(), smriti.NewID())
	a := storetest.Get(s.CreateSpace(ctx, smriti.SpaceCreate{Name: "a"})).Must(t)
	b := storetest.Get(s.CreateSpace(ctx, smriti.SpaceCreate{Name: "b"})).Must(t)
	inA := storetest.Get(s.CreateSession(ctx, smriti.SessionCreate{SpaceID: &a.ID, Provider: "mock", Model: "m"})).Must(t)
	loose := storetest.Get(s.CreateSession(ctx, smriti.SessionCreate{Provider: "mock", Model: "m"})).Must(t)
	exchange := func(id smriti.ID, n int) contract.Exchange {
		return contract.Exchange{SessionID: id,
			User:      contract.TurnWrite{Content: fmt.Sprintf("q %d", n), Provider: "mock", Model: "m", Tokens: 3},
			Assistant: contract.TurnWrite{Content: fmt.Sprintf("a %d", n), Provider: "mock", Model: "m", Tokens: 5}}
	}
	ctxs := []context.Context{ctx, ctx}
	write := func(n int) {
		t.Helper()
		_, errs := s.WriteGroup(ctxs, []contract.Exchange{exchange(inA.ID, n), exchange(loose.ID, n)})
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	write(1)
	write(2)
	if _, err := s.AttachSession(ctx, loose.ID, b.ID); err != nil {
		t.Fatal(err)
	}
	write(3)
	write(4)
	pos := logPositions(t, s)
	for _, c := range []struct {
		name  string
		id    smriti.ID
		space smriti.ID
	}{{"the session of a", inA.ID, a.ID}, {"the attached session", loose.ID, b.ID}} {
		turns := mustTurns(t, s, ctx, c.id)
		if len(turns) != 8 {
			t.Fatalf("%s has %d turns, want 8", c.name, len(turns))
		}
		// The space's log holds the session's turns last, in sequence order.
		first := pos[c.space] - 7
		for i, tu := range turns {
			if tu.SpaceID == nil || *tu.SpaceID != c.space || tu.LogPos != first+int64(i) || tu.Seq != turns[0].Seq+int64(i) {
				t.Fatalf("%s: turn %d at sequence %d, log position %d of space %v; want %d, %d of %s", c.name, i, tu.Seq, tu.LogPos, tu.SpaceID, turns[0].Seq+int64(i), first+int64(i), c.space)
			}
		}
	}
}
