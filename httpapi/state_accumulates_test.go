package httpapi_test

import (
	"fmt"
	"strings"
	"testing"

	"smriti"
	"smriti/intelligence"
	"smriti/store/storetest"
	"smriti/wire"
)

// These are the scenarios of SPEC §3 "State accumulates", end to end over
// HTTP with the offline mock: a draft is its base plus what the turns
// changed, a merge keeps what the branch did not touch, and a value changed
// differently on two branches is one conflict on one item id.

// draftAndSave drafts from the session and saves the draft with its items,
// as the web workspace does.
func (e *testEnv) draftAndSave(t *testing.T, sp wire.Repo, session smriti.ID) (*wire.DraftOut, *wire.Commit) {
	t.Helper()
	d := storetest.Get(e.c.Draft(bg, draftOf(session))).Must(t)
	req := wire.CommitRequest{RepoID: strp(sp.ID.String()), SessionID: strp(session.String()), ContentFields: wire.ContentFields{
		Message: strp(d.Title), Summary: d.Summary, Objective: d.Objective, Decisions: d.Decisions, Assumptions: d.Assumptions,
		Tasks: d.Tasks, OpenQuestions: d.OpenQuestions, Entities: d.Entities, Artifacts: d.Proposed.Artifacts},
		ItemFields: wire.ItemFields{Items: wire.ItemsInOf(wire.DomainItems(d.Items)), Model: d.Model}}
	if d.SourceTurns != nil {
		st := d.SourceTurns
		req.SourceTurns = &wire.SourceTurnsIn{SessionID: strp(st.SessionID.String()), FromSeq: &st.FromSeq, ToSeq: &st.ToSeq}
	}
	return d, storetest.Get(e.c.Commit(bg, req)).Must(t)
}

func (e *testEnv) fork(t *testing.T, sp wire.Repo, from smriti.ID, branch string) smriti.ID {
	t.Helper()
	f := storetest.Get(e.c.Fork(bg, wire.ForkRequest{SpaceID: strp(sp.ID.String()), CheckpointID: strp(from.String()), BranchName: branch})).Must(t)
	return f.SessionID
}

func itemByText(t *testing.T, items []wire.ItemOut, text string) wire.ItemOut {
	t.Helper()
	for _, it := range items {
		if it.Text == text {
			return it
		}
	}
	t.Fatalf("no item %q in %+v", text, items)
	return wire.ItemOut{}
}

func TestBranchDraftCarriesMainAndMergeKeepsIt(t *testing.T) {
	e := newEnv(t)
	sp, main := e.spaceSession(t)
	base := storetest.Get(e.c.Commit(bg, wire.CommitRequest{RepoID: strp(sp.ID.String()), SessionID: strp(main.ID.String()),
		ContentFields: wire.ContentFields{Message: strp("CLI plan"), Decisions: []string{"Use Go with cobra"},
			Assumptions: []string{"Users have git installed"}, Tasks: []smriti.Task{{Text: "Write the install script"}}}})).Must(t)
	baseItems := storetest.Get(e.c.CheckpointItems(bg, base.ID)).Must(t)
	cobra := itemByText(t, baseItems, "Use Go with cobra")

	branch := e.fork(t, sp, base.ID, "packaging")
	e.exchange(t, branch, "Decision: ship a Homebrew formula", "OK.")
	e.exchange(t, branch, "Open question: do we sign the binaries?", "Maybe.")
	d, head := e.draftAndSave(t, sp, branch)

	t.Run("TheBranchDraftCarriesMainsItems", func(t *testing.T) {
		if d.BaseCheckpointID == nil || *d.BaseCheckpointID != base.ID {
			t.Fatalf("base = %v, want %s", d.BaseCheckpointID, base.ID)
		}
		if strings.Join(head.Decisions, "|") != "Use Go with cobra|Ship a Homebrew formula" ||
			strings.Join(head.Assumptions, "|") != "Users have git installed" ||
			len(head.Tasks) != 1 || head.Tasks[0].Text != "Write the install script" ||
			strings.Join(head.OpenQuestions, "|") != "Do we sign the binaries?" {
			t.Errorf("branch checkpoint = %+v", head)
		}
		items := storetest.Get(e.c.CheckpointItems(bg, head.ID)).Must(t)
		if got := itemByText(t, items, "Use Go with cobra"); got.ID != cobra.ID || got.Change != nil {
			t.Errorf("carried item = %+v, want id %s unchanged", got, cobra.ID)
		}
	})

	t.Run("MergeKeepsWhatTheBranchDidNotTouch", func(t *testing.T) {
		req := wire.MergeRequest{SpaceID: strp(sp.ID.String()), SourceCheckpointID: strp(head.ID.String()), DryRun: true}
		p := storetest.Get(e.c.MergePreview(bg, req)).Must(t)
		if len(p.Conflicts) != 0 || len(p.Removes) != 0 {
			t.Fatalf("preview conflicts %+v removes %+v, want none", p.Conflicts, p.Removes)
		}
		req.DryRun = false
		m := storetest.Get(e.c.Merge(bg, req)).Must(t)
		c := m.Checkpoint
		if strings.Join(c.Decisions, "|") != "Use Go with cobra|Ship a Homebrew formula" || len(c.Tasks) != 1 ||
			c.Tasks[0].Text != "Write the install script" || strings.Join(c.Assumptions, "|") != "Users have git installed" {
			t.Errorf("merged = %+v", c)
		}
		v := storetest.Get(e.c.Verify(bg, c.ID)).Must(t)
		if !v.OK || v.Checked != 3 {
			t.Errorf("verify = %+v", v)
		}
	})
}

func TestRemovalsAreListedInTheMergePreview(t *testing.T) {
	e := newEnv(t)
	sp, main := e.spaceSession(t)
	base := storetest.Get(e.c.Commit(bg, wire.CommitRequest{RepoID: strp(sp.ID.String()), SessionID: strp(main.ID.String()),
		ContentFields: wire.ContentFields{Message: strp("Plan"), Decisions: []string{"Use Go with cobra"},
			Assumptions: []string{"Users have git installed"}}})).Must(t)
	branch := e.fork(t, sp, base.ID, "no-git")
	e.exchange(t, branch, "Drop the assumption that users have git installed", "OK.")
	d, head := e.draftAndSave(t, sp, branch)
	if len(d.Changes) != 1 || d.Changes[0].Op != smriti.OpRetract {
		t.Fatalf("changes = %s, want one retract", showChanges(d.Changes))
	}
	p := storetest.Get(e.c.MergePreview(bg, wire.MergeRequest{SpaceID: strp(sp.ID.String()), SourceCheckpointID: strp(head.ID.String()), DryRun: true})).Must(t)
	want := smriti.MergeRemoval{ID: d.Changes[0].ID, Kind: smriti.KindAssumption, Text: "Users have git installed", Side: "theirs", Status: smriti.ItemRetracted}
	if len(p.Removes) != 1 || p.Removes[0] != want || len(p.Merged.Assumptions) != 0 {
		t.Errorf("removes = %+v assumptions %q, want %+v", p.Removes, p.Merged.Assumptions, want)
	}
}

func TestContradictoryChangesAreOneConflictOnOneItem(t *testing.T) {
	e := newEnv(t)
	sp, main := e.spaceSession(t)
	base := storetest.Get(e.c.Commit(bg, wire.CommitRequest{RepoID: strp(sp.ID.String()), SessionID: strp(main.ID.String()),
		ContentFields: wire.ContentFields{Message: strp("Auth"), Decisions: []string{"Access token TTL is 15 minutes"}}})).Must(t)
	ttl := itemByText(t, storetest.Get(e.c.CheckpointItems(bg, base.ID)).Must(t), "Access token TTL is 15 minutes")

	branch := e.fork(t, sp, base.ID, "short-ttl")
	e.exchange(t, branch, "Decision: access token TTL is 5 minutes", "OK.")
	bd, bhead := e.draftAndSave(t, sp, branch)
	if dc := decisionChanges(bd.Changes); len(dc) != 1 || dc[0].Op != smriti.OpUpdate || dc[0].ID != ttl.ID {
		t.Fatalf("branch changes = %s, want an update of %s", showChanges(bd.Changes), ttl.ID)
	}
	e.exchange(t, main.ID, "Decision: access token TTL is 30 minutes", "OK.")
	md, mhead := e.draftAndSave(t, sp, main.ID)
	if dc := decisionChanges(md.Changes); len(dc) != 1 || dc[0].Op != smriti.OpUpdate || dc[0].ID != ttl.ID {
		t.Fatalf("main changes = %s, want an update of %s", showChanges(md.Changes), ttl.ID)
	}

	req := wire.MergeRequest{SpaceID: strp(sp.ID.String()), SourceCheckpointID: strp(bhead.ID.String()), DryRun: true}
	p := storetest.Get(e.c.MergePreview(bg, req)).Must(t)
	want := smriti.MergeConflict{Field: "decisions", Key: ttl.ID, Kind: "both_changed", Base: "Access token TTL is 15 minutes",
		Ours: "Access token TTL is 30 minutes", Theirs: "Access token TTL is 5 minutes"}
	if len(p.Conflicts) != 1 || p.Conflicts[0] != want {
		t.Fatalf("conflicts = %+v, want exactly %+v", p.Conflicts, want)
	}

	req.DryRun = false
	req.Resolutions = []smriti.MergeResolution{{Field: "decisions", Key: ttl.ID, Choice: smriti.ChooseCustom, Value: "Access token TTL is 10 minutes"}}
	m := storetest.Get(e.c.Merge(bg, req)).Must(t)
	if strings.Join(m.Checkpoint.Decisions, "|") != "Access token TTL is 10 minutes" {
		t.Fatalf("merged decisions = %q", m.Checkpoint.Decisions)
	}

	t.Run("WhyNamesBothBranchesTurns", func(t *testing.T) {
		h := storetest.Get(e.c.ItemHistory(bg, sp.ID, ttl.ID)).Must(t)
		if h.Item.ID != ttl.ID || h.Item.Text != "Access token TTL is 10 minutes" {
			t.Errorf("item = %+v", h.Item)
		}
		bySession := map[smriti.ID]string{}
		var checkpoints []smriti.ID
		for _, ev := range h.History {
			checkpoints = append(checkpoints, ev.CheckpointID)
			if ev.Change.Source.SessionID != nil {
				bySession[*ev.Change.Source.SessionID] = ev.Text
			}
		}
		// introduced, the branch's and main's changes, both versions the
		// custom resolution turned down, then the merge's own change.
		if len(h.History) != 6 || checkpoints[0] != base.ID || h.History[0].Event != "introduced" ||
			h.History[3].Event != "rejected" || h.History[3].Text != "Access token TTL is 30 minutes" ||
			h.History[4].Event != "rejected" || h.History[4].Text != "Access token TTL is 5 minutes" {
			t.Fatalf("history = %+v", h.History)
		}
		if bySession[branch] != "Access token TTL is 5 minutes" || bySession[main.ID] != "Access token TTL is 30 minutes" {
			t.Errorf("changes by session = %v, want the branch's and main's turns", bySession)
		}
		last := h.History[5]
		if last.CheckpointID != m.Checkpoint.ID || !last.Merge || last.Event != "changed" {
			t.Errorf("last event = %+v, want the merge's change", last)
		}
		_ = mhead
	})

	t.Run("UnknownItemIs404", func(t *testing.T) {
		status, body := e.raw(t, "GET", "/api/v5/spaces/"+sp.ID.String()+"/items/d-abcdef", "")
		if status != 404 || strings.TrimSpace(body) != `{"detail":"Item d-abcdef not found in this space"}` {
			t.Errorf("unknown item = %d %s", status, body)
		}
		status, body = e.raw(t, "GET", "/api/v5/spaces/not-a-uuid/items/d-abcdef", "")
		if status != 400 {
			t.Errorf("bad space id = %d %s", status, body)
		}
	})
}

// A classic commit (no items) keeps ids by matching the parent's items by
// normalised text; a changed text is a new item and the old one a
// tombstone of the commit.
func TestClassicCommitMatchesItemsByText(t *testing.T) {
	e := newEnv(t)
	sp, se := e.spaceSession(t)
	first := e.commitDecisions(t, sp, se, "One", "Use Go", "Keep the API")
	a := storetest.Get(e.c.CheckpointItems(bg, first.ID)).Must(t)
	second := e.commitDecisions(t, sp, se, "Two", "use go!", "Ship weekly")
	b := storetest.Get(e.c.CheckpointItems(bg, second.ID)).Must(t)
	goA, keep := itemByText(t, a, "Use Go"), itemByText(t, a, "Keep the API")
	goB, ship := itemByText(t, b, "use go!"), itemByText(t, b, "Ship weekly")
	if goB.ID != goA.ID || goB.Change == nil || goB.Change.Op != "update" {
		t.Errorf("reworded item = %+v, want id %s updated", goB, goA.ID)
	}
	if ship.ID == keep.ID || ship.Change == nil || ship.Change.Op != "add" || ship.Origin.CheckpointID == nil || *ship.Origin.CheckpointID != second.ID {
		t.Errorf("new item = %+v", ship)
	}
	gone := itemByText(t, b, "Keep the API")
	if gone.ID != keep.ID || gone.Status != "retracted" {
		t.Errorf("dropped item = %+v, want a retracted tombstone", gone)
	}
	if len(b) != 3 {
		t.Errorf("items = %+v", b)
	}
	status, body := e.raw(t, "POST", "/api/v4/chat/commit", `{"repo_id": "`+sp.ID.String()+`", "session_id": "`+se.ID.String()+`", "message": "x", "items": [{"kind": "mood", "text": "x"}]}`)
	if status != 422 || !strings.Contains(body, `items[0]: kind must be decision, assumption, task, open_question or entity`) {
		t.Errorf("bad item kind = %d %s", status, body)
	}
	status, body = e.raw(t, "POST", "/api/v4/chat/commit", `{"repo_id": "`+sp.ID.String()+`", "session_id": "`+se.ID.String()+`", "message": "x", "items": [{"id": "zz", "kind": "decision", "text": "x"}]}`)
	if status != 422 || !strings.Contains(body, `items[0].id \"zz\" is not an item id`) {
		t.Errorf("bad item id = %d %s", status, body)
	}
}

// Review compares a checkpoint with its parent: a carried decision that a
// new one contradicts is found by the offline mock too.
func TestReviewAcrossCheckpointsFindsACarriedContradiction(t *testing.T) {
	e := newEnv(t)
	sp, se := e.spaceSession(t)
	e.commitDecisions(t, sp, se, "Auth", "Access token TTL is 15 minutes")
	child := e.commitDecisions(t, sp, se, "Auth again", "Access token TTL is 15 minutes", "Access token TTL is 5 minutes")
	r := storetest.Get(e.c.Review(bg, child.ID)).Must(t)
	want := intelligence.ReviewIssue{Type: intelligence.IssueContradiction,
		Description: `The decision "Access token TTL is 15 minutes", carried from the parent checkpoint, is contradicted by the new decision "Access token TTL is 5 minutes".`}
	if len(r.Issues) == 0 || r.Issues[0] != want {
		t.Errorf("issues = %+v, want first %+v", r.Issues, want)
	}
	if len(r.Suggestions) == 0 || !strings.HasPrefix(r.Suggestions[len(r.Suggestions)-1], "Offline mock review") {
		t.Errorf("suggestions = %q, want the mock to say it is the mock", r.Suggestions)
	}
}

// What the model was given is stored with each assistant turn and can be
// read back by the turn's id.
func TestTurnContextIsRecordedWithTheReply(t *testing.T) {
	e := newEnv(t)
	sp, se := e.spaceSession(t)
	cp := e.commitDecisions(t, sp, se, "Base", "Use Go")
	r := storetest.Get(e.c.Send(bg, wire.SendRequest{SessionID: strp(se.ID.String()), Message: strp("What next?"), UseMock: true}, "")).Must(t)
	status, body := e.raw(t, "GET", "/api/v5/turns/"+r.AssistantTurnID.String()+"/context", "")
	want := `"mode":"HEAD","checkpoint_ids":["` + cp.ID.String() + `"],"checkpoint_hashes":["` + cp.CommitHash + `"],"from_seq":null,"to_seq":null,"dropped_turns":0`
	if status != 200 || !strings.Contains(body, want) {
		t.Errorf("context = %d %s, want %s", status, body, want)
	}
	status, body = e.raw(t, "GET", "/api/v5/turns/"+r.UserTurnID.String()+"/context", "")
	if status != 404 || !strings.Contains(body, "is a user turn; only assistant turns record the context") {
		t.Errorf("user turn = %d %s", status, body)
	}
	if status, _ = e.raw(t, "GET", "/api/v5/turns/"+smriti.NewID().String()+"/context", ""); status != 404 {
		t.Errorf("unknown turn = %d", status)
	}
}

// Two sessions saving in turn over HTTP: B saves onto the checkpoint A
// drafted on; A's save names its base and is rebased (B's item kept,
// rebased_from set, parent the head); a change of the same item is a 409
// with the conflicts, the head and the base as top-level fields.
func TestSavesInTurnAreRebasedOrConflict(t *testing.T) {
	e := newEnv(t)
	sp, a := e.spaceSession(t)
	b := storetest.Get(e.c.CreateSession(bg, &sp.ID, "B", "", "")).Must(t)
	commit := func(session smriti.ID, base *smriti.ID, title string, decisions ...string) (*wire.Commit, error) {
		req := wire.CommitRequest{RepoID: strp(sp.ID.String()), SessionID: strp(session.String()),
			ContentFields: wire.ContentFields{Message: strp(title), Decisions: decisions}}
		if base != nil {
			req.BaseCheckpointID = strp(base.String())
		}
		return e.c.Commit(bg, req)
	}
	c1 := storetest.Get(commit(a.ID, nil, "C1", "Pricing is per-seat at $12", "Use Go")).Must(t)
	c2 := storetest.Get(commit(b.ID, &c1.ID, "C2", "Pricing is per-seat at $12", "Use Go", "Budget is 40k")).Must(t)
	if c2.RebasedFrom != nil {
		t.Fatalf("a commit onto its base: rebased_from %v", c2.RebasedFrom)
	}
	c3 := storetest.Get(commit(a.ID, &c1.ID, "A", "Pricing is per-seat at $12", "Use Go", "Deploy with systemd")).Must(t)
	if c3.RebasedFrom == nil || *c3.RebasedFrom != c1.ID || *c3.ParentCommitID != c2.ID ||
		strings.Join(c3.Decisions, "|") != "Pricing is per-seat at $12|Use Go|Budget is 40k|Deploy with systemd" {
		t.Fatalf("rebased commit %+v", c3)
	}
	price := itemByText(t, storetest.Get(e.c.CheckpointItems(bg, c1.ID)).Must(t), "Pricing is per-seat at $12").ID
	storetest.Get(commit(b.ID, &c3.ID, "B2", "Pricing is per-seat at $14", "Use Go", "Budget is 40k", "Deploy with systemd")).Must(t)
	_, err := commit(a.ID, &c3.ID, "A2", "Pricing is per-seat at $10", "Use Go", "Budget is 40k", "Deploy with systemd")
	cc, ok := smriti.ErrorData(err).(*smriti.CommitConflict)
	if smriti.ErrorCode(err) != smriti.ECONFLICT || !ok || cc.BaseCheckpointID != c3.ID || len(cc.Conflicts) != 1 || cc.Conflicts[0].Key != price ||
		cc.Conflicts[0].Ours != "Pricing is per-seat at $14" || cc.Conflicts[0].Theirs != "Pricing is per-seat at $10" || !strings.Contains(cc.Message, "resolutions") {
		t.Fatalf("err %v data %+v, want a 409 on %s", err, smriti.ErrorData(err), price)
	}
}

// Returning to an older session proposes nothing it already saved, even
// after another session changed those items on the branch: the draft
// stands on the branch head and reads only turns no checkpoint accounts for.
func TestReturningToAnOlderSessionProposesNothingSettled(t *testing.T) {
	e := newEnv(t)
	sp, s1 := e.spaceSession(t)
	e.exchange(t, s1.ID, "We decided to cache sessions in Redis.", "OK.")
	e.exchange(t, s1.ID, "We decided to deploy on Fridays after review.", "OK.")
	d1, c1 := e.draftAndSave(t, sp, s1.ID)
	if strings.Join(d1.Decisions, "|") != "Cache sessions in Redis|Deploy on Fridays after review" {
		t.Fatalf("first draft decisions %q", d1.Decisions)
	}
	// S2 retracts the first and rewrites the second, as a classic client
	// would (text only).
	s2 := storetest.Get(e.c.CreateSession(bg, &sp.ID, "S2", "", "")).Must(t)
	c2 := storetest.Get(e.c.Commit(bg, wire.CommitRequest{RepoID: strp(sp.ID.String()), SessionID: strp(s2.ID.String()),
		ContentFields: wire.ContentFields{Message: strp("S2"), Decisions: []string{"Deploy on Thursdays after review"}},
		ItemFields:    wire.ItemFields{BaseCheckpointID: strp(c1.ID.String())}})).Must(t)
	deploy := itemByText(t, storetest.Get(e.c.CheckpointItems(bg, c1.ID)).Must(t), "Deploy on Fridays after review").ID
	if got := itemByText(t, storetest.Get(e.c.CheckpointItems(bg, c2.ID)).Must(t), "Deploy on Thursdays after review").ID; got != deploy {
		t.Fatalf("the rewritten decision is %s, want %s kept", got, deploy)
	}
	// Back in S1: nothing new was said, so nothing is proposed.
	d := storetest.Get(e.c.Draft(bg, draftOf(s1.ID))).Must(t)
	if d.SourceTurns != nil || d.Chunks != 0 || len(d.Changes) != 0 || strings.Join(d.Decisions, "|") != "Deploy on Thursdays after review" ||
		d.BaseCheckpointID == nil || *d.BaseCheckpointID != c2.ID {
		t.Fatalf("S1's draft after S2: source %+v chunks %d changes %+v decisions %q base %v", d.SourceTurns, d.Chunks, d.Changes, d.Decisions, d.BaseCheckpointID)
	}
	// A new S1 turn is read alone, onto S2's state.
	e.exchange(t, s1.ID, "We decided to add a health endpoint.", "OK.")
	d = storetest.Get(e.c.Draft(bg, draftOf(s1.ID))).Must(t)
	if d.SourceTurns == nil || d.SourceTurns.FromSeq != 4 || d.SourceTurns.ToSeq != 5 ||
		strings.Join(d.Decisions, "|") != "Deploy on Thursdays after review|Add a health endpoint" || len(d.Changes) != 1 || d.Changes[0].Op != "add" {
		t.Fatalf("S1's draft of a new turn: source %+v decisions %q changes %+v", d.SourceTurns, d.Decisions, d.Changes)
	}
	// A checkpoint saved with text only (no source turns) accounts for the
	// turns its session had written before it.
	e.exchange(t, s2.ID, "We decided to log in JSON.", "OK.")
	storetest.Get(e.c.Commit(bg, wire.CommitRequest{RepoID: strp(sp.ID.String()), SessionID: strp(s2.ID.String()),
		ContentFields: wire.ContentFields{Message: strp("S2 again"), Decisions: []string{"Deploy on Thursdays after review", "Log in JSON"}}})).Must(t)
	d = storetest.Get(e.c.Draft(bg, draftOf(s2.ID))).Must(t)
	if d.SourceTurns != nil || len(d.Changes) != 0 {
		t.Fatalf("S2's draft after a text-only save: source %+v changes %+v", d.SourceTurns, d.Changes)
	}
}

// A range longer than one model call holds is drafted in chunks, each onto
// the state the previous ones left, and nothing in it is dropped: 70
// decisions in 140 turns (more than one reply's 50 adds of a kind) all
// land; after saving, only the new turns are read.
func TestLongRangeIsDraftedInChunksLosingNothing(t *testing.T) {
	e := newEnv(t)
	sp, se := e.spaceSession(t)
	name := func(k int) string { return fmt.Sprintf("%c%c", 'a'+k%26, 'a'+k/26%26) }
	for k := range 69 {
		e.exchange(t, se.ID, fmt.Sprintf("We decided to ship the %s service behind its own flag.", name(k)), "Noted.")
	}
	e.exchange(t, se.ID, "Decision: access token TTL is 15 minutes.", "OK.")
	d := storetest.Get(e.c.Draft(bg, draftOf(se.ID))).Must(t)
	if d.Chunks != 3 || d.SourceTurns.FromSeq != 0 || d.SourceTurns.ToSeq != 139 || len(d.Decisions) != 70 {
		t.Fatalf("chunks %d source %+v: %d decisions %q", d.Chunks, d.SourceTurns, len(d.Decisions), d.Decisions)
	}
	_, c := e.draftAndSave(t, sp, se.ID)
	ttl := itemByText(t, storetest.Get(e.c.CheckpointItems(bg, c.ID)).Must(t), "Access token TTL is 15 minutes").ID
	// After the save only the new turns are read.
	e.exchange(t, se.ID, "Decision: access token TTL is 30 minutes.", "OK.")
	d = storetest.Get(e.c.Draft(bg, draftOf(se.ID))).Must(t)
	if d.Chunks != 1 || d.SourceTurns.FromSeq != 140 || len(d.Changes) != 1 || d.Changes[0].Op != "update" || d.Changes[0].ID != ttl {
		t.Fatalf("chunks %d source %+v changes %+v, want one update of %s", d.Chunks, d.SourceTurns, d.Changes, ttl)
	}
}
