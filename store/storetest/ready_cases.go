package storetest

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"smriti"
	"smriti/contract"
	"smriti/coord"
	"smriti/portability"
	"smriti/store"
)

var readyCases = []struct {
	name string
	fn   func(t *testing.T, s *store.Store)
}{
	{"ReadyQueueRanksAndHidesHeld", testReadyQueue},
	{"ClaimStormNeverSharesATask", testClaimStorm},
	{"AgentTranscriptAppendsOnlyNewEntries", testAgentEntries},
	{"AgentStandInCoveredOnceByTheRealMessage", testAgentStandIn},
}

func task(id, text, blockedBy, status string) smriti.Task {
	var bs smriti.Blockers
	if blockedBy != "" {
		bs = smriti.Blockers{blockedBy}
	}
	return smriti.Task{ID: id, Text: text, BlockedBy: bs, Status: status, Structured: true}
}

func readyKeys(rs []coord.ReadyTask) string {
	var ks []string
	for _, r := range rs {
		ks = append(ks, fmt.Sprintf("%s@%s/%d", r.Key, r.Branch, r.Unblocks))
	}
	return strings.Join(ks, " ")
}

func testReadyQueue(t *testing.T, s *store.Store) {
	clk := &clock{t: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	s.Now = func() time.Time { clk.advance(time.Millisecond); return clk.t }
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	se := newSession(t, ctx, s, sp)
	base := Get(s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: se.ID, Content: smriti.Content{Message: "plan",
		Tasks: []smriti.Task{
			task("t1", "Schema", "", ""),
			task("t2", "Indexer", "t1", ""),
			task("t3", "API", "t1, t2", ""),
			task("t4", "Docs", "", smriti.TaskDone),
			task("t5", "Bench", "t4", ""),
			{Text: "Plain follow-up"},
		}}})).Must(t)
	fork := Get(s.ForkSession(ctx, smriti.ForkCreate{SpaceID: sp.ID, CheckpointID: base.ID, BranchName: "alt"})).Must(t)
	Get(s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: fork.ID, Content: smriti.Content{Message: "alt",
		Tasks: []smriti.Task{task("t1", "Schema", "", ""), task("a1", "Try hosted", "", "")}}})).Must(t)

	ready := Get(s.ReadyTasks(ctx, sp.ID, coord.ReadyQuery{})).Must(t)
	plain := smriti.Task{Text: "Plain follow-up"}.Key()
	// t1 unblocks two; t5's blocker is done; t2, t3 wait; a1 from the branch comes last (newer).
	if got, want := readyKeys(ready), "t1@main/2 t5@main/0 "+plain+"@main/0 a1@alt/0"; got != want {
		t.Fatalf("ready = %s, want %s", got, want)
	}
	c := get3(s.CreateClaim(ctx, coord.ClaimCreate{SpaceID: sp.ID, Agent: "a", Scope: "Schema", TaskID: "t1"})).Must(t)
	if got, want := readyKeys(Get(s.ReadyTasks(ctx, sp.ID, coord.ReadyQuery{})).Must(t)), "t5@main/0 "+plain+"@main/0 a1@alt/0"; got != want {
		t.Fatalf("ready with t1 held = %s, want %s", got, want)
	}
	// Done: t1 counts as done, t2 (blocked by t1 only) becomes ready.
	Get(s.FinishClaim(ctx, c.ID, coord.ClaimDone)).Must(t)
	if got, want := readyKeys(Get(s.ReadyTasks(ctx, sp.ID, coord.ReadyQuery{})).Must(t)), "t2@main/1 t5@main/0 "+plain+"@main/0 a1@alt/0"; got != want {
		t.Fatalf("ready after t1 done = %s, want %s", got, want)
	}
	// A lease runs out: the task is ready again and can be claimed anew.
	short := 2 * time.Minute
	c2 := get3(s.CreateClaim(ctx, coord.ClaimCreate{SpaceID: sp.ID, Agent: "b", Scope: "Bench", TaskID: "t5", TTL: &short})).Must(t)
	renewed := Get(s.HeartbeatClaim(ctx, c2.ID, nil)).Must(t)
	if !renewed.ExpiresAt.After(c2.ExpiresAt) {
		t.Fatalf("heartbeat kept expiry %s", renewed.ExpiresAt)
	}
	clk.advance(3 * time.Minute)
	if _, err := s.HeartbeatClaim(ctx, c2.ID, nil); smriti.ErrorCode(err) != smriti.ECONFLICT {
		t.Fatalf("heartbeat of an expired claim: %v", err)
	}
	get3(s.CreateClaim(ctx, coord.ClaimCreate{SpaceID: sp.ID, Agent: "c", Scope: "Bench", TaskID: "t5"})).Must(t)
	// ClaimReady takes the first ready task.
	cl, rt, err := s.ClaimReady(ctx, coord.ClaimCreate{SpaceID: sp.ID, Agent: "d"})
	if err != nil || rt.Key != "t2" || *cl.TaskID != "t2" || cl.Scope != "Indexer" {
		t.Fatalf("claim ready = %+v %+v %v", cl, rt, err)
	}
}

// testClaimStorm: 32 agents claim from one queue of 20 ready tasks at once,
// each until nothing is left. No task is ever held twice, every task is won
// once, and the agents that found nothing were told so.
func testClaimStorm(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	se := newSession(t, ctx, s, sp)
	var tasks []smriti.Task
	for i := 0; i < 20; i++ {
		tasks = append(tasks, task(fmt.Sprintf("s%02d", i), fmt.Sprintf("Storm task %d", i), "", ""))
	}
	Get(s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: se.ID, Content: smriti.Content{Message: "storm", Tasks: tasks}})).Must(t)

	const agents = 32
	var mu sync.Mutex
	winners := map[string][]string{}
	attempts, empty := 0, 0
	var wg sync.WaitGroup
	errs := make(chan error, agents)
	for a := 0; a < agents; a++ {
		wg.Add(1)
		go func(a int) {
			defer wg.Done()
			name := fmt.Sprintf("agent-%02d", a)
			for {
				mu.Lock()
				attempts++
				mu.Unlock()
				c, _, err := s.ClaimReady(ctx, coord.ClaimCreate{SpaceID: sp.ID, Agent: name})
				if smriti.ErrorCode(err) == smriti.ENOTFOUND {
					mu.Lock()
					empty++
					mu.Unlock()
					return
				}
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				winners[*c.TaskID] = append(winners[*c.TaskID], name)
				mu.Unlock()
			}
		}(a)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("claim: %v", err)
	}
	var dups []string
	for k, w := range winners {
		if len(w) > 1 {
			dups = append(dups, k)
		}
	}
	sort.Strings(dups)
	t.Logf("claim storm on %s: %d agents, %d attempts, %d tasks won, %d duplicates, %d agents found the queue empty",
		s.Engine(), agents, attempts, len(winners), len(dups), empty)
	if len(dups) != 0 || len(winners) != 20 || empty != agents {
		t.Fatalf("storm: %d tasks won (want 20), duplicates %v, %d agents told empty (want %d)", len(winners), dups, empty, agents)
	}
	live := get2(s.Claims(ctx, sp.ID, coord.ClaimQuery{})).Must(t)
	if len(live) != 20 {
		t.Fatalf("live claims = %d, want 20", len(live))
	}
}

func testAgentEntries(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	e := func(k, text string) portability.AgentEntry {
		return portability.AgentEntry{Key: k, Kind: portability.AgentMessage, Role: smriti.RoleUser, Content: text}
	}
	se, created, added, err := s.AppendAgentEntries(ctx, sp.ID, portability.SourceCodex, "k1", "Codex session", []portability.AgentEntry{e("a", "one"), e("b", "two")})
	if err != nil || !created || added != 2 || se.LastSeq != 1 {
		t.Fatalf("first = %+v %v %d %v", se, created, added, err)
	}
	se2, created, added, err := s.AppendAgentEntries(ctx, sp.ID, portability.SourceCodex, "k1", "Codex session", []portability.AgentEntry{e("b", "two"), e("c", "three")})
	if err != nil || created || added != 1 || se2.ID != se.ID || se2.LastSeq != 2 {
		t.Fatalf("second = %+v %v %d %v", se2, created, added, err)
	}
	turns := Get(s.Turns(ctx, se.ID, contract.TurnQuery{})).Must(t)
	if len(turns) != 3 || turns[2].Content != "three" || turns[2].Seq != 2 {
		t.Fatalf("turns = %d", len(turns))
	}
	if _, _, _, err := s.AppendAgentEntries(ctx, smriti.NewID(), portability.SourceCodex, "k1", "x", nil); smriti.ErrorCode(err) != smriti.ENOTFOUND {
		t.Fatalf("unknown space: %v", err)
	}
}

// A stand-in for the host's last message (imported before the transcript
// on disk held it) is covered by the real message: one turn, not two; the
// same words said again later are a turn again.
func testAgentStandIn(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	final := "Decision: keep the pool at 20."
	key := portability.StandInKey(final)
	msg := func(k string) portability.AgentEntry {
		return portability.AgentEntry{Key: k, Kind: portability.AgentMessage, Role: smriti.RoleAssistant, Content: final, Covers: key}
	}
	user := portability.AgentEntry{Key: "u1", Kind: portability.AgentMessage, Role: smriti.RoleUser, Content: "Pool size?"}
	standIn := portability.AgentEntry{Key: key, Kind: portability.AgentMessage, Role: smriti.RoleAssistant, Content: final}
	se, _, added, err := s.AppendAgentEntries(ctx, sp.ID, portability.SourceClaudeCode, "k1", "s", []portability.AgentEntry{user, standIn})
	if err != nil || added != 2 {
		t.Fatalf("lagging import: added %d, %v; want 2", added, err)
	}
	// The file caught up: the same user line, then the real message.
	if _, _, added, err := s.AppendAgentEntries(ctx, sp.ID, portability.SourceClaudeCode, "k1", "s", []portability.AgentEntry{user, msg("a1")}); err != nil || added != 0 {
		t.Fatalf("caught-up import: added %d, %v; want 0", added, err)
	}
	// Said again later, in a new line: a turn.
	if _, _, added, err := s.AppendAgentEntries(ctx, sp.ID, portability.SourceClaudeCode, "k1", "s", []portability.AgentEntry{user, msg("a1"), msg("a2")}); err != nil || added != 1 {
		t.Fatalf("repeated words: added %d, %v; want 1", added, err)
	}
	turns := Get(s.Turns(ctx, se.ID, contract.TurnQuery{})).Must(t)
	var got []string
	for _, tu := range turns {
		got = append(got, tu.Role+": "+tu.Content)
	}
	want := []string{"user: Pool size?", "assistant: " + final, "assistant: " + final}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("turns = %q, want %q", got, want)
	}
}
