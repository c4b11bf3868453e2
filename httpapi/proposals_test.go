package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"smriti"
	"smriti/client"
	"smriti/store/storetest"
	"smriti/wire"
)

// proposalsOf is the proposals path of a space.
func proposalsOf(space smriti.ID) string { return "/api/v5/spaces/" + space.String() + "/proposals" }

// saveProposal posts a proposal and returns it (201 expected).
func saveProposal(t *testing.T, e *testEnv, space, session smriti.ID, title string, decisions ...string) wire.ProposalOut {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"session_id": session, "source": "hook", "message": title, "decisions": decisions})
	status, out := e.raw(t, "POST", proposalsOf(space), string(body))
	if status != http.StatusCreated {
		t.Fatalf("save proposal: %d %s", status, out)
	}
	var p wire.ProposalOut
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// A proposal waits on the server: saved against the branch head, listed,
// shown, edited, accepted once into a checkpoint on its base; a second
// accept, an edit or a reject of an accepted one is 409.
func TestProposalLifecycle(t *testing.T) {
	e := newEnv(t)
	sp, se := e.spaceSession(t)
	base := commitVia(t, e, sp.ID, se.ID, "Base", "Use SQLite")
	p := saveProposal(t, e, sp.ID, se.ID, "Weekly releases", "Use SQLite", "Ship weekly")
	ts := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	want := fmt.Sprintf(`{"id":"%s","repo_id":"%s","session_id":"%s","base_checkpoint_id":"%s","branch_name":"main","title":"Weekly releases",`+
		`"source":"hook","status":"pending","objective":"","summary":"","decisions":["Use SQLite","Ship weekly"],"assumptions":[],"tasks":[],`+
		`"open_questions":[],"entities":[],"artifacts":[],"items":[],"model":null,"author_agent":null,"author_type":"","project_root":null,`+
		`"source_turns":null,"git":null,"checkpoint_id":null,"created_at":%s,"updated_at":%s,"decided_at":null,"conflicts":[]}`+"\n",
		p.ID, sp.ID, se.ID, base.ID, ts(p.CreatedAt), ts(p.UpdatedAt))
	status, body := e.raw(t, "GET", proposalsOf(sp.ID)+"/"+p.ID.String(), "")
	if status != 200 || body != want {
		t.Fatalf("GET proposal = %d\n%s\nwant\n%s", status, body, want)
	}
	if status, body := e.raw(t, "GET", proposalsOf(sp.ID)+"?status=pending", ""); status != 200 || body != "["+strings.TrimSuffix(want, "\n")+"]\n" {
		t.Fatalf("GET pending = %d %s", status, body)
	}
	if status, body := e.raw(t, "GET", proposalsOf(sp.ID)+"?status=accepted", ""); status != 200 || body != "[]\n" {
		t.Fatalf("GET accepted = %d %s", status, body)
	}
	edited := storetest.Get(e.c.EditProposal(bg, sp.ID, p.ID, wire.ProposalEditRequest{Summary: strp("Releases every Friday"),
		Decisions: &[]string{"Use SQLite", "Ship every Friday"}})).Must(t)
	if edited.Summary != "Releases every Friday" || strings.Join(edited.Decisions, "|") != "Use SQLite|Ship every Friday" || edited.Title != "Weekly releases" {
		t.Fatalf("edited = %+v", edited)
	}
	acc := storetest.Get(e.c.AcceptProposal(bg, sp.ID, p.ID, nil)).Must(t)
	cp := acc.Checkpoint
	if acc.Proposal.Status != "accepted" || acc.Proposal.CheckpointID == nil || *acc.Proposal.CheckpointID != cp.ID || acc.Proposal.DecidedAt == nil ||
		cp.ParentCommitID == nil || *cp.ParentCommitID != base.ID || cp.RebasedFrom != nil || cp.Message != "Weekly releases" ||
		strings.Join(cp.Decisions, "|") != "Use SQLite|Ship every Friday" || cp.Summary != "Releases every Friday" {
		t.Fatalf("accepted = %+v / %+v", acc.Proposal, cp)
	}
	again := fmt.Sprintf(`{"detail":"Proposal %s is already accepted"}`+"\n", p.ID)
	for _, path := range []string{"/accept", "/reject"} {
		if status, body := e.raw(t, "POST", proposalsOf(sp.ID)+"/"+p.ID.String()+path, "{}"); status != 409 || body != again {
			t.Fatalf("POST %s twice = %d %s", path, status, body)
		}
	}
	if status, body := e.raw(t, "PATCH", proposalsOf(sp.ID)+"/"+p.ID.String(), `{"summary":"late"}`); status != 409 ||
		body != fmt.Sprintf(`{"detail":"Proposal %s is accepted; only a pending proposal can be edited"}`+"\n", p.ID) {
		t.Fatalf("PATCH accepted = %d %s", status, body)
	}
	// Exactly one checkpoint was written.
	if cps := storetest.Get(e.c.Checkpoints(bg, sp.ID, "")).Must(t); len(cps) != 2 {
		t.Fatalf("%d checkpoints, want 2", len(cps))
	}
	no := saveProposal(t, e, sp.ID, se.ID, "Not this", "Use MySQL")
	rej := storetest.Get(e.c.RejectProposal(bg, sp.ID, no.ID)).Must(t)
	if rej.Status != "rejected" || rej.CheckpointID != nil || rej.DecidedAt == nil {
		t.Fatalf("rejected = %+v", rej)
	}
}

// Bad input: unknown ids are 404, wrong types and bad values 422, a
// malformed id 400, a proposal named under another space 404.
func TestProposalRefusals(t *testing.T) {
	e := newEnv(t)
	sp, se := e.spaceSession(t)
	other, ose := e.spaceSession(t)
	commitVia(t, e, sp.ID, se.ID, "Base", "Use SQLite")
	p := saveProposal(t, e, sp.ID, se.ID, "Mine", "Use SQLite", "Ship weekly")
	unknown := smriti.NewID()
	for _, c := range []struct {
		method, path, body string
		status             int
		detail             string
	}{
		{"GET", proposalsOf(sp.ID) + "/" + unknown.String(), "", 404, `"Proposal not found"`},
		{"POST", proposalsOf(sp.ID) + "/" + unknown.String() + "/accept", "{}", 404, `"Proposal not found"`},
		{"POST", proposalsOf(sp.ID) + "/" + p.ID.String() + "/accept", "", 400, `"request body is empty; send a JSON object"`},
		{"POST", proposalsOf(sp.ID) + "/" + unknown.String() + "/reject", "", 404, `"Proposal not found"`},
		{"PATCH", proposalsOf(sp.ID) + "/" + unknown.String(), `{"summary":"x"}`, 404, `"Proposal not found"`},
		{"GET", proposalsOf(other.ID) + "/" + p.ID.String(), "", 404, `"Proposal not found"`},
		{"GET", proposalsOf(unknown), "", 404, `"Space not found"`},
		{"POST", proposalsOf(unknown), `{"message":"x"}`, 404, `"Space not found"`},
		{"GET", proposalsOf(sp.ID) + "?status=maybe", "", 422, `"status must be pending, accepted, rejected or superseded"`},
		{"POST", proposalsOf(sp.ID), `{"message":"x","decisions":"not a list"}`, 422, `"decisions: expected an array of strings, got string"`},
		{"POST", proposalsOf(sp.ID), `{"message":"x","source":"email"}`, 422, `"source must be one of hook, cli, mcp, web, api"`},
		{"POST", proposalsOf(sp.ID), `{"message":"  "}`, 422, `"message is required (the checkpoint's title)"`},
		{"POST", proposalsOf(sp.ID), `{"message":"x","session_id":"` + ose.ID.String() + `"}`, 404, `"session_id: no such session in this space"`},
		{"POST", proposalsOf(sp.ID), `{"message":"x","session_id":"nope"}`, 400, `"session_id: \"nope\" is not a valid UUID"`},
		{"PATCH", proposalsOf(sp.ID) + "/" + p.ID.String(), `{"decisions":7}`, 422, `"decisions: expected an array of strings, got number"`},
		{"PATCH", proposalsOf(sp.ID) + "/" + p.ID.String(), `{"message":""}`, 422, `"message is required (the checkpoint's title)"`},
		{"POST", proposalsOf(sp.ID) + "/" + p.ID.String() + "/accept", `{"resolutions":"all"}`, 422, `"resolutions: expected an array of objects, got string"`},
	} {
		status, body := e.raw(t, c.method, c.path, c.body)
		if status != c.status || body != `{"detail":`+c.detail+"}\n" {
			t.Errorf("%s %s %s = %d %s, want %d %s", c.method, c.path, c.body, status, body, c.status, c.detail)
		}
	}
	// Nothing above changed the proposal.
	if got := storetest.Get(e.c.Proposal(bg, sp.ID, p.ID)).Must(t); got.Status != "pending" || got.Title != "Mine" {
		t.Fatalf("after the refusals: %+v", got)
	}
}

// Accepting a proposal after another session saved: a disjoint change is
// rebased onto the new head; a change of the same item is a 409 with the
// conflicts (the proposal stays pending) until a resolution settles it.
func TestProposalAcceptAfterAnotherSave(t *testing.T) {
	e := newEnv(t)
	sp, a := e.spaceSession(t)
	b := storetest.Get(e.c.CreateSession(bg, &sp.ID, "B", "", "")).Must(t)
	c1 := commitVia(t, e, sp.ID, a.ID, "C1", "Pricing is per-seat at $12", "Use Go")
	p := saveProposal(t, e, sp.ID, a.ID, "Deploy", "Pricing is per-seat at $12", "Use Go", "Deploy with systemd")
	c2 := storetest.Get(e.c.Commit(bg, wire.CommitRequest{RepoID: strp(sp.ID.String()), SessionID: strp(b.ID.String()),
		ContentFields: wire.ContentFields{Message: strp("C2"), Decisions: []string{"Pricing is per-seat at $12", "Use Go", "Budget is 40k"}},
		ItemFields:    wire.ItemFields{BaseCheckpointID: strp(c1.ID.String())}})).Must(t)
	acc := storetest.Get(e.c.AcceptProposal(bg, sp.ID, p.ID, nil)).Must(t).Checkpoint
	if acc.RebasedFrom == nil || *acc.RebasedFrom != c1.ID || *acc.ParentCommitID != c2.ID ||
		strings.Join(acc.Decisions, "|") != "Pricing is per-seat at $12|Use Go|Budget is 40k|Deploy with systemd" {
		t.Fatalf("rebased accept %+v", acc)
	}

	// The same item changed on both sides.
	q := saveProposal(t, e, sp.ID, a.ID, "Cheaper", "Pricing is per-seat at $10", "Use Go", "Budget is 40k", "Deploy with systemd")
	storetest.Get(e.c.Commit(bg, wire.CommitRequest{RepoID: strp(sp.ID.String()), SessionID: strp(b.ID.String()),
		ContentFields: wire.ContentFields{Message: strp("Dearer"), Decisions: []string{"Pricing is per-seat at $14", "Use Go", "Budget is 40k", "Deploy with systemd"}},
		ItemFields:    wire.ItemFields{BaseCheckpointID: strp(acc.ID.String())}})).Must(t)
	status, body := e.raw(t, "POST", proposalsOf(sp.ID)+"/"+q.ID.String()+"/accept", "{}")
	var cc smriti.CommitConflict
	if err := json.Unmarshal([]byte(body), &cc); err != nil || status != 409 || cc.BaseCheckpointID != acc.ID || len(cc.Conflicts) != 1 ||
		cc.Conflicts[0].Ours != "Pricing is per-seat at $14" || cc.Conflicts[0].Theirs != "Pricing is per-seat at $10" || !strings.Contains(cc.Message, "resolutions") {
		t.Fatalf("accept over a conflicting save = %d %s", status, body)
	}
	if got := storetest.Get(e.c.Proposal(bg, sp.ID, q.ID)).Must(t); got.Status != "pending" || got.CheckpointID != nil || got.DecidedAt != nil {
		t.Fatalf("after the 409 the proposal is %+v, want pending", got)
	}
	res := []smriti.MergeResolution{{Field: cc.Conflicts[0].Field, Key: cc.Conflicts[0].Key, Choice: smriti.ChooseTheirs}}
	done := storetest.Get(e.c.AcceptProposal(bg, sp.ID, q.ID, res)).Must(t)
	if done.Proposal.Status != "accepted" || strings.Join(done.Checkpoint.Decisions, "|") != "Pricing is per-seat at $10|Use Go|Budget is 40k|Deploy with systemd" {
		t.Fatalf("resolved accept %+v", done.Checkpoint)
	}
}

// The brief names the waiting proposals and the command that reviews them.
func TestBriefSaysProposalsWait(t *testing.T) {
	e := newEnv(t)
	sp, se := e.spaceSession(t)
	commitVia(t, e, sp.ID, se.ID, "Base", "Use SQLite")
	p := saveProposal(t, e, sp.ID, se.ID, "Weekly releases", "Use SQLite", "Ship weekly")
	md := storetest.Get(e.c.Brief(bg, sp.ID, client.BriefOptions{Compact: true})).Must(t)
	id := p.ID.String()[:8]
	want := "## Waiting for review\n1 proposal waiting (drafts saved for later, not yet checkpoints):\n- `" + id + "` Weekly releases — from hook on `main`, just now\n" +
		"Review: `smriti proposals show " + id + "`; accept: `smriti proposals accept " + id + "`; reject: `smriti proposals reject " + id + "`\n"
	if !strings.Contains(md, want) {
		t.Fatalf("compact brief:\n%s\nwant it to hold\n%s", md, want)
	}
	storetest.Get(e.c.RejectProposal(bg, sp.ID, p.ID)).Must(t)
	if md := storetest.Get(e.c.Brief(bg, sp.ID, client.BriefOptions{Compact: true})).Must(t); strings.Contains(md, "Waiting for review") {
		t.Fatalf("a rejected proposal is still in the brief:\n%s", md)
	}
}

// Two accepts of one proposal at once: the proposal is taken before the
// commit, so exactly one checkpoint is written and the other accept is 409.
func TestConcurrentAcceptsCommitOnce(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) { testConcurrentAccepts(t, newEnv(t)) })
	t.Run("Postgres", func(t *testing.T) { testConcurrentAccepts(t, newEnv(t, withPostgres())) })
}

func testConcurrentAccepts(t *testing.T, e *testEnv) {
	sp, se := e.spaceSession(t)
	commitVia(t, e, sp.ID, se.ID, "Base", "Use SQLite")
	for round := 0; round < 5; round++ {
		p := saveProposal(t, e, sp.ID, se.ID, fmt.Sprintf("Round %d", round), "Use SQLite", fmt.Sprintf("Step %d", round))
		statuses := make(chan int, 2)
		for range 2 {
			go func() {
				// (no t.Fatal off the test's goroutine: a failed request is status 0)
				resp, err := e.http.Post(e.url+proposalsOf(sp.ID)+"/"+p.ID.String()+"/accept", "application/json", strings.NewReader("{}"))
				if err != nil {
					statuses <- 0
					return
				}
				resp.Body.Close()
				statuses <- resp.StatusCode
			}()
		}
		a, b := <-statuses, <-statuses
		if a+b != 201+409 {
			t.Fatalf("round %d: accepts answered %d and %d, want one 201 and one 409", round, a, b)
		}
	}
	if cps := storetest.Get(e.c.Checkpoints(bg, sp.ID, "")).Must(t); len(cps) != 6 {
		t.Fatalf("%d checkpoints, want 6 (the base and one per proposal)", len(cps))
	}
}
