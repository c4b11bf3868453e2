package storetest

import (
	"fmt"
	"sort"
	"sync"
	"testing"

	"smriti"
	"smriti/contract"
	"smriti/store"
)

var spaceLogCases = []struct {
	name string
	fn   func(t *testing.T, s *store.Store)
}{
	{"SpaceLogsExactUnderConcurrency", testSpaceLogsConcurrent},
	{"AttachGivesTurnsTheSpacesPositions", testAttachRenumbers},
}

// testSpaceLogsConcurrent sends to two sessions in each of four spaces at
// once while each space commits checkpoints in between, and a reader per
// space follows its event log. Within a space:
//   - turns and checkpoints have distinct positions, a session's growing
//     with its sequence numbers;
//   - "turns after this checkpoint" is exact: every turn visible before the
//     checkpoint began is below it, and every turn below it is visible once
//     it has committed (a turn below it committed before it);
//   - the event log holds one event per reply and checkpoint, at their
//     positions, and the reader that polled "after N" during the writes saw
//     every one of them, in order, none skipped.
func testSpaceLogsConcurrent(t *testing.T, s *store.Store) {
	ctx := userCtx()
	const spaces, sessions, senders, sends, commits = 4, 2, 2, 6, 3
	type spaceRun struct {
		sp       *smriti.Space
		sessions []*smriti.Session
		start    int64
		// before and after: the turn ids visible before each checkpoint
		// began and once it had committed.
		before, after map[smriti.ID]map[smriti.ID]bool
		seen          []contract.SpaceEvent
	}
	runs := make([]*spaceRun, spaces)
	for i := range runs {
		r := &spaceRun{sp: newSpace(t, ctx, s), before: map[smriti.ID]map[smriti.ID]bool{}, after: map[smriti.ID]map[smriti.ID]bool{}}
		for j := 0; j < sessions; j++ {
			r.sessions = append(r.sessions, newSession(t, ctx, s, r.sp))
		}
		r.start = Get(s.LogPosition(ctx, r.sp.ID)).Must(t)
		runs[i] = r
	}
	visible := func(r *spaceRun) (map[smriti.ID]bool, error) {
		ids := map[smriti.ID]bool{}
		for _, se := range r.sessions {
			ts, err := s.Turns(ctx, se.ID, contract.TurnQuery{})
			if err != nil {
				return nil, err
			}
			for _, tr := range ts {
				ids[tr.ID] = true
			}
		}
		return ids, nil
	}
	var writers, readers sync.WaitGroup
	errs := make(chan error, spaces*(sessions*senders+2))
	done := make(chan struct{})
	var mu sync.Mutex
	for _, r := range runs {
		for _, se := range r.sessions {
			for k := 0; k < senders; k++ {
				writers.Add(1)
				go func() {
					defer writers.Done()
					for n := 0; n < sends; n++ {
						msg := fmt.Sprintf("q%d-%d", k, n)
						if _, err := s.AppendExchange(ctx, contract.Exchange{SessionID: se.ID,
							User: contract.TurnWrite{Content: msg}, Assistant: contract.TurnWrite{Content: "a" + msg[1:]}}); err != nil {
							errs <- err
							return
						}
					}
				}()
			}
		}
		writers.Add(1)
		go func() {
			defer writers.Done()
			for n := 0; n < commits; n++ {
				before, err := visible(r)
				if err != nil {
					errs <- err
					return
				}
				c, err := s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: r.sp.ID, SessionID: r.sessions[n%sessions].ID,
					Content: smriti.Content{Message: fmt.Sprint("commit ", n)}})
				if err != nil {
					errs <- err
					return
				}
				after, err := visible(r)
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				r.before[c.ID], r.after[c.ID] = before, after
				mu.Unlock()
			}
		}()
		readers.Add(1)
		go func() {
			defer readers.Done()
			after := r.start
			for last := false; ; {
				select {
				case <-done:
					last = true
				default:
				}
				evs, err := s.SpaceEvents(ctx, r.sp.ID, after, 100)
				if err != nil {
					errs <- err
					return
				}
				for _, ev := range evs {
					r.seen = append(r.seen, ev)
					after = ev.Position
				}
				if last && len(evs) < 100 {
					return
				}
			}
		}()
	}
	writers.Wait()
	close(done)
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	for i, r := range runs {
		var turns []*smriti.Turn
		for _, se := range r.sessions {
			ts := Get(s.Turns(ctx, se.ID, contract.TurnQuery{})).Must(t)
			if len(ts) != 2*senders*sends {
				t.Fatalf("space %d session has %d turns, want %d", i, len(ts), 2*senders*sends)
			}
			for j := 1; j < len(ts); j++ {
				if ts[j].Seq != ts[j-1].Seq+1 || ts[j].LogPos <= ts[j-1].LogPos {
					t.Fatalf("space %d: turn seq %d at %d follows seq %d at %d", i, ts[j].Seq, ts[j].LogPos, ts[j-1].Seq, ts[j-1].LogPos)
				}
			}
			turns = append(turns, ts...)
		}
		cps, _, err := s.Checkpoints(ctx, r.sp.ID, contract.CheckpointQuery{})
		if err != nil || len(cps) != commits {
			t.Fatalf("space %d: %d checkpoints, err %v", i, len(cps), err)
		}
		at := map[int64]string{}
		for _, tr := range turns {
			if prev, dup := at[tr.LogPos]; dup || tr.LogPos <= r.start {
				t.Fatalf("space %d: turn position %d (taken by %q, start %d)", i, tr.LogPos, prev, r.start)
			}
			at[tr.LogPos] = "turn " + tr.Content
		}
		for _, c := range cps {
			if prev, dup := at[c.LogPos]; dup || c.LogPos <= r.start {
				t.Fatalf("space %d: checkpoint position %d (taken by %q, start %d)", i, c.LogPos, prev, r.start)
			}
			at[c.LogPos] = "checkpoint"
			below := 0
			for _, tr := range turns {
				if tr.LogPos < c.LogPos {
					below++
					if !r.after[c.ID][tr.ID] {
						t.Fatalf("space %d: turn at %d is below checkpoint %d but was not visible once it committed", i, tr.LogPos, c.LogPos)
					}
				} else if r.before[c.ID][tr.ID] {
					t.Fatalf("space %d: turn at %d was visible before checkpoint %d began", i, tr.LogPos, c.LogPos)
				}
			}
			// The history a send after the checkpoint builds on: exactly the
			// turns above it.
			above := 0
			for _, se := range r.sessions {
				pos := c.LogPos
				above += len(Get(s.Turns(ctx, se.ID, contract.TurnQuery{AfterLogPos: &pos})).Must(t))
			}
			if below+above != len(turns) {
				t.Fatalf("space %d: %d turns below checkpoint %d and %d after it, of %d", i, below, c.LogPos, above, len(turns))
			}
		}
		// One event per reply and checkpoint (and per session created
		// before start: none), at their positions, seen in order by the
		// reader.
		want := []int64{}
		for _, tr := range turns {
			if tr.Role == smriti.RoleAssistant {
				want = append(want, tr.LogPos)
			}
		}
		for _, c := range cps {
			want = append(want, c.LogPos)
		}
		sort.Slice(want, func(a, b int) bool { return want[a] < want[b] })
		all := Get(s.SpaceEvents(ctx, r.sp.ID, r.start, 1000)).Must(t)
		if len(all) != len(want) || len(r.seen) != len(want) {
			t.Fatalf("space %d: %d events stored, %d seen by the reader, want %d", i, len(all), len(r.seen), len(want))
		}
		for k := range want {
			if all[k].Position != want[k] || r.seen[k].Position != want[k] || all[k].SpaceID != r.sp.ID {
				t.Fatalf("space %d: event %d at %d (reader: %d), want %d", i, k, all[k].Position, r.seen[k].Position, want[k])
			}
		}
		if pos := Get(s.LogPosition(ctx, r.sp.ID)).Must(t); pos < want[len(want)-1] {
			t.Fatalf("space %d: log position %d behind its last event %d", i, pos, want[len(want)-1])
		}
	}
}

// testAttachRenumbers: a session's turns written outside a space take new
// positions in the space's log when it is attached — after the space's
// checkpoints, so a send at HEAD builds on all of them — and a session moved
// on to a second space takes that one's.
func testAttachRenumbers(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp, other := newSpace(t, ctx, s), newSpace(t, ctx, s)
	inSpace := newSession(t, ctx, s, sp)
	loose := Get(s.CreateSession(ctx, smriti.SessionCreate{Provider: "mock"})).Must(t)
	send(t, ctx, s, loose, "one")
	send(t, ctx, s, inSpace, "in the space")
	send(t, ctx, s, loose, "two")
	// The cache holds the loose session's turns with their old positions.
	Get(s.History(ctx, Get(s.Session(ctx, loose.ID)).Must(t), contract.HistoryQuery{Budget: 1000})).Must(t)
	c := commit(t, ctx, s, sp, inSpace, "A")

	Get(s.AttachSession(ctx, loose.ID, sp.ID)).Must(t)
	check := func(space *smriti.Space, after *smriti.Checkpoint) {
		t.Helper()
		ts := Get(s.Turns(ctx, loose.ID, contract.TurnQuery{})).Must(t)
		if len(ts) != 4 {
			t.Fatalf("turns = %d", len(ts))
		}
		for i, tr := range ts {
			if *tr.SpaceID != space.ID || tr.LogPos <= after.LogPos || (i > 0 && tr.LogPos != ts[i-1].LogPos+1) {
				t.Fatalf("turn %d at %d in %v, want after %d in %v, consecutive", tr.Seq, tr.LogPos, *tr.SpaceID, after.LogPos, space.ID)
			}
		}
		pos := after.LogPos
		se := Get(s.Session(ctx, loose.ID)).Must(t)
		w := Get(s.History(ctx, se, contract.HistoryQuery{AfterLogPos: &pos, Budget: 1000})).Must(t)
		if len(w.Turns) != 4 {
			t.Fatalf("history after checkpoint %d: %d turns, want 4", pos, len(w.Turns))
		}
		// Positions stay unique in the space: a checkpoint now comes after.
		next := commit(t, ctx, s, space, se, "after attach")
		if next.LogPos <= ts[3].LogPos {
			t.Fatalf("checkpoint at %d, not after the attached turns (%d)", next.LogPos, ts[3].LogPos)
		}
		pos = next.LogPos
		if w := Get(s.History(ctx, se, contract.HistoryQuery{AfterLogPos: &pos, Budget: 1000})).Must(t); len(w.Turns) != 0 {
			t.Fatalf("history after the new checkpoint: %d turns, want 0", len(w.Turns))
		}
	}
	check(sp, c)
	o := commit(t, ctx, s, other, Get(s.CreateSession(ctx, smriti.SessionCreate{SpaceID: &other.ID})).Must(t), "O")
	Get(s.AttachSession(ctx, loose.ID, other.ID)).Must(t)
	check(other, o)
}
