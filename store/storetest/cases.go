package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"smriti"
	"smriti/contract"
	"smriti/internal/textutil"
	"smriti/store"
)

func testSpaces(t *testing.T, s *store.Store) {
	ctx := userCtx()
	var made []*smriti.Space
	for i := 0; i < 5; i++ {
		made = append(made, Get(s.CreateSpace(ctx, smriti.SpaceCreate{Name: fmt.Sprintf("space %d", i)})).Must(t))
	}
	got := Get(s.Space(ctx, made[0].ID)).Must(t)
	if got.Name != "space 0" || got.OwnerID != smriti.UserFromContext(ctx) || got.Metadata == nil {
		t.Fatalf("space = %+v", got)
	}
	page1, next, err := s.Spaces(ctx, smriti.Page{Limit: 3})
	if err != nil || len(page1) != 3 || next == "" {
		t.Fatalf("page1 = %d spaces, next %q, err %v", len(page1), next, err)
	}
	page2, next2, err := s.Spaces(ctx, smriti.Page{Limit: 3, After: next})
	if err != nil || len(page2) != 2 || next2 != "" {
		t.Fatalf("page2 = %d spaces, next %q, err %v", len(page2), next2, err)
	}
	seen := map[smriti.ID]bool{}
	for _, sp := range append(page1, page2...) {
		if seen[sp.ID] {
			t.Fatalf("space %s listed twice", sp.ID)
		}
		seen[sp.ID] = true
	}
	_, _, err = s.Spaces(ctx, smriti.Page{After: "garbage"})
	wantCode(t, err, smriti.EINVALID)

	updated := Get(s.SetProjectRoot(ctx, made[1].ID, "/src/app")).Must(t)
	if updated.ProjectRoot == nil || *updated.ProjectRoot != "/src/app" {
		t.Fatalf("project root = %v", updated.ProjectRoot)
	}
	if err := s.DeleteSpace(ctx, made[2].ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.Space(ctx, made[2].ID)
	wantCode(t, err, smriti.ENOTFOUND)
	wantCode(t, s.DeleteSpace(ctx, made[2].ID), smriti.ENOTFOUND)
	_, err = s.SetProjectRoot(ctx, smriti.NewID(), "/x")
	wantCode(t, err, smriti.ENOTFOUND)
}

func testSpacesInvisible(t *testing.T, s *store.Store) {
	alice, bob := userCtx(), userCtx()
	sp := newSpace(t, alice, s)
	se := newSession(t, alice, s, sp)
	cp := commit(t, alice, s, sp, se, "one")
	if _, err := s.Space(bob, sp.ID); smriti.ErrorCode(err) != smriti.ENOTFOUND {
		t.Fatalf("bob sees alice's space: %v", err)
	}
	if _, err := s.Session(bob, se.ID); smriti.ErrorCode(err) != smriti.ENOTFOUND {
		t.Fatalf("bob sees alice's session: %v", err)
	}
	if _, err := s.Checkpoint(bob, cp.ID); smriti.ErrorCode(err) != smriti.ENOTFOUND {
		t.Fatalf("bob sees alice's checkpoint: %v", err)
	}
	wantCode(t, s.DeleteSpace(bob, sp.ID), smriti.ENOTFOUND)
	wantCode(t, s.DeleteCheckpoint(bob, cp.ID, true), smriti.ENOTFOUND)
	list, _, _ := s.Spaces(bob, smriti.Page{})
	if len(list) != 0 {
		t.Fatalf("bob lists %d spaces", len(list))
	}
}

func testSessions(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	loose := Get(s.CreateSession(ctx, smriti.SessionCreate{Title: "loose"})).Must(t)
	if loose.SpaceID != nil || loose.BranchName != "main" || loose.LastSeq != -1 || loose.BranchDisposition != "active" {
		t.Fatalf("loose session = %+v", loose)
	}
	untitled := newSession(t, ctx, s, sp)
	if untitled.Title == "" {
		t.Fatal("default title is empty")
	}
	send(t, ctx, s, loose, "hello")
	attached := Get(s.AttachSession(ctx, loose.ID, sp.ID)).Must(t)
	if attached.SpaceID == nil || *attached.SpaceID != sp.ID {
		t.Fatalf("attach did not set space: %+v", attached)
	}
	turns := Get(s.Turns(ctx, loose.ID, contract.TurnQuery{})).Must(t)
	for _, tr := range turns {
		if tr.SpaceID == nil || *tr.SpaceID != sp.ID {
			t.Fatalf("turn %d not attached", tr.Seq)
		}
	}
	titled := Get(s.SetSessionTitle(ctx, loose.ID, "Trip planning")).Must(t)
	if titled.Title != "Trip planning" {
		t.Fatalf("title = %q", titled.Title)
	}
	inSpace, _ := must2(t)(s.Sessions(ctx, &sp.ID, smriti.Page{}))
	if len(inSpace) != 2 {
		t.Fatalf("space sessions = %d", len(inSpace))
	}
	unknown := smriti.NewID()
	_, _, err := s.Sessions(ctx, &unknown, smriti.Page{})
	wantCode(t, err, smriti.ENOTFOUND)
	_, err = s.AttachSession(ctx, loose.ID, smriti.NewID())
	wantCode(t, err, smriti.ENOTFOUND)
	_, err = s.CreateSession(ctx, smriti.SessionCreate{SpaceID: &unknown})
	wantCode(t, err, smriti.ENOTFOUND)
	if err := s.DeleteSession(ctx, loose.ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.Turns(ctx, loose.ID, contract.TurnQuery{})
	wantCode(t, err, smriti.ENOTFOUND)
	wantCode(t, s.DeleteSession(ctx, loose.ID), smriti.ENOTFOUND)
}

func must2(t *testing.T) func([]*smriti.Session, string, error) ([]*smriti.Session, string) {
	return func(v []*smriti.Session, next string, err error) ([]*smriti.Session, string) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v, next
	}
}

func testSessionSeeding(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	first := newSession(t, ctx, s, sp)
	if first.SeededCheckpointID != nil {
		t.Fatal("seeded before any checkpoint")
	}
	cp1 := commit(t, ctx, s, sp, first, "one")
	cp2 := commit(t, ctx, s, sp, first, "two")
	head := newSession(t, ctx, s, sp)
	if head.SeededCheckpointID == nil || *head.SeededCheckpointID != cp2.ID {
		t.Fatalf("seed head = %v, want %s", head.SeededCheckpointID, cp2.ID)
	}
	none := Get(s.CreateSession(ctx, smriti.SessionCreate{SpaceID: &sp.ID, SeedFrom: "none"})).Must(t)
	if none.SeededCheckpointID != nil {
		t.Fatal("seed none set a checkpoint")
	}
	byID := Get(s.CreateSession(ctx, smriti.SessionCreate{SpaceID: &sp.ID, SeedFrom: cp1.ID.String()})).Must(t)
	if byID.SeededCheckpointID == nil || *byID.SeededCheckpointID != cp1.ID {
		t.Fatal("seed by id ignored")
	}
	_, err := s.CreateSession(ctx, smriti.SessionCreate{SpaceID: &sp.ID, SeedFrom: "not-a-uuid"})
	wantCode(t, err, smriti.EINVALID)
	_, err = s.CreateSession(ctx, smriti.SessionCreate{SpaceID: &sp.ID, SeedFrom: smriti.NewID().String()})
	wantCode(t, err, smriti.ENOTFOUND)
}

func testAppendExchange(t *testing.T, s *store.Store) {
	ctx := userCtx()
	se := Get(s.CreateSession(ctx, smriti.SessionCreate{})).Must(t)
	var lastLog int64
	for i := 0; i < 3; i++ {
		ex := send(t, ctx, s, se, fmt.Sprintf("m%d", i))
		if ex.User.Seq != int64(2*i) || ex.Assistant.Seq != int64(2*i+1) || ex.Replayed {
			t.Fatalf("exchange %d seqs = %d,%d", i, ex.User.Seq, ex.Assistant.Seq)
		}
		if ex.User.LogPos <= lastLog || ex.Assistant.LogPos != ex.User.LogPos+1 {
			t.Fatalf("log positions not increasing: %d %d after %d", ex.User.LogPos, ex.Assistant.LogPos, lastLog)
		}
		lastLog = ex.Assistant.LogPos
	}
	got := Get(s.Session(ctx, se.ID)).Must(t)
	if got.LastSeq != 5 || got.ActiveProvider != "mock" {
		t.Fatalf("session after sends = %+v", got)
	}
	_, err := s.AppendExchange(ctx, contract.Exchange{SessionID: smriti.NewID()})
	wantCode(t, err, smriti.ENOTFOUND)
}

func testIdempotency(t *testing.T, s *store.Store) {
	ctx := userCtx()
	se := Get(s.CreateSession(ctx, smriti.SessionCreate{})).Must(t)
	ex := contract.Exchange{SessionID: se.ID, IdempotencyKey: "k1",
		User: contract.TurnWrite{Content: "q"}, Assistant: contract.TurnWrite{Content: "a"}}
	first := Get(s.AppendExchange(ctx, ex)).Must(t)
	ex.Assistant.Content = "a different answer"
	again := Get(s.AppendExchange(ctx, ex)).Must(t)
	if !again.Replayed || again.Assistant.ID != first.Assistant.ID || again.Assistant.Content != "a" {
		t.Fatalf("replay = %+v", again)
	}
	replay := Get(s.ReplayExchange(ctx, se.ID, "k1")).Must(t)
	if replay == nil || replay.User.ID != first.User.ID {
		t.Fatal("ReplayExchange did not find the key")
	}
	if none := Get(s.ReplayExchange(ctx, se.ID, "other")).Must(t); none != nil {
		t.Fatal("unknown key replayed")
	}
	turns := Get(s.Turns(ctx, se.ID, contract.TurnQuery{})).Must(t)
	if len(turns) != 2 {
		t.Fatalf("turns = %d, want 2", len(turns))
	}
}

func testConcurrentSends(t *testing.T, s *store.Store) {
	ctx := userCtx()
	se := Get(s.CreateSession(ctx, smriti.SessionCreate{})).Must(t)
	const n = 64
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, err := s.AppendExchange(ctx, contract.Exchange{SessionID: se.ID,
				User: contract.TurnWrite{Content: fmt.Sprintf("q%d", i)}, Assistant: contract.TurnWrite{Content: fmt.Sprintf("a%d", i)}})
			errs <- err
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	checkPairs(t, Get(s.Turns(ctx, se.ID, contract.TurnQuery{})).Must(t), n)
}

// checkPairs asserts turns are numbered 0..2n-1 without gaps and each reply
// directly follows its own question.
func checkPairs(t *testing.T, turns []*smriti.Turn, n int) {
	t.Helper()
	if len(turns) != 2*n {
		t.Fatalf("turns = %d, want %d", len(turns), 2*n)
	}
	for i, tr := range turns {
		if tr.Seq != int64(i) {
			t.Fatalf("turn %d has seq %d", i, tr.Seq)
		}
		if i%2 == 1 {
			q := turns[i-1]
			if q.Role != "user" || tr.Role != "assistant" || "a"+q.Content[1:] != tr.Content {
				t.Fatalf("reply %q (seq %d) does not follow its question %q", tr.Content, tr.Seq, q.Content)
			}
		}
	}
}

func testTurnQueries(t *testing.T, s *store.Store) {
	ctx := userCtx()
	se := Get(s.CreateSession(ctx, smriti.SessionCreate{})).Must(t)
	var ex []*contract.ExchangeResult
	for i := 0; i < 5; i++ {
		ex = append(ex, send(t, ctx, s, se, fmt.Sprintf("m%d", i)))
	}
	seq := func(ts []*smriti.Turn) []int64 {
		out := []int64{}
		for _, t := range ts {
			out = append(out, t.Seq)
		}
		return out
	}
	three, pos := int64(3), ex[2].User.LogPos
	cases := []struct {
		name string
		q    contract.TurnQuery
		want string
	}{
		{"All", contract.TurnQuery{}, "[0 1 2 3 4 5 6 7 8 9]"},
		{"AfterSeq", contract.TurnQuery{AfterSeq: &three}, "[4 5 6 7 8 9]"},
		{"BeforeSeq", contract.TurnQuery{BeforeSeq: &three}, "[0 1 2]"},
		{"AfterLogPos", contract.TurnQuery{AfterLogPos: &pos}, "[5 6 7 8 9]"},
		{"NewestLimit", contract.TurnQuery{Newest: true, Limit: 3}, "[9 8 7]"},
	}
	for _, c := range cases {
		got := fmt.Sprint(seq(Get(s.Turns(ctx, se.ID, c.q)).Must(t)))
		if got != c.want {
			t.Errorf("%s: got %s, want %s", c.name, got, c.want)
		}
	}
}

func testCommitParentRules(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	se := newSession(t, ctx, s, sp)
	a := commit(t, ctx, s, sp, se, "A")
	if a.ParentID != nil || a.BranchName != "main" || len(a.Hash) != 64 {
		t.Fatalf("first checkpoint = %+v", a)
	}
	// A checkpoint written without an author is the user's: the session's
	// chat provider did not write it.
	if a.Metadata["session_id"] != se.ID.String() || a.AuthorAgent != nil || a.AuthorType != smriti.AuthorUser {
		t.Fatalf("metadata/author = %v %v", a.Metadata, a.AuthorAgent)
	}
	b := commit(t, ctx, s, sp, se, "B")
	if b.ParentID == nil || *b.ParentID != a.ID {
		t.Fatal("second main checkpoint does not parent to the first")
	}
	fork := Get(s.ForkSession(ctx, smriti.ForkCreate{SpaceID: sp.ID, CheckpointID: a.ID, BranchName: "alt"})).Must(t)
	f1 := commit(t, ctx, s, sp, fork, "F1")
	if f1.ParentID == nil || *f1.ParentID != a.ID || f1.BranchName != "alt" {
		t.Fatalf("fork's first checkpoint parent = %v branch %s, want %s on alt", f1.ParentID, f1.BranchName, a.ID)
	}
	f2 := commit(t, ctx, s, sp, fork, "F2")
	if f2.ParentID == nil || *f2.ParentID != f1.ID {
		t.Fatal("fork checkpoints do not chain")
	}
	c := commit(t, ctx, s, sp, se, "C")
	if c.ParentID == nil || *c.ParentID != b.ID {
		t.Fatal("main checkpoint after fork parents to the fork")
	}
	main := "main"
	list, _, err := s.Checkpoints(ctx, sp.ID, contract.CheckpointQuery{Branch: &main})
	if err != nil {
		t.Fatal(err)
	}
	for _, cp := range list {
		if cp.BranchName != "main" {
			t.Fatalf("fork checkpoint %s listed on main", cp.Message)
		}
	}
	if len(list) != 3 || list[0].ID != c.ID {
		t.Fatalf("main list = %d, newest %s", len(list), list[0].Message)
	}
	other := newSpace(t, ctx, s)
	_, err = s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: other.ID, SessionID: se.ID, Content: smriti.Content{Message: "x"}})
	wantCode(t, err, smriti.ENOTFOUND)
	_, err = s.CreateCheckpoint(ctx, smriti.CheckpointCreate{SpaceID: other.ID, ParentID: &a.ID, Content: smriti.Content{Message: "x"}})
	wantCode(t, err, smriti.EINVALID)
	legacy := Get(s.CreateCheckpoint(ctx, smriti.CheckpointCreate{SpaceID: sp.ID, ParentID: &a.ID, BranchName: "legacy", Content: smriti.Content{Message: "L"}})).Must(t)
	if *legacy.ParentID != a.ID || legacy.BranchName != "legacy" || legacy.AuthorType != smriti.AuthorUser {
		t.Fatalf("legacy create = %+v", legacy)
	}
}

func testConcurrentCommits(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	se := newSession(t, ctx, s, sp)
	const n = 32
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			// ETRYAGAIN is the store asking the caller to retry (a lock
			// wait that passed the statement timeout on a slow machine):
			// retry as a client would, on the error as the API classifies
			// it; the chain must still be one.
			var err error
			for try := 0; try < 5; try++ {
				_, err = s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: se.ID, Content: smriti.Content{Message: fmt.Sprint(i)}})
				if smriti.ErrorCode(s.Classify(err)) != smriti.ETRYAGAIN {
					break
				}
			}
			errs <- err
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	list, _, err := s.Checkpoints(ctx, sp.ID, contract.CheckpointQuery{})
	if err != nil || len(list) != n {
		t.Fatalf("checkpoints = %d, err %v", len(list), err)
	}
	// Newest first: each checkpoint's parent is the one committed just before it.
	parents := map[smriti.ID]bool{}
	for i, cp := range list {
		if i == len(list)-1 {
			if cp.ParentID != nil {
				t.Fatal("oldest checkpoint has a parent")
			}
			continue
		}
		if cp.ParentID == nil || *cp.ParentID != list[i+1].ID {
			t.Fatalf("checkpoint %d does not parent to the one before it", i)
		}
		if parents[*cp.ParentID] {
			t.Fatal("two checkpoints share a parent")
		}
		parents[*cp.ParentID] = true
	}
	v := Get(s.VerifyCheckpoint(ctx, list[0].ID)).Must(t)
	if !v.OK || v.Checked != n {
		t.Fatalf("verify = %+v", v)
	}
}

func testCheckpointPaging(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	se := newSession(t, ctx, s, sp)
	for i := 0; i < 7; i++ {
		commit(t, ctx, s, sp, se, fmt.Sprint(i))
	}
	var all []string
	after := ""
	for pages := 0; ; pages++ {
		list, next, err := s.Checkpoints(ctx, sp.ID, contract.CheckpointQuery{Page: smriti.Page{Limit: 3, After: after}})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range list {
			all = append(all, c.Message)
		}
		if next == "" {
			break
		}
		after = next
	}
	if fmt.Sprint(all) != "[6 5 4 3 2 1 0]" {
		t.Fatalf("paged = %v", all)
	}
	latest := Get(s.LatestCheckpoints(ctx, sp.ID, "main", 2)).Must(t)
	if len(latest) != 2 || latest[0].Message != "6" {
		t.Fatalf("latest = %v", latest)
	}
	_, _, err := s.Checkpoints(ctx, smriti.NewID(), contract.CheckpointQuery{})
	wantCode(t, err, smriti.ENOTFOUND)
}

func testAncestors(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	se := newSession(t, ctx, s, sp)
	var cps []*smriti.Checkpoint
	for i := 0; i < 5; i++ {
		cps = append(cps, commit(t, ctx, s, sp, se, fmt.Sprint(i)))
	}
	chain := Get(s.Ancestors(ctx, cps[4].ID, 3)).Must(t)
	if len(chain) != 3 || chain[0].Message != "2" || chain[2].Message != "4" {
		t.Fatalf("ancestors = %v", names(chain))
	}
	one := Get(s.Ancestors(ctx, cps[0].ID, 3)).Must(t)
	if len(one) != 1 {
		t.Fatalf("root ancestors = %d", len(one))
	}
	_, err := s.Ancestors(ctx, smriti.NewID(), 3)
	wantCode(t, err, smriti.ENOTFOUND)
}

// The heads a send reads are the checkpoints' identity, exactly as the
// full reads give it, in the same order; content is left out.
func testCheckpointHeads(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	se := newSession(t, ctx, s, sp)
	var cps []*smriti.Checkpoint
	for i := 0; i < 4; i++ {
		cps = append(cps, commit(t, ctx, s, sp, se, fmt.Sprint(i)))
	}
	fork := Get(s.ForkSession(ctx, smriti.ForkCreate{SpaceID: sp.ID, CheckpointID: cps[1].ID, BranchName: "side"})).Must(t)
	commit(t, ctx, s, sp, fork, "side 1")
	same := func(what string, heads, full []*smriti.Checkpoint) {
		t.Helper()
		if len(heads) != len(full) {
			t.Fatalf("%s: %d heads, %d checkpoints", what, len(heads), len(full))
		}
		for i, h := range heads {
			f := full[i]
			if h.ID != f.ID || h.SpaceID != f.SpaceID || h.Hash != f.Hash || !sameID(h.ParentID, f.ParentID) ||
				!sameID(h.MergeParentID, f.MergeParentID) || h.BranchName != f.BranchName || h.Message != f.Message ||
				h.LogPos != f.LogPos || !h.CreatedAt.Equal(f.CreatedAt) || h.HashVersion != f.HashVersion {
				t.Fatalf("%s: head %d = %+v, want the identity of %+v", what, i, h, f)
			}
			if len(h.Decisions) != 0 || h.Summary != "" {
				t.Fatalf("%s: head %d carries content", what, i)
			}
		}
	}
	same("main", Get(s.CheckpointHeads(ctx, sp.ID, smriti.MainBranch, 3)).Must(t), Get(s.LatestCheckpoints(ctx, sp.ID, smriti.MainBranch, 3)).Must(t))
	same("side", Get(s.CheckpointHeads(ctx, sp.ID, "side", 3)).Must(t), Get(s.LatestCheckpoints(ctx, sp.ID, "side", 3)).Must(t))
	same("chain", Get(s.AncestorHeads(ctx, cps[3].ID, 3)).Must(t), Get(s.Ancestors(ctx, cps[3].ID, 3)).Must(t))
	if none := Get(s.CheckpointHeads(ctx, sp.ID, "nothing-here", 1)).Must(t); len(none) != 0 {
		t.Fatalf("heads of an empty branch = %v", names(none))
	}
	_, err := s.AncestorHeads(ctx, smriti.NewID(), 1)
	wantCode(t, err, smriti.ENOTFOUND)
	stranger := smriti.WithUser(context.Background(), smriti.NewID())
	if hidden := Get(s.CheckpointHeads(stranger, sp.ID, smriti.MainBranch, 1)).Must(t); len(hidden) != 0 {
		t.Fatalf("another user read heads %v", names(hidden))
	}
	_, err = s.AncestorHeads(stranger, cps[3].ID, 1)
	wantCode(t, err, smriti.ENOTFOUND)
}

func sameID(a, b *smriti.ID) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

func names(cs []*smriti.Checkpoint) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.Message)
	}
	return out
}

func testDeleteCascade(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	se := newSession(t, ctx, s, sp)
	a := commit(t, ctx, s, sp, se, "A")
	b := commit(t, ctx, s, sp, se, "B")
	fork := Get(s.ForkSession(ctx, smriti.ForkCreate{SpaceID: sp.ID, CheckpointID: a.ID})).Must(t)
	f1 := commit(t, ctx, s, sp, fork, "F1")
	err := s.DeleteCheckpoint(ctx, a.ID, false)
	wantCode(t, err, smriti.ECONFLICT)
	data, _ := smriti.ErrorData(err).(map[string]any)
	deps, _ := data["dependents"].(*store.Dependents)
	if deps == nil || deps.BlockingCount != 3 || len(deps.ChildCommits) != 2 || len(deps.ForkedSessions) != 1 {
		t.Fatalf("dependents = %+v", data)
	}
	// A leaf goes without cascade.
	if err := s.DeleteCheckpoint(ctx, f1.ID, false); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteCheckpoint(ctx, a.ID, true); err != nil {
		t.Fatal(err)
	}
	for _, id := range []smriti.ID{a.ID, b.ID} {
		_, err := s.Checkpoint(ctx, id)
		wantCode(t, err, smriti.ENOTFOUND)
	}
	_, err = s.Session(ctx, fork.ID)
	wantCode(t, err, smriti.ENOTFOUND)
	if _, err := s.Session(ctx, se.ID); err != nil {
		t.Fatal("the writing session was deleted with its checkpoints")
	}
	wantCode(t, s.DeleteCheckpoint(ctx, a.ID, true), smriti.ENOTFOUND)
}

func testVerify(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	se := newSession(t, ctx, s, sp)
	var cps []*smriti.Checkpoint
	for i := 0; i < 4; i++ {
		cps = append(cps, commit(t, ctx, s, sp, se, fmt.Sprint(i), "decision "+fmt.Sprint(i)))
	}
	v := Get(s.VerifyCheckpoint(ctx, cps[3].ID)).Must(t)
	if !v.OK || v.Checked != 4 || v.FirstMismatch != nil {
		t.Fatalf("untouched chain: %+v", v)
	}
	if _, err := s.DB().Exec(s.Rebind(`UPDATE checkpoints SET summary = 'rewritten history' WHERE id = ?`), cps[1].ID); err != nil {
		t.Fatal(err)
	}
	v = Get(s.VerifyCheckpoint(ctx, cps[3].ID)).Must(t)
	if v.OK || v.FirstMismatch == nil || *v.FirstMismatch != cps[1].ID {
		t.Fatalf("tampered chain: %+v, want mismatch at %s", v, cps[1].ID)
	}
	_, err := s.VerifyCheckpoint(ctx, smriti.NewID())
	wantCode(t, err, smriti.ENOTFOUND)
}

func testNotes(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	se := newSession(t, ctx, s, sp)
	cp := commit(t, ctx, s, sp, se, "A")
	n := Get(s.AddNote(ctx, cp.ID, smriti.NoteCreate{Author: "founder", Text: "shipped", Kind: "milestone"})).Must(t)
	if n.Kind != "milestone" || n.CheckpointID != cp.ID {
		t.Fatalf("note = %+v", n)
	}
	got := Get(s.Checkpoint(ctx, cp.ID)).Must(t)
	if len(got.Notes) != 1 || got.Notes[0].Text != "shipped" {
		t.Fatalf("notes = %+v", got.Notes)
	}
	if got.Hash != cp.Hash {
		t.Fatal("a note changed the checkpoint hash")
	}
	if v := Get(s.VerifyCheckpoint(ctx, cp.ID)).Must(t); !v.OK {
		t.Fatal("a note broke verification")
	}
	_, err := s.AddNote(ctx, smriti.NewID(), smriti.NoteCreate{Text: "x", Kind: "note"})
	wantCode(t, err, smriti.ENOTFOUND)
}

func testForkNames(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	se := newSession(t, ctx, s, sp)
	a := commit(t, ctx, s, sp, se, "A")
	f1 := Get(s.ForkSession(ctx, smriti.ForkCreate{SpaceID: sp.ID, CheckpointID: a.ID})).Must(t)
	f2 := Get(s.ForkSession(ctx, smriti.ForkCreate{SpaceID: sp.ID, CheckpointID: a.ID})).Must(t)
	want := "fork-" + textutil.ShortHash(a.Hash)
	if f1.BranchName != want || f2.BranchName != want+"-2" {
		t.Fatalf("default names = %s, %s", f1.BranchName, f2.BranchName)
	}
	if f1.ForkedFromCheckpointID == nil || *f1.ForkedFromCheckpointID != a.ID || f1.LastSeq != -1 {
		t.Fatalf("fork = %+v", f1)
	}
	_, err := s.ForkSession(ctx, smriti.ForkCreate{SpaceID: sp.ID, CheckpointID: a.ID, BranchName: "main"})
	wantCode(t, err, smriti.ECONFLICT)
	_, err = s.ForkSession(ctx, smriti.ForkCreate{SpaceID: sp.ID, CheckpointID: a.ID, BranchName: want})
	wantCode(t, err, smriti.ECONFLICT)
	other := newSpace(t, ctx, s)
	_, err = s.ForkSession(ctx, smriti.ForkCreate{SpaceID: other.ID, CheckpointID: a.ID})
	wantCode(t, err, smriti.EINVALID)
	_, err = s.ForkSession(ctx, smriti.ForkCreate{SpaceID: sp.ID, CheckpointID: smriti.NewID()})
	wantCode(t, err, smriti.ENOTFOUND)
}

func testConcurrentForks(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	se := newSession(t, ctx, s, sp)
	a := commit(t, ctx, s, sp, se, "A")
	results := make([]*smriti.Session, 2)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			f, err := s.ForkSession(ctx, smriti.ForkCreate{SpaceID: sp.ID, CheckpointID: a.ID})
			if err != nil {
				t.Error(err)
				return
			}
			results[i] = f
		}(i)
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if results[0].BranchName == results[1].BranchName {
		t.Fatalf("both forks got branch %q", results[0].BranchName)
	}
}

func testDisposition(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	se := newSession(t, ctx, s, sp)
	a := commit(t, ctx, s, sp, se, "A")
	Get(s.ForkSession(ctx, smriti.ForkCreate{SpaceID: sp.ID, CheckpointID: a.ID, BranchName: "exp"})).Must(t)
	n := Get(s.SetBranchDisposition(ctx, sp.ID, "exp", "abandoned")).Must(t)
	if n != 1 {
		t.Fatalf("updated %d sessions", n)
	}
	_, err := s.SetBranchDisposition(ctx, sp.ID, "nope", "abandoned")
	wantCode(t, err, smriti.ENOTFOUND)
	_, err = s.SetBranchDisposition(ctx, smriti.NewID(), "exp", "abandoned")
	wantCode(t, err, smriti.ENOTFOUND)
}

func testDeleteSpace(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	se := newSession(t, ctx, s, sp)
	send(t, ctx, s, se, "hi")
	cp := commit(t, ctx, s, sp, se, "A")
	Get(s.AddNote(ctx, cp.ID, smriti.NoteCreate{Author: "a", Text: "n", Kind: "note"})).Must(t)
	Get(s.ForkSession(ctx, smriti.ForkCreate{SpaceID: sp.ID, CheckpointID: cp.ID})).Must(t)
	if err := s.DeleteSpace(ctx, sp.ID); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"checkpoints", "sessions", "turns", "checkpoint_notes"} {
		var n int
		q := `SELECT COUNT(*) FROM ` + table + ` WHERE ` + map[string]string{
			"checkpoints": "space_id = ?", "sessions": "space_id = ?", "turns": "space_id = ?",
			"checkpoint_notes": "checkpoint_id = ?"}[table]
		arg := any(sp.ID)
		if table == "checkpoint_notes" {
			arg = cp.ID
		}
		if err := s.DB().QueryRowContext(context.Background(), s.Rebind(q), arg).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Fatalf("%d rows left in %s", n, table)
		}
	}
}

func testParentMustBeHead(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	se := newSession(t, ctx, s, sp)
	a := commit(t, ctx, s, sp, se, "A")
	ok := Get(s.CreateCheckpoint(ctx, smriti.CheckpointCreate{SpaceID: sp.ID, ParentID: &a.ID, BranchName: "main",
		ParentMustBeHead: true, Content: smriti.Content{Message: "on the head"}})).Must(t)
	// a is no longer main's head: a write that expects it to be is refused
	// and leaves nothing behind.
	_, err := s.CreateCheckpoint(ctx, smriti.CheckpointCreate{SpaceID: sp.ID, ParentID: &a.ID, BranchName: "main",
		ParentMustBeHead: true, Content: smriti.Content{Message: "stale"}})
	wantCode(t, err, smriti.ECONFLICT)
	latest := Get(s.LatestCheckpoints(ctx, sp.ID, "main", 5)).Must(t)
	if len(latest) != 2 || latest[0].ID != ok.ID {
		t.Fatalf("main after the refused write = %v", names(latest))
	}
}
