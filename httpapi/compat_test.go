package httpapi_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"smriti"
	"smriti/store/storetest"
	"smriti/wire"
)

// The first implementation's clients, where they read our answers.

// TestProvidersEveryEntryHasTheStatusFields: clients iterate the entries of
// the providers answer and read the status fields from each, "chat"
// included; with nothing configured the chat default is the mock, ready.
func TestProvidersEveryEntryHasTheStatusFields(t *testing.T) {
	e := newEnv(t)
	var all map[string]map[string]any
	if _, err := e.c.Do(bg, "GET", "/api/v4/chat/providers", nil, &all); err != nil {
		t.Fatal(err)
	}
	for name, entry := range all {
		for _, k := range []string{"enabled", "has_key", "missing_package", "configured", "status_label"} {
			if _, ok := entry[k]; !ok {
				t.Errorf("entry %q has no %s: %v", name, k, entry)
			}
		}
	}
	chat, _ := json.Marshal(all["chat"])
	const want = `{"configured":true,"default_model":"mock","default_provider":"mock","enabled":true,"has_key":false,` +
		`"missing_package":false,"status_label":"Ready (the offline mock: no provider is configured)"}`
	if string(chat) != want {
		t.Errorf("chat = %s\nwant   %s", chat, want)
	}
}

// TestUseMockRecordsTheRequestedProvider: a use_mock send is answered by the
// mock but recorded, echoed and kept on the session under the provider and
// model asked for, as the first implementation does (its model-switch test
// then sees the session on the new provider); use_mock holds for that one
// send only.
func TestUseMockRecordsTheRequestedProvider(t *testing.T) {
	e := newEnv(t)
	se := storetest.Get(e.c.CreateSession(bg, nil, "", "mock", "")).Must(t)
	r := wire.SendRequest{SessionID: strp(se.ID.String()), Message: strp("hi"), Provider: "anthropic", Model: "claude-test", UseMock: true}
	res := storetest.Get(e.c.Send(bg, r, "")).Must(t)
	if res.Provider != "anthropic" || res.Model != "claude-test" || res.Reply != `[mock:claude-test] You said: "hi". Context: mode=FRESH checkpoints= turns=0.` {
		t.Fatalf("use_mock send = %s/%s %q", res.Provider, res.Model, res.Reply)
	}
	for _, turn := range storetest.Get(e.c.Turns(bg, se.ID)).Must(t) {
		if turn.Provider != "anthropic" || turn.Model != "claude-test" {
			t.Fatalf("turn %d recorded %s/%s", turn.SequenceNumber, turn.Provider, turn.Model)
		}
	}
	if s := storetest.Get(e.c.Session(bg, se.ID)).Must(t); s.ActiveProvider != "anthropic" || s.ActiveModel != "claude-test" {
		t.Fatalf("session on %s/%s, want anthropic/claude-test", s.ActiveProvider, s.ActiveModel)
	}
	// The next send without use_mock goes to the session's provider, which
	// has no key here.
	st, body := e.raw(t, "POST", "/api/v4/chat/send", `{"session_id": "`+se.ID.String()+`", "message": "again"}`)
	if st != 503 || !strings.Contains(body, "ANTHROPIC_API_KEY") {
		t.Fatalf("send after use_mock = %d %s, want 503 naming ANTHROPIC_API_KEY", st, body)
	}
	// An unknown provider is refused even with use_mock.
	st, body = e.raw(t, "POST", "/api/v4/chat/send", `{"session_id": "`+se.ID.String()+`", "message": "x", "provider": "gemini", "use_mock": true}`)
	if st != 400 || !strings.HasPrefix(body, `{"detail":"Unknown provider \"gemini\"`) {
		t.Fatalf("use_mock with an unknown provider = %d %s", st, body)
	}
}

// TestClaimErrorsAsTheReferenceSays: an unknown worktree is 404 "Worktree
// not found" and an unknown intent 400, with the first implementation's
// messages.
func TestClaimErrorsAsTheReferenceSays(t *testing.T) {
	e := newEnv(t)
	sp := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("Claims"), Description: new("")})).Must(t)
	for _, c := range []struct {
		name, extra string
		status      int
		body        string
	}{
		{"UnknownWorktree", `"worktree_id": "` + smriti.NewID().String() + `"`, 404, `{"detail":"Worktree not found"}`},
		{"UnknownIntent", `"intent_type": "dance"`, 400,
			`{"detail":"Invalid intent_type 'dance'. Must be one of: docs, implement, investigate, review, test"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, body := e.raw(t, "POST", "/api/v5/claims", `{"space_id": "`+sp.ID.String()+`", "agent": "codex", "scope": "docs", `+c.extra+`}`)
			if st != c.status || body != c.body+"\n" {
				t.Fatalf("= %d %s, want %d %s", st, body, c.status, c.body)
			}
		})
	}
}

// TestExplicitNullMountUnmounts: a send naming "mounted_checkpoint_id": null
// and "history_base_seq": null, as the first implementation's UI does once
// the user clears a restored checkpoint, ends the session's mount; leaving
// the fields out keeps it.
func TestExplicitNullMountUnmounts(t *testing.T) {
	e := newEnv(t)
	sp := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("Mounts"), Description: new("")})).Must(t)
	se := storetest.Get(e.c.CreateSession(bg, &sp.ID, "", "mock", "")).Must(t)
	storetest.Get(e.c.Send(bg, sendReq(se.ID, "about Australia"), "")).Must(t)
	old := storetest.Get(e.c.Commit(bg, wire.CommitRequest{RepoID: strp(sp.ID.String()), SessionID: strp(se.ID.String()),
		ContentFields: wire.ContentFields{Message: strp("Australia")}})).Must(t)
	storetest.Get(e.c.Commit(bg, wire.CommitRequest{RepoID: strp(sp.ID.String()), SessionID: strp(se.ID.String()),
		ContentFields: wire.ContentFields{Message: strp("New Zealand")}})).Must(t)
	storetest.Get(e.c.Mount(bg, se.ID, old.ID, nil)).Must(t)

	send := func(fields string) (string, []string) {
		t.Helper()
		st, body := e.raw(t, "POST", "/api/v4/chat/send", `{"session_id": "`+se.ID.String()+`", "message": "next", "provider": "mock"`+fields+`}`)
		var res wire.SendResponse
		if err := json.Unmarshal([]byte(body), &res); st != 200 || err != nil {
			t.Fatalf("send %s = %d %s", fields, st, body)
		}
		return res.Context.Mode, res.Context.CommitHashes
	}
	if mode, hashes := send(""); mode != "MOUNTED" || fmt.Sprint(hashes) != "["+old.CommitHash+"]" {
		t.Fatalf("fields left out: %s %v, want MOUNTED on the old checkpoint", mode, hashes)
	}
	if mode, _ := send(`, "mounted_checkpoint_id": null, "history_base_seq": null`); mode != "HEAD" {
		t.Fatalf("explicit nulls: mode %s, want HEAD", mode)
	}
	if s := storetest.Get(e.c.Session(bg, se.ID)).Must(t); s.Mount != nil {
		t.Fatalf("mount after the explicit nulls = %+v, want none", s.Mount)
	}
	if mode, _ := send(""); mode != "HEAD" {
		t.Fatalf("the send after: mode %s, want HEAD", mode)
	}
}

// TestCompareAcrossSpaces: checkpoints of two spaces compare with 200 and
// no common ancestor, as in the first implementation.
func TestCompareAcrossSpaces(t *testing.T) {
	e := newEnv(t)
	var cps []*wire.Commit
	for _, name := range []string{"Trip A", "Trip B"} {
		sp := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new(name), Description: new("")})).Must(t)
		se := storetest.Get(e.c.CreateSession(bg, &sp.ID, "", "mock", "")).Must(t)
		cps = append(cps, storetest.Get(e.c.Commit(bg, wire.CommitRequest{RepoID: strp(sp.ID.String()), SessionID: strp(se.ID.String()),
			ContentFields: wire.ContentFields{Message: strp(name), Decisions: []string{"Go by train", name + " only"}}})).Must(t))
	}
	st, body := e.raw(t, "GET", "/api/v5/lineage/checkpoints/"+cps[0].ID.String()+"/compare/"+cps[1].ID.String(), "")
	var out wire.CompareResponse
	if err := json.Unmarshal([]byte(body), &out); st != 200 || err != nil {
		t.Fatalf("compare = %d %s", st, body)
	}
	d := out.Diff
	if !strings.Contains(body, `"common_ancestor_commit_id":null`) || d.CommonAncestorCommitID != nil ||
		fmt.Sprint(d.DecisionsShared, d.DecisionsOnlyA, d.DecisionsOnlyB) != "[Go by train] [Trip A only] [Trip B only]" ||
		out.CheckpointA.ID != cps[0].ID || out.CheckpointB.ID != cps[1].ID {
		t.Fatalf("compare across spaces = %s", body)
	}
}
