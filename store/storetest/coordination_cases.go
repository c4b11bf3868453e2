package storetest

import (
	"fmt"
	"testing"
	"time"

	"smriti"
	"smriti/coord"
	"smriti/store"
)

// clock is a controllable store clock.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }
func ttl(d time.Duration) *time.Duration { return &d }
func claimIn(sp *smriti.Space) coord.ClaimCreate {
	return coord.ClaimCreate{SpaceID: sp.ID, Agent: "codex", Scope: "Write the indexer"}
}

func testClaimsLifecycle(t *testing.T, s *store.Store) {
	clk := &clock{t: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	s.Now = clk.now
	ctx := userCtx()
	sp := newSpace(t, ctx, s)

	c, coll, err := s.CreateClaim(ctx, claimIn(sp))
	if err != nil {
		t.Fatal(err)
	}
	if c.Status != coord.ClaimActive || c.Intent != smriti.IntentImplement || c.BranchName != smriti.MainBranch ||
		!c.ClaimedAt.Equal(clk.t) || !c.ExpiresAt.Equal(clk.t.Add(coord.DefaultClaimTTL)) || len(coll) != 0 || coll == nil {
		t.Fatalf("claim = %+v, collisions %v", c, coll)
	}

	// Expiry is computed from the store's clock.
	clk.advance(time.Second)
	short, _, err := s.CreateClaim(ctx, coord.ClaimCreate{SpaceID: sp.ID, Agent: "a", Scope: "short", TTL: ttl(2 * time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	live := get2(s.Claims(ctx, sp.ID, coord.ClaimQuery{})).Must(t)
	if len(live) != 2 || live[0].ID != short.ID {
		t.Fatalf("live claims = %d, want 2 newest first", len(live))
	}
	clk.advance(2 * time.Minute)
	live = get2(s.Claims(ctx, sp.ID, coord.ClaimQuery{})).Must(t)
	if len(live) != 1 || live[0].ID != c.ID {
		t.Fatalf("after expiry live = %+v, want only the 4h claim", live)
	}
	all := get2(s.Claims(ctx, sp.ID, coord.ClaimQuery{IncludeExpired: true})).Must(t)
	if len(all) != 2 {
		t.Fatalf("include_expired = %d claims, want 2", len(all))
	}
	_, err = s.FinishClaim(ctx, short.ID, coord.ClaimDone)
	wantCode(t, err, smriti.ECONFLICT)

	_, err = s.FinishClaim(ctx, c.ID, "claimed")
	wantCode(t, err, smriti.EINVALID)
	done := Get(s.FinishClaim(ctx, c.ID, coord.ClaimDone)).Must(t)
	if done.Status != coord.ClaimDone {
		t.Fatalf("status = %q", done.Status)
	}
	_, err = s.FinishClaim(ctx, c.ID, coord.ClaimAbandoned)
	wantCode(t, err, smriti.ECONFLICT)
	_, err = s.FinishClaim(ctx, smriti.NewID(), coord.ClaimDone)
	wantCode(t, err, smriti.ENOTFOUND)
	// Another user sees neither the claims nor the space.
	_, err = s.FinishClaim(userCtx(), short.ID, coord.ClaimDone)
	wantCode(t, err, smriti.ENOTFOUND)
	_, _, err = s.Claims(userCtx(), sp.ID, coord.ClaimQuery{})
	wantCode(t, err, smriti.ENOTFOUND)
}

func get2[T any](v T, _ string, err error) Result[T] { return Result[T]{v, err} }

func testClaimsValidation(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	other := newSpace(t, ctx, s)
	otherSession := newSession(t, ctx, s, other)
	otherCp := commit(t, ctx, s, other, otherSession, "elsewhere")
	se := newSession(t, ctx, s, sp)
	cp := commit(t, ctx, s, sp, se, "here")

	for _, d := range []time.Duration{59 * time.Second, 0, -time.Hour, coord.MaxClaimTTL + time.Second} {
		in := claimIn(sp)
		in.TTL = ttl(d)
		_, _, err := s.CreateClaim(ctx, in)
		wantCode(t, err, smriti.EUNPROCESSABLE)
	}
	for _, d := range []time.Duration{coord.MinClaimTTL, coord.MaxClaimTTL} {
		in := claimIn(sp)
		in.TTL = ttl(d)
		if _, _, err := s.CreateClaim(ctx, in); err != nil {
			t.Fatalf("ttl %v: %v", d, err)
		}
	}
	bad := []struct {
		edit func(*coord.ClaimCreate)
		code string
	}{
		{func(in *coord.ClaimCreate) { in.Intent = "refactor" }, smriti.EINVALID},
		{func(in *coord.ClaimCreate) { in.Scope = "   " }, smriti.EUNPROCESSABLE},
	}
	for i, b := range bad {
		in := claimIn(sp)
		b.edit(&in)
		_, _, err := s.CreateClaim(ctx, in)
		if smriti.ErrorCode(err) != b.code {
			t.Fatalf("bad input %d: err %v, want %s", i, err, b.code)
		}
	}
	wrong := []func(*coord.ClaimCreate){
		func(in *coord.ClaimCreate) { in.BaseCheckpointID = &otherCp.ID },
		func(in *coord.ClaimCreate) { id := smriti.NewID(); in.BaseCheckpointID = &id },
		func(in *coord.ClaimCreate) { in.SessionID = &otherSession.ID },
		func(in *coord.ClaimCreate) { id := smriti.NewID(); in.SessionID = &id },
	}
	for i, f := range wrong {
		in := claimIn(sp)
		f(&in)
		_, _, err := s.CreateClaim(ctx, in)
		if smriti.ErrorCode(err) != smriti.EINVALID {
			t.Fatalf("wrong-space reference %d: err %v, want invalid", i, err)
		}
	}
	// An unknown worktree is missing, not wrong (the first implementation's 404).
	in := claimIn(sp)
	id := smriti.NewID()
	in.WorktreeID = &id
	_, _, err := s.CreateClaim(ctx, in)
	if smriti.ErrorCode(err) != smriti.ENOTFOUND || smriti.ErrorMessage(err) != "Worktree not found" {
		t.Fatalf("unknown worktree: err %v, want not found", err)
	}
	in = claimIn(sp)
	in.BaseCheckpointID, in.SessionID = &cp.ID, &se.ID
	c := get3(s.CreateClaim(ctx, in)).Must(t)
	if *c.BaseCheckpointID != cp.ID || *c.SessionID != se.ID {
		t.Fatalf("claim refs = %+v", c)
	}
	in = claimIn(sp)
	in.SpaceID = smriti.NewID()
	_, _, err = s.CreateClaim(ctx, in)
	wantCode(t, err, smriti.ENOTFOUND)
}

func get3[T, U any](v T, _ U, err error) Result[T] { return Result[T]{v, err} }

func testClaimCollisions(t *testing.T, s *store.Store) {
	clk := &clock{t: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	s.Now = clk.now
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	other := newSpace(t, ctx, s)
	first := get3(s.CreateClaim(ctx, coord.ClaimCreate{SpaceID: sp.ID, Agent: "codex", Scope: "Write the indexer", TaskID: "t2"})).Must(t)
	clk.advance(time.Second)
	expiring := get3(s.CreateClaim(ctx, coord.ClaimCreate{SpaceID: sp.ID, Agent: "x", Scope: "Benchmark", TTL: ttl(time.Minute)})).Must(t)
	clk.advance(time.Second)
	get3(s.CreateClaim(ctx, coord.ClaimCreate{SpaceID: other.ID, Agent: "x", Scope: "write the indexer!", TaskID: "t2"})).Must(t)

	// Same task id, different wording: the task is held, the second
	// claimer is refused with the holder and its expiry.
	_, _, err := s.CreateClaim(ctx, coord.ClaimCreate{SpaceID: sp.ID, Agent: "claude", Scope: "Indexing job", TaskID: "t2"})
	want := "Task 't2' is already claimed by codex (claim " + first.ID.String()[:8] + ") until 2026-03-01T13:00:00Z"
	if smriti.ErrorCode(err) != smriti.ECONFLICT || smriti.ErrorMessage(err) != want {
		t.Fatalf("task-id claim twice: %v, want %q", err, want)
	}
	// Same scope up to case and punctuation, no task id.
	clk.advance(time.Second)
	_, coll, err := s.CreateClaim(ctx, coord.ClaimCreate{SpaceID: sp.ID, Agent: "cursor", Scope: "write the INDEXER."})
	if err != nil || len(coll) != 1 || coll[0].ID != first.ID {
		t.Fatalf("scope collision: %+v, err %v", coll, err)
	}
	// An expired claim no longer collides.
	clk.advance(2 * time.Minute)
	_, coll, err = s.CreateClaim(ctx, coord.ClaimCreate{SpaceID: sp.ID, Agent: "y", Scope: "benchmark"})
	if err != nil || len(coll) != 0 {
		t.Fatalf("expired claim %s collided: %+v", expiring.ID, coll)
	}
	live := get2(s.Claims(ctx, sp.ID, coord.ClaimQuery{})).Must(t)
	if len(live) != 3 {
		t.Fatalf("live claims = %d, want 3 (scope collisions are stored)", len(live))
	}
	page, next, err := s.Claims(ctx, sp.ID, coord.ClaimQuery{IncludeExpired: true, Page: smriti.Page{Limit: 3}})
	if err != nil || len(page) != 3 || next == "" {
		t.Fatalf("page = %d, next %q, err %v", len(page), next, err)
	}
	rest, next2, err := s.Claims(ctx, sp.ID, coord.ClaimQuery{IncludeExpired: true, Page: smriti.Page{Limit: 3, After: next}})
	if err != nil || len(rest) != 1 || next2 != "" {
		t.Fatalf("rest = %d, next %q, err %v", len(rest), next2, err)
	}
}

func testSpaceState(t *testing.T, s *store.Store) {
	clk := &clock{t: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	s.Now = func() time.Time { clk.advance(time.Millisecond); return clk.t }
	ctx := userCtx()
	sp := newSpace(t, ctx, s)

	empty := Get(s.SpaceState(ctx, sp.ID, coord.StateQuery{})).Must(t)
	if empty.Head != nil || len(empty.Branches) != 0 || empty.Branches == nil || empty.Claims == nil ||
		len(empty.Divergence) != 0 || empty.Freshness != nil || empty.LatestSession != nil {
		t.Fatalf("empty state = %+v", empty)
	}

	se := newSession(t, ctx, s, sp)
	a := commit(t, ctx, s, sp, se, "A", "Local models", "Vector index")
	var forks []*smriti.Session
	for i := 0; i < 3; i++ {
		f := Get(s.ForkSession(ctx, smriti.ForkCreate{SpaceID: sp.ID, CheckpointID: a.ID, BranchName: fmt.Sprintf("b%d", i)})).Must(t)
		forks = append(forks, f)
	}
	commit(t, ctx, s, sp, forks[0], "B0", "Local models", "Vector index") // agrees with main
	commit(t, ctx, s, sp, forks[1], "B1", "Local models", "No index")
	b2 := commit(t, ctx, s, sp, forks[2], "B2", "Hosted models")
	commit(t, ctx, s, sp, forks[2], "B2 head", "Hosted models", "Cloud") // newer head of b2
	idle := Get(s.ForkSession(ctx, smriti.ForkCreate{SpaceID: sp.ID, CheckpointID: a.ID, BranchName: "no-commits"})).Must(t)
	_ = idle
	Get(s.SetBranchDisposition(ctx, sp.ID, "b1", smriti.DispositionAbandoned)).Must(t)
	b := commit(t, ctx, s, sp, se, "B", "Local models", "Vector index", "Audit")
	c := commit(t, ctx, s, sp, se, "C", "Local models", "Vector index", "Audit")

	claim := get3(s.CreateClaim(ctx, coord.ClaimCreate{SpaceID: sp.ID, Agent: "codex", Scope: "x", BaseCheckpointID: &a.ID})).Must(t)
	done := get3(s.CreateClaim(ctx, coord.ClaimCreate{SpaceID: sp.ID, Agent: "codex", Scope: "y"})).Must(t)
	Get(s.FinishClaim(ctx, done.ID, coord.ClaimDone)).Must(t)

	st := Get(s.SpaceState(ctx, sp.ID, coord.StateQuery{Since: &a.ID})).Must(t)
	if st.Head == nil || st.Head.ID != c.ID || st.LatestSession == nil {
		t.Fatalf("head = %+v", st.Head)
	}
	var names []string
	for _, h := range st.Branches {
		names = append(names, h.Branch+":"+h.Message)
	}
	if fmt.Sprint(names) != "[b2:B2 head b0:B0]" {
		t.Fatalf("active branches = %v (abandoned, idle and older heads must not show)", names)
	}
	if len(st.Divergence) != 2 || st.Divergence[0].Branch != "b2" || st.Divergence[1].Branch != "b0" {
		t.Fatalf("divergence = %+v", st.Divergence)
	}
	if fmt.Sprint(st.Divergence[1].MainOnly, st.Divergence[1].BranchOnly) != "[Audit] []" {
		t.Fatalf("b0 divergence = %+v", st.Divergence[1])
	}
	if len(st.Claims) != 1 || st.Claims[0].ID != claim.ID || st.Claims[0].BaseHash != a.Hash {
		t.Fatalf("claims = %+v", st.Claims)
	}
	f := st.Freshness
	if f == nil || !f.Changed || f.NewCount != 2 || f.SinceHash != a.Hash || f.CurrentHeadHash != c.Hash ||
		len(f.New) != 2 || f.New[0].ID != c.ID || f.New[1].ID != b.ID {
		t.Fatalf("freshness = %+v", f)
	}
	st = Get(s.SpaceState(ctx, sp.ID, coord.StateQuery{Since: &c.ID})).Must(t)
	if st.Freshness == nil || st.Freshness.Changed || st.Freshness.NewCount != 0 || st.Freshness.New == nil {
		t.Fatalf("unchanged freshness = %+v", st.Freshness)
	}
	// A branch checkpoint written before B and C: main moved since.
	st = Get(s.SpaceState(ctx, sp.ID, coord.StateQuery{Since: &b2.ID})).Must(t)
	if !st.Freshness.Changed || st.Freshness.NewCount != 2 {
		t.Fatalf("since a branch checkpoint = %+v", st.Freshness)
	}
	unknown := smriti.NewID()
	_, err := s.SpaceState(ctx, sp.ID, coord.StateQuery{Since: &unknown})
	wantCode(t, err, smriti.ENOTFOUND)
	otherSpace := newSpace(t, ctx, s)
	otherSe := newSession(t, ctx, s, otherSpace)
	elsewhere := commit(t, ctx, s, otherSpace, otherSe, "elsewhere")
	_, err = s.SpaceState(ctx, sp.ID, coord.StateQuery{Since: &elsewhere.ID})
	wantCode(t, err, smriti.ENOTFOUND)
	_, err = s.SpaceState(ctx, sp.ID, coord.StateQuery{SessionID: &otherSe.ID})
	wantCode(t, err, smriti.ENOTFOUND)
	_, err = s.SpaceState(userCtx(), sp.ID, coord.StateQuery{})
	wantCode(t, err, smriti.ENOTFOUND)

	// Many live claims: ten shown, the rest counted.
	for i := 0; i < 13; i++ {
		get3(s.CreateClaim(ctx, coord.ClaimCreate{SpaceID: sp.ID, Agent: "bulk", Scope: fmt.Sprintf("scope %d", i)})).Must(t)
	}
	st = Get(s.SpaceState(ctx, sp.ID, coord.StateQuery{})).Must(t)
	if len(st.Claims) != coord.ActiveClaimsCap || st.MoreClaims != 4 || st.Claims[0].Scope != "scope 12" {
		t.Fatalf("claims = %d, more %d", len(st.Claims), st.MoreClaims)
	}
}

func testSpaceMetrics(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	se := newSession(t, ctx, s, sp)
	agent := func(a string) *string { return &a }
	mk := func(author *string, decisions []string, tasks ...smriti.Task) *smriti.Checkpoint {
		return Get(s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: se.ID, AuthorAgent: author,
			Content: smriti.Content{Message: "m", Decisions: decisions, Tasks: tasks}})).Must(t)
	}
	mk(agent("claude"), []string{"a", "b"}, smriti.Task{Text: "t", IntentHint: "implement", ID: "t1", Structured: true})
	c2 := mk(agent("codex"), []string{"a"}, smriti.Task{Text: "plain"})
	// The legacy path keeps a missing author missing.
	c3 := Get(s.CreateCheckpoint(ctx, smriti.CheckpointCreate{SpaceID: sp.ID, ParentID: &c2.ID, BranchName: smriti.MainBranch,
		AuthorType: smriti.AuthorLLM, Content: smriti.Content{Message: "m"}})).Must(t)
	mk(agent("codex"), []string{"x", "y", "z"}, smriti.Task{Text: "u", ID: "t9", Structured: true})
	Get(s.AddNote(ctx, c3.ID, smriti.NoteCreate{Author: "me", Text: "big", Kind: smriti.NoteKindMilestone})).Must(t)
	Get(s.AddNote(ctx, c3.ID, smriti.NoteCreate{Author: "me", Text: "meh", Kind: smriti.NoteKindNoise})).Must(t)
	Get(s.AddNote(ctx, c3.ID, smriti.NoteCreate{Author: "me", Text: "n", Kind: smriti.NoteKindNote})).Must(t)
	for i, status := range []string{coord.ClaimDone, coord.ClaimDone, coord.ClaimAbandoned, ""} {
		in := coord.ClaimCreate{SpaceID: sp.ID, Agent: "a", Scope: fmt.Sprintf("s%d", i)}
		if i == 0 {
			in.TaskID = "t1"
		}
		c := get3(s.CreateClaim(ctx, in)).Must(t)
		if status != "" {
			Get(s.FinishClaim(ctx, c.ID, status)).Must(t)
		}
	}
	f1 := Get(s.ForkSession(ctx, smriti.ForkCreate{SpaceID: sp.ID, CheckpointID: c3.ID, BranchName: "f1"})).Must(t)
	Get(s.ForkSession(ctx, smriti.ForkCreate{SpaceID: sp.ID, CheckpointID: c3.ID, BranchName: "f2"})).Must(t)
	Get(s.SetBranchDisposition(ctx, sp.ID, f1.BranchName, smriti.DispositionIntegrated)).Must(t)

	m := Get(s.SpaceMetrics(ctx, sp.ID)).Must(t)
	got := fmt.Sprintf("%d %d %v %d | %d %d %d %d %v | %d %d %d %d %d %d | %v %v | %d %d %d",
		m.TotalCheckpoints, m.UniqueAgents, m.AgentCheckpoints, m.CrossAgentContinuations,
		m.TotalClaims, m.ClaimsDone, m.ClaimsAbandoned, m.ClaimsWithTaskID, *m.ClaimCompletionRate(),
		m.TotalDecisions, m.TotalTasks, m.StructuredTasks, m.TaskIDCheckpoints, m.MilestoneNotes, m.NoiseNotes,
		m.AvgDecisions(), m.AvgTasks(), m.BranchesActive, m.BranchesIntegrated, m.BranchesAbandoned)
	// claude→codex is a continuation; codex→(none) and (none)→codex are not.
	want := "4 2 map[(none):1 claude:1 codex:2] 1 | 4 2 1 1 0.67 | 6 3 1 2 1 1 | 1.5 0.8 | 1 1 0"
	if got != want {
		t.Fatalf("metrics\n got  %s\n want %s", got, want)
	}
	_, err := s.SpaceMetrics(ctx, smriti.NewID())
	wantCode(t, err, smriti.ENOTFOUND)
}
