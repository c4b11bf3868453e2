package httpapi_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"smriti"
	"smriti/client"
	"smriti/internal/textutil"
	"smriti/wire"
)

// Copies of one space (SPEC §3): a team server on PostgreSQL and laptops
// on SQLite, each a real server on 127.0.0.1, talking to each other over
// HTTP through the same client the CLI uses.

// commitState writes a checkpoint on main holding exactly decisions, each
// item named in ids keeping that id.
func commitState(t *testing.T, e *testEnv, space smriti.ID, title string, decisions []string, ids map[string]string) *wire.Commit {
	t.Helper()
	req := wire.SpaceCommitRequest{ContentFields: wire.ContentFields{Message: strp(title), Decisions: decisions}}
	for text, id := range ids {
		req.Items = append(req.Items, wire.ItemIn{ID: id, Kind: "decision", Text: text})
	}
	c, err := e.c.CommitToSpace(bg, space, req)
	if err != nil {
		t.Fatalf("commit %q: %v", title, err)
	}
	return c
}

// liveDecisions are main's head's live decision items, id → text.
func liveDecisions(t *testing.T, e *testEnv, space smriti.ID) (map[string]string, *wire.Commit) {
	t.Helper()
	head, err := e.c.LatestCheckpoint(bg, space, "main")
	if err != nil {
		t.Fatal(err)
	}
	items, err := e.c.CheckpointItems(bg, head.ID)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, it := range items {
		if it.Kind == "decision" && (it.Status == "open" || it.Status == "done") {
			if _, dup := out[it.ID]; dup {
				t.Fatalf("item %s twice in %s", it.ID, head.ID)
			}
			out[it.ID] = it.Text
		}
	}
	return out, head
}

func itemID(t *testing.T, e *testEnv, space smriti.ID, text string) string {
	t.Helper()
	live, _ := liveDecisions(t, e, space)
	for id, tx := range live {
		if tx == text {
			return id
		}
	}
	t.Fatalf("no live decision %q in %v", text, live)
	return ""
}

func verifyHead(t *testing.T, e *testEnv, space smriti.ID) {
	t.Helper()
	head, err := e.c.LatestCheckpoint(bg, space, "main")
	if err != nil {
		t.Fatal(err)
	}
	v, err := e.c.Verify(bg, head.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !v.OK {
		t.Fatalf("verify %s on %s: %+v", head.ID, e.url, v)
	}
}

func clone(t *testing.T, to, from *testEnv, space smriti.ID) {
	t.Helper()
	id := space.String()
	out, err := to.c.Clone(bg, wire.CloneRequest{URL: from.url, SpaceID: &id})
	if err != nil {
		t.Fatalf("clone: %v", err)
	}
	if out.Repo.ID != space || out.Remote.Name != "origin" || len(out.Remote.Heads) != 1 {
		t.Fatalf("clone answered %+v", out)
	}
}

// TestSyncTwoClonesStory: two laptops clone a team server, make disjoint
// changes plus one change to the same item; the second push is refused
// naming both heads, its pull leaves exactly one conflict on that item's
// id as a proposal, and once it is resolved and pushed the first laptop
// fast-forwards: three equal heads, every item once, every id kept.
func TestSyncTwoClonesStory(t *testing.T) {
	team := newEnv(t, withPostgres())
	a, b := newEnv(t), newEnv(t)
	sp, err := team.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: strp("plans")})
	if err != nil {
		t.Fatal(err)
	}
	space := sp.ID
	commitState(t, team, space, "start", []string{"Use PostgreSQL", "Ship weekly", "Keep the API stable"}, nil)
	clone(t, a, team, space)
	clone(t, b, team, space)
	verifyHead(t, a, space)

	shared := itemID(t, a, space, "Ship weekly")
	if got := itemID(t, b, space, "Ship weekly"); got != shared {
		t.Fatalf("clones disagree on the item id: %s vs %s", shared, got)
	}
	commitState(t, a, space, "laptop A", []string{"Use PostgreSQL", "Ship every Tuesday", "Keep the API stable", "Add a cache"},
		map[string]string{"Ship every Tuesday": shared})
	commitState(t, b, space, "laptop B", []string{"Use PostgreSQL", "Ship every Friday", "Keep the API stable", "Write the runbook"},
		map[string]string{"Ship every Friday": shared})

	pa, err := a.c.Push(bg, space, "origin", wire.PushRequest{})
	if err != nil || pa.Outcome != "pushed" || pa.Stored.Checkpoints != 1 {
		t.Fatalf("A's push = %+v, %v; want pushed with 1 checkpoint", pa, err)
	}
	_, err = b.c.Push(bg, space, "origin", wire.PushRequest{})
	wantCode(t, err, smriti.ECONFLICT)
	if msg := err.Error(); !strings.Contains(msg, textutil.ShortHash(pa.NewHead)) || !strings.Contains(msg, "smriti pull origin") {
		t.Fatalf("refused push says %q; want A's head %s and the pull to run", msg, textutil.ShortHash(pa.NewHead))
	}

	pull, err := b.c.Pull(bg, space, "origin", wire.PullRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if pull.Outcome != "merged_with_proposal" || len(pull.Conflicts) != 1 || pull.Conflicts[0].Key != shared || pull.Proposal == nil {
		t.Fatalf("pull = outcome %q, conflicts %+v, proposal %v; want one conflict on %s in a proposal", pull.Outcome, pull.Conflicts, pull.Proposal != nil, shared)
	}
	if len(pull.Proposal.Conflicts) != 1 || pull.Proposal.Conflicts[0].Key != shared {
		t.Fatalf("proposal conflicts = %+v", pull.Proposal.Conflicts)
	}
	live, _ := liveDecisions(t, b, space)
	if live[shared] != "Ship every Friday" {
		t.Fatalf("the pull overwrote B's side: %q", live[shared])
	}
	// B takes A's side.
	if _, err := b.c.AcceptProposal(bg, space, pull.Proposal.ID, nil); err != nil {
		t.Fatal(err)
	}
	if pb, err := b.c.Push(bg, space, "origin", wire.PushRequest{}); err != nil || pb.Outcome != "pushed" {
		t.Fatalf("B's second push = %+v, %v", pb, err)
	}
	pa2, err := a.c.Pull(bg, space, "origin", wire.PullRequest{})
	if err != nil || pa2.Outcome != "fast_forward" {
		t.Fatalf("A's pull = %+v, %v; want fast_forward", pa2, err)
	}

	want := map[string]bool{"Use PostgreSQL": true, "Ship every Tuesday": true, "Keep the API stable": true, "Add a cache": true, "Write the runbook": true}
	var heads []string
	for _, e := range []*testEnv{team, a, b} {
		live, head := liveDecisions(t, e, space)
		heads = append(heads, head.CommitHash)
		var texts []string
		for _, tx := range live {
			texts = append(texts, tx)
		}
		sort.Strings(texts)
		if len(texts) != len(want) {
			t.Fatalf("%s holds %v; want %v", e.url, texts, want)
		}
		for _, tx := range texts {
			if !want[tx] {
				t.Fatalf("%s holds %v; want %v", e.url, texts, want)
			}
		}
		if live[shared] != "Ship every Tuesday" {
			t.Fatalf("%s: the shared item lost its id: %v", e.url, live)
		}
		verifyHead(t, e, space)
	}
	if heads[0] != heads[1] || heads[1] != heads[2] {
		t.Fatalf("heads differ: %v", heads)
	}
}

// TestSyncFetchMovesOnlyTrackingHeads: a fetch stores what the team
// pushed without moving the local main; the remote says "behind"; a
// second fetch writes nothing; the pull fast-forwards.
func TestSyncFetchMovesOnlyTrackingHeads(t *testing.T) {
	team, a, b := newEnv(t), newEnv(t), newEnv(t)
	sp, err := team.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: strp("notes")})
	if err != nil {
		t.Fatal(err)
	}
	commitState(t, team, sp.ID, "one", []string{"First"}, nil)
	clone(t, a, team, sp.ID)
	clone(t, b, team, sp.ID)
	commitState(t, a, sp.ID, "two", []string{"First", "Second"}, nil)
	if r, err := a.c.Remote(bg, sp.ID, "origin"); err != nil || len(r.Divergence) != 1 || r.Divergence[0].Ahead != 1 || r.Divergence[0].Behind != 0 ||
		!strings.HasPrefix(r.Divergence[0].Description, "main is 1 ahead of origin/main (fetched ") {
		t.Fatalf("before the push A's remote = %+v, %v; want main 1 ahead", r, err)
	}
	if _, err := a.c.Push(bg, sp.ID, "origin", wire.PushRequest{}); err != nil {
		t.Fatal(err)
	}
	_, before := liveDecisions(t, b, sp.ID)
	f, err := b.c.Fetch(bg, sp.ID, "origin")
	if err != nil {
		t.Fatal(err)
	}
	if f.Staged.Checkpoints != 1 || len(f.Divergence) != 1 || f.Divergence[0].Behind != 1 || f.Divergence[0].Ahead != 0 {
		t.Fatalf("fetch = %+v", f)
	}
	if d := f.Divergence[0].Description; !strings.HasPrefix(d, "main is behind origin/main by 1") {
		t.Fatalf("divergence reads %q", d)
	}
	brief, err := b.c.Brief(bg, sp.ID, client.BriefOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(brief, "## Other copies\n- main is behind origin/main by 1 (fetched just now); run `smriti pull origin`\n") {
		t.Fatalf("the brief does not say main is behind:\n%s", brief)
	}
	st, err := b.c.State(bg, sp.ID, client.StateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Remotes) != 1 || st.Remotes[0].Behind != 1 || st.Remotes[0].Ahead != 0 || st.Remotes[0].Remote != "origin" {
		t.Fatalf("state remotes = %+v", st.Remotes)
	}
	_, after := liveDecisions(t, b, sp.ID)
	if after.ID != before.ID {
		t.Fatalf("the fetch moved main from %s to %s", before.ID, after.ID)
	}
	again, err := b.c.Fetch(bg, sp.ID, "origin")
	if err != nil || again.Staged.Checkpoints+again.Staged.Sessions+again.Staged.Turns != 0 {
		t.Fatalf("second fetch = %+v, %v; want nothing new", again, err)
	}
	pull, err := b.c.Pull(bg, sp.ID, "origin", wire.PullRequest{NoFetch: true})
	if err != nil || pull.Outcome != "fast_forward" || pull.Head == nil || pull.Head.CommitHash != f.Heads[0].CommitHash {
		t.Fatalf("pull = %+v, %v", pull, err)
	}
	live, _ := liveDecisions(t, b, sp.ID)
	if !slices.Contains(mapValues(live), "Second") {
		t.Fatalf("after the pull main holds %v", live)
	}
}

func mapValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// TestSyncPushPropose: push --propose leaves the laptop's state as a
// pending proposal on the team server and moves nothing there; accepted,
// the team's main holds the laptop's items with their ids; the laptop's
// pull then merges without a conflict.
func TestSyncPushPropose(t *testing.T) {
	team, laptop := newEnv(t, withPostgres()), newEnv(t)
	sp, err := team.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: strp("review")})
	if err != nil {
		t.Fatal(err)
	}
	commitState(t, team, sp.ID, "start", []string{"Use PostgreSQL", "Ship weekly"}, nil)
	clone(t, laptop, team, sp.ID)
	shared := itemID(t, laptop, sp.ID, "Ship weekly")
	commitState(t, laptop, sp.ID, "mine", []string{"Use PostgreSQL", "Ship every Tuesday", "Add a cache"}, map[string]string{"Ship every Tuesday": shared})
	_, before := liveDecisions(t, team, sp.ID)
	out, err := laptop.c.Push(bg, sp.ID, "origin", wire.PushRequest{Propose: true})
	if err != nil || out.Outcome != "proposed" || out.ProposalID == nil {
		t.Fatalf("push --propose = %+v, %v", out, err)
	}
	if _, after := liveDecisions(t, team, sp.ID); after.ID != before.ID {
		t.Fatal("push --propose moved the team's main")
	}
	p, err := team.c.Proposal(bg, sp.ID, *out.ProposalID)
	if err != nil || p.Status != "pending" || p.BaseCheckpointID == nil || *p.BaseCheckpointID != before.ID {
		t.Fatalf("the team's proposal = %+v, %v; want pending on %s", p, err, before.ID)
	}
	if _, err := team.c.AcceptProposal(bg, sp.ID, p.ID, nil); err != nil {
		t.Fatal(err)
	}
	live, _ := liveDecisions(t, team, sp.ID)
	if live[shared] != "Ship every Tuesday" || len(live) != 3 {
		t.Fatalf("after accepting, the team holds %v", live)
	}
	pull, err := laptop.c.Pull(bg, sp.ID, "origin", wire.PullRequest{OnConflict: "fail"})
	if err != nil || len(pull.Conflicts) != 0 {
		t.Fatalf("the laptop's pull = %+v, %v", pull, err)
	}
	mine, _ := liveDecisions(t, laptop, sp.ID)
	if mine[shared] != "Ship every Tuesday" || len(mine) != 3 {
		t.Fatalf("the laptop holds %v", mine)
	}
}

// TestSyncBackgroundFetchSaysBehind: with the background fetch running,
// a push from another copy shows in this copy's state as "behind
// origin/main by 1" without any command, and no local branch moves.
func TestSyncBackgroundFetchSaysBehind(t *testing.T) {
	team, a, b := newEnv(t), newEnv(t), newEnv(t)
	sp, err := team.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: strp("watch")})
	if err != nil {
		t.Fatal(err)
	}
	commitState(t, team, sp.ID, "start", []string{"Start"}, nil)
	clone(t, a, team, sp.ID)
	clone(t, b, team, sp.ID)
	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	go b.app.FetchEvery(ctx, 20*time.Millisecond, nil)
	_, before := liveDecisions(t, b, sp.ID)
	commitState(t, a, sp.ID, "more", []string{"Start", "More"}, nil)
	if _, err := a.c.Push(bg, sp.ID, "origin", wire.PushRequest{}); err != nil {
		t.Fatal(err)
	}
	// Wait on the state, not on time: the fetch runs every 20 ms.
	var st *wire.SpaceState
	for i := 0; i < 3000; i++ {
		if st, err = b.c.State(bg, sp.ID, client.StateOptions{}); err != nil {
			t.Fatal(err)
		}
		if len(st.Remotes) == 1 && st.Remotes[0].Behind == 1 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(st.Remotes) != 1 || st.Remotes[0].Behind != 1 || !strings.HasPrefix(st.Remotes[0].Description, "main is behind origin/main by 1") {
		t.Fatalf("state remotes = %+v; want behind by 1", st.Remotes)
	}
	if _, after := liveDecisions(t, b, sp.ID); after.ID != before.ID {
		t.Fatal("the background fetch moved main")
	}
}

// TestSyncCloneRefusesTamperedOrCutBundle: a clone counts the bundle as it
// downloads it and checks each record as it writes it. A bundle with one checkpoint's
// text changed is refused naming that checkpoint, one cut off midway is
// refused as cut off; neither leaves anything of the space behind, and a
// clone from the sound remote then completes and verifies.
func TestSyncCloneRefusesTamperedOrCutBundle(t *testing.T) {
	team, laptop := newEnv(t), newEnv(t)
	sp, err := team.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: strp("clone faults")})
	if err != nil {
		t.Fatal(err)
	}
	commitState(t, team, sp.ID, "one", []string{"Alpha"}, nil)
	c2 := commitState(t, team, sp.ID, "two", []string{"Alpha", "Bravo"}, nil)
	commitState(t, team, sp.ID, "three", []string{"Alpha", "Bravo", "Charlie"}, nil)
	proxy, url := newSyncProxy(t, team.url)
	id := sp.ID.String()
	nothingCloned := func(t *testing.T) {
		t.Helper()
		_, err := laptop.c.Space(bg, sp.ID)
		wantCode(t, err, smriti.ENOTFOUND)
	}

	t.Run("TamperedCheckpointIsNamed", func(t *testing.T) {
		proxy.tamper = func(b []byte) []byte { return bytes.Replace(b, []byte(`"Bravo"`), []byte(`"Bravp"`), 1) }
		_, err := laptop.c.Clone(bg, wire.CloneRequest{URL: url, SpaceID: &id})
		wantCode(t, err, smriti.EUNPROCESSABLE)
		if want := "checkpoint " + c2.ID.String() + " "; !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "does not verify") {
			t.Fatalf("the refusal %q does not say checkpoint %s does not verify", err, c2.ID)
		}
		nothingCloned(t)
	})
	for _, n := range []int{40, 200, 600} {
		t.Run(fmt.Sprintf("CutAfter%dBytes", n), func(t *testing.T) {
			proxy.cutFetch = n
			_, err := laptop.c.Clone(bg, wire.CloneRequest{URL: url, SpaceID: &id})
			wantCode(t, err, smriti.EINVALID)
			if !strings.Contains(err.Error(), "cut off") {
				t.Fatalf("the refusal %q does not say the transfer was cut off", err)
			}
			nothingCloned(t)
		})
	}
	t.Run("SoundRemoteClones", func(t *testing.T) {
		if _, err := laptop.c.Clone(bg, wire.CloneRequest{URL: url, SpaceID: &id}); err != nil {
			t.Fatal(err)
		}
		live, head := liveDecisions(t, laptop, sp.ID)
		got := mapValues(live)
		sort.Strings(got)
		if !slices.Equal(got, []string{"Alpha", "Bravo", "Charlie"}) || head.Message != "three" {
			t.Fatalf("the clone's main is %q holding %v; want three holding Alpha, Bravo, Charlie", head.Message, got)
		}
		verifyHead(t, laptop, sp.ID)
	})
}
