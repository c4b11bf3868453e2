package app_test

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"

	"smriti"
	"smriti/account"
	"smriti/app"
	"smriti/contract"
	"smriti/coord"
	"smriti/portability"
	"smriti/secretlog"
	"smriti/secrets"
)

// A value on a space's allowlist (a test fixture's fake key) passes every
// door of that space as it is — a send, a commit, a note, a claim, a
// session title — and is still redacted in another space, and again in
// its own once taken off the list.
func TestAllowedValuePassesEveryDoorOfItsSpaceOnly(t *testing.T) {
	e := newRedactEnv(t)
	ctx := context.Background()
	fp := secrets.Fingerprint(fakeGitHub)
	if _, err := e.app.AllowSecret(ctx, e.space, "github-pat", "not-hex"); smriti.ErrorCode(err) != smriti.EUNPROCESSABLE {
		t.Fatalf("a bad fingerprint: %v", err)
	}
	al, err := e.app.AllowSecret(ctx, e.space, "github-pat", fp)
	if err != nil || al.Rule != "github-pat" || al.Fingerprint != fp || al.CreatedBy != smriti.LocalUsername {
		t.Fatalf("allow: %+v, %v", al, err)
	}
	if list, err := e.app.SecretAllowlist(ctx, e.space); err != nil || len(list) != 1 || list[0] != *al {
		t.Fatalf("allowlist %+v, %v", list, err)
	}
	text := "fixture key " + fakeGitHub
	se, err := e.app.CreateSession(ctx, smriti.SessionCreate{SpaceID: &e.space, Title: text, Provider: "mock"})
	if err != nil || se.Title != text {
		t.Fatalf("session title %q, %v", se.Title, err)
	}
	res, err := e.app.Send(ctx, app.SendRequest{SessionID: se.ID, Message: text, UseMock: true})
	if err != nil || len(res.Redactions) != 0 || res.Exchange.User.Content != text {
		t.Fatalf("send: %+v, %v", res, err)
	}
	c, err := e.app.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: e.space, Content: smriti.Content{Message: "Fixture", Decisions: []string{text}}})
	if err != nil || len(c.Redactions) != 0 || c.Decisions[0] != text {
		t.Fatalf("commit: %+v, %v", c, err)
	}
	n, err := e.app.AddNote(ctx, c.ID, smriti.NoteCreate{Text: text})
	if err != nil || n.Text != text {
		t.Fatalf("note %+v, %v", n, err)
	}
	cl, _, err := e.app.CreateClaim(ctx, coord.ClaimCreate{SpaceID: e.space, Agent: "codex", Scope: text})
	if err != nil || cl.Scope != text {
		t.Fatalf("claim %+v, %v", cl, err)
	}
	imported, err := e.app.ImportTranscripts(ctx, strings.NewReader("User: "+text+"\n\nAssistant: Noted.\n"),
		portability.TranscriptImport{SpaceID: e.space, Filename: "fixture.md"})
	if err != nil || len(imported) != 1 || imported[0].SessionID == nil {
		t.Fatalf("import %+v, %v", imported, err)
	}
	if turns, err := e.app.Turns(ctx, *imported[0].SessionID, contract.TurnQuery{}); err != nil || turns[0].Content != text {
		t.Fatalf("imported transcript turns %+v, %v", turns, err)
	}
	// Another value of the same rule is not allowed.
	other := "ghp_" + fakeChars("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 36)
	// A coding agent's transcript, as a hook imports it: the allowed value
	// kept, the other redacted.
	agent := `{"type":"user","uuid":"u1","sessionId":"s1","message":{"role":"user","content":"` + text + ` and ` + other + `"}}` + "\n" +
		`{"type":"assistant","uuid":"a1","sessionId":"s1","message":{"role":"assistant","content":[{"type":"text","text":"Noted ` + text + `"}]}}` + "\n"
	ar, err := e.app.ImportAgentTranscript(ctx, strings.NewReader(agent), portability.AgentImport{SpaceID: e.space, Format: "claude-code", Filename: "s1.jsonl"})
	if err != nil || ar.Added != 2 {
		t.Fatalf("agent transcript import %+v, %v", ar, err)
	}
	if turns, err := e.app.Turns(ctx, ar.SessionID, contract.TurnQuery{}); err != nil || len(turns) != 2 ||
		turns[0].Content != text+" and [redacted: github-pat]" || turns[1].Content != "Noted "+text {
		t.Fatalf("agent transcript turns %+v, %v", turns, err)
	}
	c2, err := e.app.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: e.space, Content: smriti.Content{Message: "Other " + other}})
	if err != nil || c2.Message != "Other [redacted: github-pat]" {
		t.Fatalf("another value of the rule: %q, %v", c2.Message, err)
	}
	// Another space does not share the list.
	sp2, err := e.st.CreateSpace(ctx, smriti.SpaceCreate{Name: "elsewhere"})
	if err != nil {
		t.Fatal(err)
	}
	c3, err := e.app.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp2.ID, Content: smriti.Content{Message: text}})
	if err != nil || c3.Message != "fixture key [redacted: github-pat]" {
		t.Fatalf("another space: %q, %v", c3.Message, err)
	}
	// The allowed value leaves with its space's allowlist and passes the
	// import on the other side.
	var buf bytes.Buffer
	if err := e.app.ExportSpace(ctx, e.space, &buf); err != nil {
		t.Fatalf("export of a space with an allowed value: %v", err)
	}
	copied, _, err := e.app.ImportSpace(ctx, bytes.NewReader(buf.Bytes()), true)
	if err != nil {
		t.Fatalf("import of a space with an allowed value: %v", err)
	}
	if list, err := e.app.SecretAllowlist(ctx, copied.ID); err != nil || len(list) != 1 || list[0].Fingerprint != fp {
		t.Fatalf("imported allowlist %+v, %v", list, err)
	}
	head, err := e.st.LatestCheckpoints(ctx, copied.ID, smriti.MainBranch, 3)
	if err != nil || len(head) == 0 {
		t.Fatal(err)
	}
	found := false
	for _, c := range head {
		found = found || c.Message == "Fixture" && c.Decisions[0] == text
	}
	if !found {
		t.Fatalf("the imported fixture checkpoint lost its allowed value: %+v", head)
	}
	if err := e.app.RemoveSecretAllow(ctx, e.space, "github-pat", fp); err != nil {
		t.Fatal(err)
	}
	if err := e.app.RemoveSecretAllow(ctx, e.space, "github-pat", fp); smriti.ErrorCode(err) != smriti.ENOTFOUND {
		t.Fatalf("removing again: %v", err)
	}
	c4, err := e.app.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: e.space, Content: smriti.Content{Message: text}})
	if err != nil || c4.Message != "fixture key [redacted: github-pat]" {
		t.Fatalf("after removal: %q, %v", c4.Message, err)
	}
}

// A session title is redacted whether a person sets it or the background
// model writes it.
func TestSessionTitlesAreRedacted(t *testing.T) {
	e := newRedactEnv(t)
	ctx := context.Background()
	se, err := e.app.CreateSession(ctx, smriti.SessionCreate{SpaceID: &e.space, Title: "key " + fakeAWS, Provider: "mock"})
	if err != nil || se.Title != "key [redacted: aws-access-token]" {
		t.Fatalf("title %q, %v", se.Title, err)
	}
	if _, err := e.app.Send(ctx, app.SendRequest{SessionID: se.ID, Message: "hello", UseMock: true}); err != nil {
		t.Fatal(err)
	}
	e.model.reply = "Rotate " + fakeGitHub
	got, err := e.app.Title(ctx, se.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != "Rotate [redacted: github-pat]" {
		t.Fatalf("background title %q", got.Title)
	}
}

// A purge is the owner's: an editor is refused, a token without the admin
// scope is refused, and the owner's purge is recorded under their name.
func TestPurgeIsTheOwnersAndAudited(t *testing.T) {
	e := newRedactEnv(t)
	ctx := context.Background()
	if _, err := e.app.PurgeSecrets(ctx, e.space, "", "", false); smriti.ErrorCode(err) != smriti.EUNPROCESSABLE {
		t.Fatalf("nothing chosen: %v", err)
	}
	se, err := e.st.CreateSession(ctx, smriti.SessionCreate{SpaceID: &e.space, Provider: "mock", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	// Old data: written straight to the store, as before redaction.
	if _, err := e.st.AppendExchange(ctx, contract.Exchange{SessionID: se.ID, User: contract.TurnWrite{Content: "key " + fakeGitHub}, Assistant: contract.TurnWrite{Content: "ok"}}); err != nil {
		t.Fatal(err)
	}
	u, err := e.st.CreateUser(ctx, "eve", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.SetMember(ctx, e.space, u.ID, account.RoleEditor); err != nil {
		t.Fatal(err)
	}
	editor := smriti.WithUser(ctx, u.ID)
	if _, err := e.app.PurgeSecrets(editor, e.space, "github-pat", "", false); smriti.ErrorCode(err) != smriti.EFORBIDDEN {
		t.Fatalf("an editor's purge: %v", err)
	}
	writeToken := app.WithPrincipal(ctx, &account.Principal{UserID: smriti.LocalUserID, Username: "local", Scope: account.ScopeWrite})
	if _, err := e.app.PurgeSecrets(writeToken, e.space, "github-pat", "", false); smriti.ErrorCode(err) != smriti.EFORBIDDEN {
		t.Fatalf("a write token's purge: %v", err)
	}
	p, err := e.app.PurgeSecrets(ctx, e.space, "", secrets.Fingerprint(fakeGitHub), false)
	if err != nil {
		t.Fatal(err)
	}
	if p.Values != 1 || p.By != smriti.LocalUsername || p.Fingerprint != secrets.Fingerprint(fakeGitHub) ||
		!reflect.DeepEqual(p.Rows, []secretlog.PurgedRow{{Kind: "turn", ID: p.Rows[0].ID, Field: "content"}}) {
		t.Fatalf("purge %+v", p)
	}
	turns, err := e.app.Turns(ctx, se.ID, contract.TurnQuery{})
	if err != nil || turns[0].Content != "key [redacted: github-pat]" {
		t.Fatalf("turns %+v, %v", turns, err)
	}
}
