package intelligence

import (
	"reflect"
	"smriti"
	"smriti/contract"
	"smriti/internal/estimate"
	"smriti/internal/textutil"
	"strings"
	"testing"
	"time"
)

// world is an in-memory stand-in for the store, enough to run the SPEC's
// context scenarios end to end through the pure functions.
type world struct {
	logPos      int64
	space       smriti.ID
	checkpoints []*smriti.Checkpoint
	turns       map[smriti.ID][]*smriti.Turn
	sessions    map[smriti.ID]*smriti.Session
}

func newWorld() *world {
	return &world{space: smriti.NewID(), turns: map[smriti.ID][]*smriti.Turn{}, sessions: map[smriti.ID]*smriti.Session{}}
}

func (w *world) session(fork *smriti.ID, branch string) *smriti.Session {
	sp := w.space
	s := &smriti.Session{ID: smriti.NewID(), SpaceID: &sp, ForkedFromCheckpointID: fork, BranchName: branch, LastSeq: -1}
	w.sessions[s.ID] = s
	return s
}

func (w *world) say(s *smriti.Session, role, content string, at time.Time) *smriti.Turn {
	w.logPos++
	s.LastSeq++
	t := &smriti.Turn{ID: smriti.NewID(), SessionID: s.ID, Role: role, Content: content, Seq: s.LastSeq, LogPos: w.logPos, CreatedAt: at}
	w.turns[s.ID] = append(w.turns[s.ID], t)
	return t
}

func (w *world) commit(branch string, parent *smriti.Checkpoint, c smriti.Content, at time.Time) *smriti.Checkpoint {
	w.logPos++
	cp := &smriti.Checkpoint{ID: smriti.NewID(), SpaceID: w.space, BranchName: branch, Content: c, LogPos: w.logPos, CreatedAt: at}
	if parent != nil {
		cp.ParentID = &parent.ID
	}
	cp.Hash = cp.ComputeHash("", "")
	w.checkpoints = append(w.checkpoints, cp)
	return cp
}

func (w *world) byID(id smriti.ID) *smriti.Checkpoint {
	for _, c := range w.checkpoints {
		if c.ID == id {
			return c
		}
	}
	return nil
}

// fetch returns the checkpoints a plan asks for, oldest first.
func (w *world) fetch(p ContextPlan) []*smriti.Checkpoint {
	var out []*smriti.Checkpoint
	if p.Mode == ModeForked {
		// HEAD on the fork's branch: its newest checkpoint once it has one.
		for i := len(w.checkpoints) - 1; i >= 0; i-- {
			if c := w.checkpoints[i]; c.BranchName == p.Branch {
				p.Anchor = &c.ID
				break
			}
		}
	}
	switch p.Mode {
	case ModeMounted, ModeForked:
		for c := w.byID(*p.Anchor); c != nil && len(out) < p.Depth; {
			out = append([]*smriti.Checkpoint{c}, out...)
			if c.ParentID == nil {
				break
			}
			c = w.byID(*c.ParentID)
		}
	case ModeHead:
		for i := len(w.checkpoints) - 1; i >= 0 && len(out) < p.Depth; i-- {
			if c := w.checkpoints[i]; c.BranchName == smriti.MainBranch {
				out = append([]*smriti.Checkpoint{c}, out...)
			}
		}
	}
	return out
}

// send runs the whole pure pipeline for one message.
func (w *world) send(t *testing.T, s *smriti.Session, req ContextRequest, message string, budget int) *PromptContext {
	t.Helper()
	plan, err := PlanContext(s, req)
	if err != nil {
		t.Fatalf("PlanContext: %v", err)
	}
	cps := w.fetch(plan)
	q := plan.Resolve(cps)
	turns := selectTurns(w.turns[s.ID], q)
	if plan.Mount != nil {
		s.Mount = plan.Mount // what the send records on the session
	}
	return AssembleContext(plan, cps, SystemPrompt(cps), turns, message, budget)
}

// exchange is a whole send: the context, then both turns written.
func (w *world) exchange(t *testing.T, s *smriti.Session, req ContextRequest, message string) *PromptContext {
	t.Helper()
	pc := w.send(t, s, req, message, 1<<20)
	w.say(s, smriti.RoleUser, message, time.Now())
	w.say(s, smriti.RoleAssistant, "reply to "+message, time.Now())
	return pc
}

func seqsOf(turns []*smriti.Turn) []int64 {
	out := []int64{}
	for _, t := range turns {
		out = append(out, t.Seq)
	}
	return out
}

// The context rules of issue 9, each as a sequence of sends.
func TestContextKeptAcrossSends(t *testing.T) {
	t.Run("TwoStatelessSendsAfterAMountSeeTheFirstOnesTurns", func(t *testing.T) {
		w, s, cp1, _ := australiaThenNewZealand()
		mountedAt := s.LastSeq
		first := w.exchange(t, s, ContextRequest{MountedCheckpointID: &cp1.ID}, "first after mount")
		if first.Mode != ModeMounted || len(first.Turns) != 0 || s.Mount == nil || s.Mount.BaseSeq != mountedAt {
			t.Fatalf("first: mode %s turns %d mount %+v", first.Mode, len(first.Turns), s.Mount)
		}
		// Stateless: the second and third sends name the mount but no base.
		second := w.exchange(t, s, ContextRequest{MountedCheckpointID: &cp1.ID}, "second")
		if want := []int64{mountedAt + 1, mountedAt + 2}; !reflect.DeepEqual(seqsOf(second.Turns), want) {
			t.Fatalf("second saw %v, want %v", seqsOf(second.Turns), want)
		}
		// With no mount fields at all the session's mount still holds.
		third := w.send(t, s, ContextRequest{}, "third", 1<<20)
		if third.Mode != ModeMounted || third.Checkpoints[0].ID != cp1.ID || len(third.Turns) != 4 || third.Turns[0].Seq != mountedAt+1 {
			t.Fatalf("third: mode %s turns %v", third.Mode, seqsOf(third.Turns))
		}
	})
	t.Run("UnmountGoesBackToHead", func(t *testing.T) {
		w, s, cp1, cp2 := australiaThenNewZealand()
		w.exchange(t, s, ContextRequest{MountedCheckpointID: &cp1.ID}, "mounted")
		s.Mount = nil
		pc := w.send(t, s, ContextRequest{}, "after unmount", 1<<20)
		if pc.Mode != ModeHead || pc.Checkpoints[0].ID != cp2.ID {
			t.Fatalf("mode %s checkpoints %v", pc.Mode, pc.Checkpoints)
		}
	})
	t.Run("SeedFromACheckpointSeesItAndEveryTurnNotLaterMain", func(t *testing.T) {
		w, _, cp1, cp2 := australiaThenNewZealand()
		s := w.session(nil, smriti.MainBranch)
		s.Mount = &smriti.Mount{CheckpointID: cp1.ID, BaseSeq: -1} // what seed_from: <cp1> stores
		w.say(s, smriti.RoleUser, "hello", time.Now())
		pc := w.send(t, s, ContextRequest{}, "go on", 1<<20)
		if pc.Mode != ModeMounted || len(pc.Checkpoints) != 1 || pc.Checkpoints[0].ID != cp1.ID || len(pc.Turns) != 1 {
			t.Fatalf("mode %s checkpoints %v turns %d", pc.Mode, pc.Checkpoints, len(pc.Turns))
		}
		if strings.Contains(pc.Messages[0].Content, cp2.Message) {
			t.Fatal("a later main checkpoint leaked into a seeded session")
		}
	})
	t.Run("AForksSecondCheckpointAnchorsItsSends", func(t *testing.T) {
		w, _, cp1, _ := australiaThenNewZealand()
		f := w.session(&cp1.ID, "east")
		w.say(f, smriti.RoleUser, "fork turn 0", time.Now())
		pc := w.send(t, f, ContextRequest{}, "q", 1<<20)
		if pc.Mode != ModeForked || pc.Checkpoints[0].ID != cp1.ID || len(pc.Turns) != 1 {
			t.Fatalf("before any commit: %s %v %v", pc.Mode, pc.Checkpoints, seqsOf(pc.Turns))
		}
		e1 := w.commit("east", cp1, smriti.Content{Message: "East 1"}, time.Now())
		w.say(f, smriti.RoleUser, "after e1", time.Now())
		e2 := w.commit("east", e1, smriti.Content{Message: "East 2"}, time.Now())
		w.say(f, smriti.RoleUser, "after e2", time.Now())
		pc = w.send(t, f, ContextRequest{MemoryScope: ScopeLatest3}, "q", 1<<20)
		got := []smriti.ID{}
		for _, c := range pc.Checkpoints {
			got = append(got, c.ID)
		}
		if pc.Mode != ModeForked || !reflect.DeepEqual(got, []smriti.ID{cp1.ID, e1.ID, e2.ID}) {
			t.Fatalf("checkpoints %v, want fork source, e1, e2", got)
		}
		if len(pc.Turns) != 1 || pc.Turns[0].Content != "after e2" {
			t.Fatalf("turns %v, want only the one after e2", pc.Turns)
		}
	})
}

func promptText(msgs []Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(m.Role + ": " + m.Content + "\n")
	}
	return b.String()
}

func ptr[T any](v T) *T { return &v }

// australiaThenNewZealand is the SPEC scenario: turns about Australia,
// checkpoint 1, turns about New Zealand, checkpoint 2, in one session.
func australiaThenNewZealand() (*world, *smriti.Session, *smriti.Checkpoint, *smriti.Checkpoint) {
	w := newWorld()
	s := w.session(nil, smriti.MainBranch)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	w.say(s, smriti.RoleUser, "Plan a trip to Australia", t0)
	w.say(s, smriti.RoleAssistant, "Sydney and Melbourne are a good start", t0.Add(time.Second))
	cp1 := w.commit(smriti.MainBranch, nil, smriti.Content{Message: "Australia plan", Summary: "Trip to Australia",
		Decisions: []string{"Visit Sydney"}}, t0.Add(2*time.Second))
	w.say(s, smriti.RoleUser, "Now plan New Zealand", t0.Add(3*time.Second))
	w.say(s, smriti.RoleAssistant, "Auckland and Queenstown", t0.Add(4*time.Second))
	cp2 := w.commit(smriti.MainBranch, cp1, smriti.Content{Message: "New Zealand plan", Summary: "Trip to New Zealand",
		Decisions: []string{"Visit Auckland"}}, t0.Add(5*time.Second))
	return w, s, cp1, cp2
}

func TestContextScenarios(t *testing.T) {
	const big = 100000
	nz := []string{"New Zealand", "Auckland", "Queenstown"}

	t.Run("MountedWithoutBaseSeqExcludesPreMountTurnsAndLaterCheckpoints", func(t *testing.T) {
		w, s, cp1, cp2 := australiaThenNewZealand()
		pc := w.send(t, s, ContextRequest{MountedCheckpointID: &cp1.ID}, "What about Perth?", big)
		if pc.Mode != ModeMounted || len(pc.Checkpoints) != 1 || pc.Checkpoints[0] != cp1 || len(pc.Turns) != 0 {
			t.Fatalf("got mode %s, %d checkpoints, %d turns", pc.Mode, len(pc.Checkpoints), len(pc.Turns))
		}
		text := promptText(pc.Messages)
		for _, bad := range append(nz, textutil.ShortHash(cp2.Hash)) {
			if strings.Contains(text, bad) {
				t.Errorf("prompt leaks %q:\n%s", bad, text)
			}
		}
		for _, good := range []string{"Visit Sydney", textutil.ShortHash(cp1.Hash), "What about Perth?"} {
			if !strings.Contains(text, good) {
				t.Errorf("prompt lacks %q:\n%s", good, text)
			}
		}
	})

	t.Run("MountedWithBaseSeqSeesOnlyTurnsAfterTheMount", func(t *testing.T) {
		w, s, cp1, _ := australiaThenNewZealand()
		base := s.LastSeq
		w.say(s, smriti.RoleUser, "Mounted question about Perth", time.Now())
		w.say(s, smriti.RoleAssistant, "Perth answer", time.Now())
		pc := w.send(t, s, ContextRequest{MountedCheckpointID: &cp1.ID, HistoryBaseSeq: &base}, "And Darwin?", big)
		text := promptText(pc.Messages)
		for _, bad := range append(nz, "Plan a trip") {
			if strings.Contains(text, bad) {
				t.Errorf("prompt leaks %q", bad)
			}
		}
		if len(pc.Turns) != 2 || pc.Turns[0].Content != "Mounted question about Perth" {
			t.Fatalf("turns = %v", pc.Turns)
		}
		from, to := pc.SeqRange()
		if *from != base+1 || *to != base+2 {
			t.Fatalf("seq range %d..%d", *from, *to)
		}
	})

	t.Run("MountedWithBaseSeqMinusOneSeesEveryTurn", func(t *testing.T) {
		w, s, cp1, _ := australiaThenNewZealand()
		pc := w.send(t, s, ContextRequest{MountedCheckpointID: &cp1.ID, HistoryBaseSeq: ptr[int64](-1)}, "x", big)
		if len(pc.Turns) != 4 {
			t.Fatalf("turns = %d, want 4", len(pc.Turns))
		}
	})

	t.Run("ForkSeesItsOwnFirstMessage", func(t *testing.T) {
		w, _, cp1, cp2 := australiaThenNewZealand()
		f := w.session(&cp1.ID, "tasmania")
		w.say(f, smriti.RoleUser, "Fork first message: what about Tasmania", time.Now())
		w.say(f, smriti.RoleAssistant, "Hobart", time.Now())
		pc := w.send(t, f, ContextRequest{}, "More on Hobart", big)
		text := promptText(pc.Messages)
		if pc.Mode != ModeForked || pc.Checkpoints[0] != cp1 {
			t.Fatalf("mode %s", pc.Mode)
		}
		if !strings.Contains(text, "Fork first message") || !strings.Contains(text, "Hobart") {
			t.Fatalf("fork history missing:\n%s", text)
		}
		if strings.Contains(text, "New Zealand") || strings.Contains(text, textutil.ShortHash(cp2.Hash)) {
			t.Fatalf("fork prompt leaks main's later state:\n%s", text)
		}
	})

	t.Run("HeadUsesLogPositionNotTimestamps", func(t *testing.T) {
		w := newWorld()
		s := w.session(nil, smriti.MainBranch)
		at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
		w.say(s, smriti.RoleUser, "before-same-instant", at)
		cp := w.commit(smriti.MainBranch, nil, smriti.Content{Summary: "head"}, at)
		w.say(s, smriti.RoleUser, "after-same-instant", at)
		pc := w.send(t, s, ContextRequest{}, "next", big)
		text := promptText(pc.Messages)
		if pc.Mode != ModeHead || pc.Checkpoints[0] != cp {
			t.Fatalf("mode %s", pc.Mode)
		}
		if strings.Contains(text, "before-same-instant") || !strings.Contains(text, "after-same-instant") {
			t.Fatalf("log position boundary wrong:\n%s", text)
		}
	})

	t.Run("HeadLatest3GivesThreeNewestMainOldestFirst", func(t *testing.T) {
		w, s, cp1, cp2 := australiaThenNewZealand()
		w.commit("side", cp2, smriti.Content{Summary: "side branch"}, time.Now())
		cp3 := w.commit(smriti.MainBranch, cp2, smriti.Content{Summary: "third"}, time.Now())
		pc := w.send(t, s, ContextRequest{MemoryScope: ScopeLatest3}, "x", big)
		if !reflect.DeepEqual(pc.Checkpoints, []*smriti.Checkpoint{cp1, cp2, cp3}) {
			t.Fatalf("checkpoints = %v", pc.Checkpoints)
		}
		text := pc.Messages[0].Content
		if !strings.Contains(text, "Checkpoint 1 ("+textutil.ShortHash(cp1.Hash)+", branch main)") ||
			strings.Index(text, "Checkpoint 1") > strings.Index(text, "Checkpoint 3") {
			t.Fatalf("labels/order wrong:\n%s", text)
		}
	})

	t.Run("HeadWithoutMainCheckpointIsFresh", func(t *testing.T) {
		w := newWorld()
		s := w.session(nil, smriti.MainBranch)
		w.say(s, smriti.RoleUser, "hello", time.Now())
		w.say(s, smriti.RoleSystem, "system note", time.Now())
		pc := w.send(t, s, ContextRequest{}, "again", big)
		if pc.Mode != ModeFresh || len(pc.Turns) != 1 || len(pc.Messages) != 3 {
			t.Fatalf("mode %s turns %d msgs %d", pc.Mode, len(pc.Turns), len(pc.Messages))
		}
		if pc.Messages[0] != (Message{Role: smriti.RoleSystem, Content: promptPreamble}) {
			t.Fatalf("fresh system message = %+v", pc.Messages[0])
		}
	})

	t.Run("BudgetDropsOldestKeepsCheckpointAndNewMessage", func(t *testing.T) {
		w, s, cp1, _ := australiaThenNewZealand()
		base := s.LastSeq
		for i := range 6 {
			w.say(s, smriti.RoleUser, strings.Repeat("x", 40)+string(rune('a'+i)), time.Now())
		}
		two := 2 * estimate.Tokens(strings.Repeat("x", 40)+"a") // room for two turns, not three
		pc := w.send(t, s, ContextRequest{MountedCheckpointID: &cp1.ID, HistoryBaseSeq: &base}, "new message", two+1)
		if len(pc.Turns) != 2 || pc.Dropped != 4 {
			t.Fatalf("kept %d dropped %d", len(pc.Turns), pc.Dropped)
		}
		if !strings.HasSuffix(pc.Turns[1].Content, "f") || !strings.HasSuffix(pc.Turns[0].Content, "e") {
			t.Fatalf("did not keep the newest two oldest-first: %v", pc.Turns)
		}
		if !strings.Contains(pc.Messages[0].Content, "Visit Sydney") || pc.Messages[len(pc.Messages)-1].Content != "new message" {
			t.Fatalf("checkpoint block or new message cut: %+v", pc.Messages)
		}
		a := pc.Annotations()
		if a[annotationMode] != "MOUNTED" || a[annotationTurns] != "2" || a[annotationDropped] != "4" || a[annotationCheckpoints] != textutil.ShortHash(cp1.Hash) {
			t.Fatalf("annotations = %v", a)
		}
	})

	t.Run("NoSpaceIsFresh", func(t *testing.T) {
		p, err := PlanContext(&smriti.Session{LastSeq: -1}, ContextRequest{})
		if err != nil || p.Mode != ModeFresh {
			t.Fatalf("plan %+v err %v", p, err)
		}
		q := p.Resolve(nil)
		if q != (contract.TurnQuery{ExcludeSystem: true, Newest: true}) {
			t.Fatalf("query %+v", q)
		}
	})
}

func TestPlanContext(t *testing.T) {
	space, cp, fork := smriti.NewID(), smriti.NewID(), smriti.NewID()
	other := smriti.NewID()
	main := &smriti.Session{SpaceID: &space, LastSeq: 7}
	forked := &smriti.Session{SpaceID: &space, ForkedFromCheckpointID: &fork, BranchName: "east", LastSeq: 3}
	mounted := &smriti.Session{SpaceID: &space, LastSeq: 9, Mount: &smriti.Mount{CheckpointID: cp, BaseSeq: 4}}
	tests := []struct {
		name    string
		s       *smriti.Session
		req     ContextRequest
		want    ContextPlan
		wantErr string
	}{
		{"MountWithoutBaseUsesLastSeq", main, ContextRequest{MountedCheckpointID: &cp},
			ContextPlan{Mode: ModeMounted, Anchor: &cp, Depth: 1, AfterSeq: ptr[int64](7), Mount: &smriti.Mount{CheckpointID: cp, BaseSeq: 7}}, ""},
		{"MountWithBaseUsesIt", main, ContextRequest{MountedCheckpointID: &cp, HistoryBaseSeq: ptr[int64](2), MemoryScope: "latest_3"},
			ContextPlan{Mode: ModeMounted, Anchor: &cp, Depth: 3, AfterSeq: ptr[int64](2), Mount: &smriti.Mount{CheckpointID: cp, BaseSeq: 2}}, ""},
		{"MountWinsOverFork", forked, ContextRequest{MountedCheckpointID: &cp},
			ContextPlan{Mode: ModeMounted, Anchor: &cp, Depth: 1, AfterSeq: ptr[int64](3), Mount: &smriti.Mount{CheckpointID: cp, BaseSeq: 3}}, ""},
		{"ForkHasNoSeqFilter", forked, ContextRequest{HistoryBaseSeq: ptr[int64](1)},
			ContextPlan{Mode: ModeForked, Anchor: &fork, Branch: "east", Depth: 1}, ""},
		// The session keeps its mount between sends.
		{"StoredMountWithoutFields", mounted, ContextRequest{},
			ContextPlan{Mode: ModeMounted, Anchor: &cp, Depth: 1, AfterSeq: ptr[int64](4)}, ""},
		{"NamingTheStoredMountKeepsItsBase", mounted, ContextRequest{MountedCheckpointID: &cp},
			ContextPlan{Mode: ModeMounted, Anchor: &cp, Depth: 1, AfterSeq: ptr[int64](4)}, ""},
		{"ExplicitBaseWinsOverStoredOne", mounted, ContextRequest{HistoryBaseSeq: ptr[int64](-1)},
			ContextPlan{Mode: ModeMounted, Anchor: &cp, Depth: 1, AfterSeq: ptr[int64](-1)}, ""},
		{"ExplicitBaseWithStoredCheckpointIsRecorded", mounted, ContextRequest{MountedCheckpointID: &cp, HistoryBaseSeq: ptr[int64](6)},
			ContextPlan{Mode: ModeMounted, Anchor: &cp, Depth: 1, AfterSeq: ptr[int64](6), Mount: &smriti.Mount{CheckpointID: cp, BaseSeq: 6}}, ""},
		{"NewCheckpointStartsANewMountNow", mounted, ContextRequest{MountedCheckpointID: &other},
			ContextPlan{Mode: ModeMounted, Anchor: &other, Depth: 1, AfterSeq: ptr[int64](9), Mount: &smriti.Mount{CheckpointID: other, BaseSeq: 9}}, ""},
		{"SeededMountSeesEveryTurn", &smriti.Session{SpaceID: &space, LastSeq: 5, Mount: &smriti.Mount{CheckpointID: cp, BaseSeq: -1}}, ContextRequest{},
			ContextPlan{Mode: ModeMounted, Anchor: &cp, Depth: 1, AfterSeq: ptr[int64](-1)}, ""},
		{"SpaceIsHead", main, ContextRequest{MemoryScope: "latest_1"}, ContextPlan{Mode: ModeHead, Depth: 1}, ""},
		{"BadScopeIsUnprocessable", main, ContextRequest{MemoryScope: "latest_2"}, ContextPlan{}, "memory_scope"},
		{"BaseBelowMinusOneIsUnprocessable", main, ContextRequest{MountedCheckpointID: &cp, HistoryBaseSeq: ptr[int64](-2)}, ContextPlan{}, "history_base_seq"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PlanContext(tt.s, tt.req)
			if tt.wantErr != "" {
				if smriti.ErrorCode(err) != smriti.EUNPROCESSABLE || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %+v (%v), want %+v", got, err, tt.want)
			}
		})
	}
}

func TestCheckMount(t *testing.T) {
	space := smriti.NewID()
	s := &smriti.Session{SpaceID: &space}
	if err := CheckMount(s, &smriti.Checkpoint{SpaceID: space}); err != nil {
		t.Fatalf("same space: %v", err)
	}
	if err := CheckMount(s, &smriti.Checkpoint{SpaceID: smriti.NewID()}); smriti.ErrorCode(err) != smriti.EINVALID {
		t.Fatalf("other space: %v", err)
	}
	if err := CheckMount(&smriti.Session{}, &smriti.Checkpoint{SpaceID: space}); smriti.ErrorCode(err) != smriti.EINVALID {
		t.Fatalf("no space: %v", err)
	}
}

func TestSelectTurns(t *testing.T) {
	var turns []*smriti.Turn
	for i := range 6 {
		role := smriti.RoleUser
		if i == 2 {
			role = smriti.RoleSystem
		}
		// log positions deliberately out of seq order to catch mixing them up
		turns = append(turns, &smriti.Turn{Seq: int64(i), LogPos: int64(100 - i*10), Role: role})
	}
	seqs := func(ts []*smriti.Turn) []int64 {
		out := []int64{}
		for _, t := range ts {
			out = append(out, t.Seq)
		}
		return out
	}
	tests := []struct {
		name string
		q    contract.TurnQuery
		want []int64
	}{
		{"EverythingOldestFirst", contract.TurnQuery{}, []int64{0, 1, 2, 3, 4, 5}},
		{"NewestFirst", contract.TurnQuery{Newest: true}, []int64{5, 4, 3, 2, 1, 0}},
		{"ExcludeSystem", contract.TurnQuery{ExcludeSystem: true}, []int64{0, 1, 3, 4, 5}},
		{"AfterSeqExclusive", contract.TurnQuery{AfterSeq: ptr[int64](3)}, []int64{4, 5}},
		{"AfterLogPosExclusive", contract.TurnQuery{AfterLogPos: ptr[int64](70)}, []int64{0, 1, 2}},
		{"BeforeSeqExclusive", contract.TurnQuery{BeforeSeq: ptr[int64](2)}, []int64{0, 1}},
		{"LimitNewestKeepsMostRecent", contract.TurnQuery{Newest: true, Limit: 2}, []int64{5, 4}},
		{"LimitOldestKeepsEarliest", contract.TurnQuery{Limit: 2}, []int64{0, 1}},
		{"PagingBackwards", contract.TurnQuery{Newest: true, BeforeSeq: ptr[int64](4), Limit: 2, ExcludeSystem: true}, []int64{3, 1}},
		{"NothingMatchesGivesEmpty", contract.TurnQuery{AfterSeq: ptr[int64](9)}, []int64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := seqs(selectTurns(turns, tt.q)); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
	if turns[0].Seq != 0 || turns[5].Seq != 5 {
		t.Fatal("selectTurns modified its input")
	}
}

func TestFitTurns(t *testing.T) {
	mk := func(tokens ...int) []*smriti.Turn {
		var out []*smriti.Turn
		for i, n := range tokens {
			out = append(out, &smriti.Turn{Seq: int64(len(tokens) - 1 - i), Tokens: n})
		}
		return out // newest first
	}
	tests := []struct {
		name        string
		turns       []*smriti.Turn
		budget      int
		wantSeqs    []int64
		wantDropped int
	}{
		{"AllFit", mk(3, 3, 3), 9, []int64{0, 1, 2}, 0},
		{"OldestDroppedFirst", mk(3, 3, 3), 7, []int64{1, 2}, 1},
		{"NoGapsAfterATooBigTurn", mk(3, 50, 1), 10, []int64{2}, 2},
		{"NewestTooBigKeepsNothing", mk(20, 1), 10, []int64{}, 2},
		{"ZeroBudgetKeepsNothing", mk(1), 0, []int64{}, 1},
		{"EmptyInput", nil, 10, []int64{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kept, dropped := fitTurns(tt.turns, tt.budget)
			got := []int64{}
			for _, k := range kept {
				got = append(got, k.Seq)
			}
			if !reflect.DeepEqual(got, tt.wantSeqs) || dropped != tt.wantDropped {
				t.Fatalf("kept %v dropped %d, want %v %d", got, dropped, tt.wantSeqs, tt.wantDropped)
			}
		})
	}
	t.Run("EstimatesWhenTokensUnset", func(t *testing.T) {
		kept, _ := fitTurns([]*smriti.Turn{{Content: strings.Repeat("a", 40)}}, estimate.Tokens(strings.Repeat("a", 40)))
		if len(kept) != 1 {
			t.Fatal("a turn should fit a budget of its estimate")
		}
	})
}

func TestHistoryBudget(t *testing.T) {
	fixed := BuildPrompt(nil, nil, strings.Repeat("a", 400)) // 9 + 100 tokens + overhead
	if got, want := historyBudget(10000, 1000, fixed...), 10000-1000-EstimateMessages(fixed); got != want {
		t.Fatalf("budget = %d, want %d", got, want)
	}
	if got := historyBudget(100, 1000, fixed...); got != 0 {
		t.Fatalf("budget never negative, got %d", got)
	}
	if got := historyBudget(100, -5); got != 100-ReplyPrimingTokens {
		t.Fatalf("negative reserve counts as 0, got %d", got)
	}
}

func TestScopeDepth(t *testing.T) {
	for in, want := range map[string]int{"": 1, "latest_1": 1, "latest_3": 3} {
		if got, err := scopeDepth(in); got != want || err != nil {
			t.Errorf("scopeDepth(%q) = %d, %v", in, got, err)
		}
	}
	if _, err := scopeDepth("LATEST_3"); err == nil || !strings.Contains(err.Error(), "latest_1") {
		t.Errorf("want error listing valid values, got %v", err)
	}
}
