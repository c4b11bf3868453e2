package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"smriti"
	"smriti/contract"
	"smriti/store"
)

var rebaseCases = []struct {
	name string
	fn   func(*testing.T, *store.Store)
}{
	{"CommitOntoAMovedHeadRebasesDisjointChanges", testRebaseDisjoint},
	{"CommitOntoAMovedHeadConflictsOnTheSameItem", testRebaseConflict},
	{"StormOfSessionsSavingOnOneBranchLosesNothing", testRebaseStorm},
	{"TurnsConsumedAreWhatTheSessionsCheckpointsAccountFor", testTurnsConsumed},
	{"ConcurrentCommitsChainAndFailAlone", testGroupedCommits},
}

// testGroupedCommits: 8 writers commit 12 times each at once into one
// session (SQLite runs concurrent commits in one transaction), every third
// commit naming a session of another space. Each bad commit fails alone
// with not found, every other one is stored, and the stored ones form one
// chain: each one's parent is the one stored before it.
func testGroupedCommits(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp, other := newSpace(t, ctx, s), newSpace(t, ctx, s)
	se, foreign := newSession(t, ctx, s, sp), newSession(t, ctx, s, other)
	const writers, rounds = 8, 12
	var wg sync.WaitGroup
	var mu sync.Mutex
	ids := map[smriti.ID]bool{}
	errs := make(chan error, writers*rounds)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				session := se.ID
				if (w+r)%3 == 0 {
					session = foreign.ID
				}
				c, err := s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: session,
					Content: smriti.Content{Message: fmt.Sprintf("w%d r%d", w, r), Decisions: []string{"Use Go", fmt.Sprintf("Writer %d round %d", w, r)}}})
				switch {
				case session == foreign.ID && smriti.ErrorCode(err) != smriti.ENOTFOUND:
					errs <- fmt.Errorf("a commit naming another space's session: %v, want not found", err)
				case session == se.ID && err != nil:
					errs <- err
				case err == nil:
					mu.Lock()
					ids[c.ID] = true
					mu.Unlock()
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	cps, _, err := s.Checkpoints(ctx, sp.ID, contract.CheckpointQuery{Page: smriti.Page{Limit: 200}})
	if err != nil {
		t.Fatal(err)
	}
	if len(cps) != len(ids) || len(ids) != writers*rounds-writers*rounds/3 {
		t.Fatalf("%d checkpoints stored, %d commits succeeded, want %d", len(cps), len(ids), writers*rounds-writers*rounds/3)
	}
	// Newest first: each one's parent is the next.
	for i, c := range cps {
		if !ids[c.ID] {
			t.Fatalf("checkpoint %s was not answered as stored", c.ID)
		}
		switch {
		case i == len(cps)-1 && c.ParentID != nil:
			t.Fatalf("the first checkpoint has parent %s", c.ParentID)
		case i < len(cps)-1 && (c.ParentID == nil || *c.ParentID != cps[i+1].ID):
			t.Fatalf("checkpoint %d's parent is %v, want %s", i, c.ParentID, cps[i+1].ID)
		}
	}
	if v := Get(s.VerifyCheckpoint(ctx, cps[0].ID)).Must(t); !v.OK {
		t.Fatalf("the chain does not verify: %+v", v)
	}
}

// testRebaseDisjoint: session A drafted on C1; session B saved C2 on the
// same branch; A saves with base C1 — B's new item stays, the task B
// retracted stays retracted, A's changes land, the parent is C2.
func testRebaseDisjoint(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	a, b := newSession(t, ctx, s, sp), newSession(t, ctx, s, sp)
	c1 := Get(s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: a.ID, Content: smriti.Content{Message: "C1",
		Decisions: []string{"Use Go"}, Tasks: []smriti.Task{{Text: "Write the importer"}, {Text: "Fix login"}}}})).Must(t)
	c2 := Get(s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: b.ID, BaseCheckpointID: &c1.ID, Content: smriti.Content{Message: "C2",
		Decisions: []string{"Use Go", "Budget is 40k"}, Tasks: []smriti.Task{{Text: "Write the importer"}}}})).Must(t)
	if c2.RebasedFrom != nil || *c2.ParentID != c1.ID {
		t.Fatalf("a commit on its base's head: rebased_from %v parent %v", c2.RebasedFrom, c2.ParentID)
	}
	c3 := Get(s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: a.ID, BaseCheckpointID: &c1.ID, Content: smriti.Content{Message: "A's work",
		Decisions: []string{"Use Go", "Deploy with systemd"}, Tasks: []smriti.Task{{Text: "Write the importer"}, {Text: "Fix login"}}}})).Must(t)
	if c3.RebasedFrom == nil || *c3.RebasedFrom != c1.ID || c3.ParentID == nil || *c3.ParentID != c2.ID {
		t.Fatalf("rebased_from %v parent %v, want %s onto %s", c3.RebasedFrom, c3.ParentID, c1.ID, c2.ID)
	}
	got := Get(s.Checkpoint(ctx, c3.ID)).Must(t)
	if want := []string{"Use Go", "Budget is 40k", "Deploy with systemd"}; fmt.Sprint(got.Decisions) != fmt.Sprint(want) {
		t.Errorf("decisions %q, want %q", got.Decisions, want)
	}
	if len(got.Tasks) != 1 || got.Tasks[0].Text != "Write the importer" {
		t.Errorf("tasks %+v: the task B retracted came back", got.Tasks)
	}
	items := Get(s.CheckpointItems(ctx, c3.ID)).Must(t)
	for _, it := range items {
		if !it.Live() && it.Change != nil && it.Change.Op == smriti.OpRetract && it.Text == "Budget is 40k" {
			t.Errorf("A's checkpoint retracts B's item: %+v", it)
		}
	}
	if v := Get(s.VerifyCheckpoint(ctx, c3.ID)).Must(t); !v.OK {
		t.Errorf("verify %+v", v)
	}
	// A base from another space is refused.
	other := newSpace(t, ctx, s)
	oc := Get(s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: other.ID, Content: smriti.Content{Message: "x"}})).Must(t)
	_, err := s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: a.ID, BaseCheckpointID: &oc.ID, Content: smriti.Content{Message: "y"}})
	wantCode(t, err, smriti.EUNPROCESSABLE)
}

// testRebaseConflict: both sessions changed the same item since the base:
// 409 naming the item, the head and the base; nothing written; resolving
// saves.
func testRebaseConflict(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	a, b := newSession(t, ctx, s, sp), newSession(t, ctx, s, sp)
	c1 := Get(s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: a.ID, Content: smriti.Content{Message: "C1",
		Decisions: []string{"Pricing is per-seat at $12", "Use Go"}}})).Must(t)
	price := itemNamed(t, Get(s.CheckpointItems(ctx, c1.ID)).Must(t), "Pricing is per-seat at $12").ID
	c2 := Get(s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: b.ID, BaseCheckpointID: &c1.ID, Content: smriti.Content{Message: "C2",
		Decisions: []string{"Pricing is per-seat at $14", "Use Go"}}})).Must(t)
	if it := itemNamed(t, Get(s.CheckpointItems(ctx, c2.ID)).Must(t), "Pricing is per-seat at $14"); it.ID != price || it.Change == nil || it.Change.Op != smriti.OpUpdate {
		t.Fatalf("a text-only edit: %+v, want an update of %s", it, price)
	}
	in := smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: a.ID, BaseCheckpointID: &c1.ID, Content: smriti.Content{Message: "A",
		Decisions: []string{"Pricing is per-seat at $10", "Use Go", "Ship weekly"}}}
	_, err := s.CommitCheckpoint(ctx, in)
	wantCode(t, err, smriti.ECONFLICT)
	var e *smriti.Error
	cc, _ := smriti.ErrorData(err).(*smriti.CommitConflict)
	if !errors.As(err, &e) || cc == nil || cc.HeadCheckpointID != c2.ID || cc.BaseCheckpointID != c1.ID || len(cc.Conflicts) != 1 ||
		cc.Conflicts[0] != (smriti.MergeConflict{Field: "decisions", Key: price, Kind: "both_changed",
			Base: "Pricing is per-seat at $12", Ours: "Pricing is per-seat at $14", Theirs: "Pricing is per-seat at $10"}) {
		t.Fatalf("conflict %+v", cc)
	}
	if head := Get(s.LatestCheckpoints(ctx, sp.ID, smriti.MainBranch, 1)).Must(t); head[0].ID != c2.ID {
		t.Fatalf("a refused commit wrote %s", head[0].ID)
	}
	in.Resolutions = []smriti.MergeResolution{{Field: "decisions", Key: price, Choice: smriti.ChooseOurs}}
	c3 := Get(s.CommitCheckpoint(ctx, in)).Must(t)
	if want := []string{"Pricing is per-seat at $14", "Use Go", "Ship weekly"}; fmt.Sprint(c3.Decisions) != fmt.Sprint(want) || *c3.ParentID != c2.ID {
		t.Fatalf("resolved: decisions %q parent %v, want %q onto %s", c3.Decisions, c3.ParentID, want, c2.ID)
	}
}

// testRebaseStorm: 8 sessions on one branch each read the head, add an
// item of their own and retract the one they added two rounds before,
// and save with the head they read as base, 10 times, all at once. Every
// save is stored once or refused (a conflict), and the final head holds
// exactly the items added and not retracted.
func testRebaseStorm(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	Get(s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, Content: smriti.Content{Message: "root", Decisions: []string{"Use Go"}}})).Must(t)
	const writers, rounds = 8, 10
	var wg sync.WaitGroup
	var mu sync.Mutex
	added, retracted := map[string]bool{}, map[string]bool{}
	stored, conflicts := 0, 0
	errs := make(chan error, writers*rounds)
	for w := 0; w < writers; w++ {
		se := newSession(t, ctx, s, sp)
		wg.Add(1)
		go func(w int, se *smriti.Session) {
			defer wg.Done()
			var mine []string // this writer's live items
			for r := 0; r < rounds; r++ {
				heads, err := s.LatestCheckpoints(ctx, sp.ID, smriti.MainBranch, 1)
				if err != nil {
					errs <- err
					return
				}
				head := heads[0]
				text := fmt.Sprintf("Writer %d decided thing number %d", w, r)
				var drop string
				if len(mine) >= 2 {
					drop = mine[0]
				}
				decisions := []string{}
				for _, d := range head.Decisions {
					if d != drop {
						decisions = append(decisions, d)
					}
				}
				decisions = append(decisions, text)
				_, err = s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: se.ID, BaseCheckpointID: &head.ID,
					Content: smriti.Content{Message: text, Decisions: decisions}})
				mu.Lock()
				switch smriti.ErrorCode(err) {
				case "":
					stored++
					added[text] = true
					mine = append(mine, text)
					if drop != "" {
						retracted[drop] = true
						mine = mine[1:]
					}
				case smriti.ECONFLICT:
					conflicts++
				default:
					errs <- err
				}
				mu.Unlock()
			}
		}(w, se)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	want := map[string]bool{"Use Go": true}
	for a := range added {
		if !retracted[a] {
			want[a] = true
		}
	}
	heads := Get(s.LatestCheckpoints(ctx, sp.ID, smriti.MainBranch, 1)).Must(t)
	got := map[string]bool{}
	for _, d := range heads[0].Decisions {
		if got[d] {
			t.Errorf("%q twice in the head", d)
		}
		got[d] = true
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("head holds %d items, want %d:\n got %v\nwant %v", len(got), len(want), got, want)
	}
	all, _, err := s.Checkpoints(ctx, sp.ID, contract.CheckpointQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != stored+1 || stored+conflicts != writers*rounds {
		t.Fatalf("%d checkpoints for %d stored + root, %d conflicts, of %d saves", len(all), stored, conflicts, writers*rounds)
	}
	t.Logf("%d saves: %d stored, %d conflicts; head holds %d items", writers*rounds, stored, conflicts, len(got))
}

// testTurnsConsumed: what a session's checkpoints account for — a drafted
// checkpoint's source turns, a text-only commit's turns before it — and
// nothing another session's checkpoint did.
func testTurnsConsumed(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	a, b := newSession(t, ctx, s, sp), newSession(t, ctx, s, sp)
	want := func(se *smriti.Session, n int64) {
		t.Helper()
		if got := Get(s.TurnsConsumed(ctx, se.ID)).Must(t); got != n {
			t.Errorf("session %s: consumed through %d, want %d", se.ID, got, n)
		}
	}
	want(a, -1)
	for range 3 {
		send(t, ctx, s, a, "a turn")
	}
	send(t, ctx, s, b, "b's turn")
	// A draft of turns 0..3 saved while turn 4 and 5 exist: 3.
	Get(s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: a.ID, Content: smriti.Content{Message: "drafted"},
		SourceTurns: &smriti.SourceTurns{SessionID: a.ID, FromSeq: 0, ToSeq: 3}})).Must(t)
	want(a, 3)
	want(b, -1)
	// B's text-only save accounts for B's two turns (0, 1), not A's.
	commit(t, ctx, s, sp, b, "b saves")
	want(b, 1)
	want(a, 3)
	// A's text-only save accounts for all six of A's turns written before it.
	commit(t, ctx, s, sp, a, "a saves")
	want(a, 5)
	send(t, ctx, s, a, "after the save")
	want(a, 5)
	if _, err := s.TurnsConsumed(ctx, smriti.NewID()); smriti.ErrorCode(err) != smriti.ENOTFOUND {
		t.Errorf("unknown session: %v, want not found", err)
	}
}
