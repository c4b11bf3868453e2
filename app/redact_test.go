package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"smriti"
	"smriti/app"
	"smriti/contract"
	"smriti/coord"
	"smriti/intelligence"
	"smriti/portability"
	"smriti/provider"
	"smriti/secrets"
	"smriti/secrets/secretstest"
	"smriti/store"
)

// Fake credentials, random and built at run time so that no file holds one.
var (
	fakeRand   = rand.New(rand.NewPCG(46, 46))
	fakeGitHub = "ghp_" + fakeChars("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 36)
	fakeAWS    = "AKIA" + fakeChars("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)
	fakePGPass = fakeChars("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 16)
	fakePGURL  = "postgres://app:" + fakePGPass + "@db.internal:5432/app"
)

func fakeChars(set string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = set[fakeRand.IntN(len(set))]
	}
	return string(b)
}

// capturing is a provider that records every request it is given and can
// answer with a set reply instead of its own.
type capturing struct {
	intelligence.Provider
	mu    sync.Mutex
	seen  []string
	reply string
}

func (c *capturing) record(req intelligence.CompletionRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range req.Messages {
		c.seen = append(c.seen, m.Content)
	}
}

func (c *capturing) answer(comp *intelligence.Completion, err error) (*intelligence.Completion, error) {
	if err == nil && c.reply != "" {
		comp.Text = c.reply
	}
	return comp, err
}

func (c *capturing) Complete(ctx context.Context, req intelligence.CompletionRequest) (*intelligence.Completion, error) {
	c.record(req)
	return c.answer(c.Provider.Complete(ctx, req))
}

func (c *capturing) Stream(ctx context.Context, req intelligence.CompletionRequest, onDelta func(string) error) (*intelligence.Completion, error) {
	c.record(req)
	return c.answer(c.Provider.Stream(ctx, req, onDelta))
}

// capturingProviders hands out one capturing mock for every name.
type capturingProviders struct {
	intelligence.Providers
	p intelligence.Provider
}

func (ps capturingProviders) Provider(string) (intelligence.Provider, error) { return ps.p, nil }
func (ps capturingProviders) Background() (intelligence.Provider, string, error) {
	return ps.p, "mock", nil
}

type redactEnv struct {
	st    *store.Store
	real  intelligence.Providers
	app   *app.App
	model *capturing
	space smriti.ID
}

func newRedactEnv(t *testing.T) *redactEnv {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(t.TempDir(), "smriti.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	cfg, err := provider.Load(provider.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	real := provider.New(cfg)
	mock, err := real.Provider(intelligence.ProviderMock)
	if err != nil {
		t.Fatal(err)
	}
	model := &capturing{Provider: mock}
	sp, err := s.CreateSpace(ctx, smriti.SpaceCreate{Name: "secrets"})
	if err != nil {
		t.Fatal(err)
	}
	return &redactEnv{st: s, real: real, app: app.New(app.Config{Store: s, Providers: capturingProviders{real, model}}), model: model, space: sp.ID}
}

// holdsNoSecret fails when any of the fake credentials is in got.
func holdsNoSecret(t *testing.T, where string, got any) {
	t.Helper()
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{fakeGitHub, fakeAWS, fakePGPass} {
		if bytes.Contains(b, []byte(s)) {
			t.Errorf("%s holds the secret %s…", where, s[:6])
		}
	}
}

func TestSendStoresNeitherTheSecretInTheMessageNorTheOneInTheReply(t *testing.T) {
	e := newRedactEnv(t)
	ctx := context.Background()
	se, err := e.app.CreateSession(ctx, smriti.SessionCreate{SpaceID: &e.space, Provider: "mock", Model: "mock"})
	if err != nil {
		t.Fatal(err)
	}
	e.model.reply = "Rotate it; the new one is " + fakeAWS + "."
	res, err := e.app.Send(ctx, app.SendRequest{SessionID: se.ID, Message: "push fails with GITHUB_TOKEN=" + fakeGitHub, UseMock: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []smriti.Redaction{{Field: "message", Rule: "github-pat", Fingerprint: secrets.Fingerprint(fakeGitHub)}, {Field: "reply", Rule: "aws-access-token", Fingerprint: secrets.Fingerprint(fakeAWS)}}
	if !reflect.DeepEqual(res.Redactions, want) {
		t.Errorf("redactions %v, want %v", res.Redactions, want)
	}
	turns, err := e.app.Turns(ctx, se.ID, contract.TurnQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tu := range turns {
		got = append(got, tu.Content)
	}
	wantTurns := []string{"push fails with GITHUB_TOKEN=[redacted: github-pat]", "Rotate it; the new one is [redacted: aws-access-token]."}
	if !reflect.DeepEqual(got, wantTurns) {
		t.Errorf("stored turns %q, want %q", got, wantTurns)
	}
	holdsNoSecret(t, "what the chat model was given", e.model.seen)
	// Each turn records what was replaced in it, for whoever shows it.
	if got := turns[0].Metadata["redactions"]; !reflect.DeepEqual(got, []any{map[string]any{"rule": "github-pat", "fingerprint": secrets.Fingerprint(fakeGitHub)}}) {
		t.Errorf("user turn metadata.redactions = %#v", got)
	}
}

// A send retried with its idempotency key answers the first send's
// redactions, read back from the stored turns.
func TestReplayedSendAnswersTheSameRedactions(t *testing.T) {
	e := newRedactEnv(t)
	ctx := context.Background()
	se, err := e.app.CreateSession(ctx, smriti.SessionCreate{SpaceID: &e.space, Provider: "mock", Model: "mock"})
	if err != nil {
		t.Fatal(err)
	}
	e.model.reply = "New key: " + fakeAWS
	req := app.SendRequest{SessionID: se.ID, Message: "token " + fakeGitHub, UseMock: true, IdempotencyKey: "k1"}
	first, err := e.app.Send(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	again, err := e.app.Send(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	want := []smriti.Redaction{{Field: "message", Rule: "github-pat", Fingerprint: secrets.Fingerprint(fakeGitHub)}, {Field: "reply", Rule: "aws-access-token", Fingerprint: secrets.Fingerprint(fakeAWS)}}
	if !again.Exchange.Replayed || !reflect.DeepEqual(first.Redactions, want) || !reflect.DeepEqual(again.Redactions, want) {
		t.Errorf("replayed %v: first %v, again %v, want %v", again.Exchange.Replayed, first.Redactions, again.Redactions, want)
	}
}

func TestCommitStoresRedactedContentThatVerifies(t *testing.T) {
	e := newRedactEnv(t)
	ctx := context.Background()
	c, err := e.app.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: e.space, Content: smriti.Content{
		Message:   "Deploy notes",
		Summary:   "The staging key is " + fakeAWS,
		Decisions: []string{"Keep SQLite", "Connect with " + fakePGURL},
		Tasks:     []smriti.Task{{Text: "Revoke " + fakeGitHub}},
		Artifacts: []smriti.Artifact{{ID: "env", Type: "bash", Label: "env", Content: "export GITHUB_TOKEN=" + fakeGitHub}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := []smriti.Redaction{{Field: "summary", Rule: "aws-access-token", Fingerprint: secrets.Fingerprint(fakeAWS)}, {Field: "decisions[1]", Rule: "connection-string-password", Fingerprint: secrets.Fingerprint(fakePGPass)},
		{Field: "tasks[0].text", Rule: "github-pat", Fingerprint: secrets.Fingerprint(fakeGitHub)}, {Field: "artifacts[0].content", Rule: "github-pat", Fingerprint: secrets.Fingerprint(fakeGitHub)}}
	if !reflect.DeepEqual(c.Redactions, want) {
		t.Errorf("redactions %v, want %v", c.Redactions, want)
	}
	stored, err := e.app.Checkpoint(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	holdsNoSecret(t, "the stored checkpoint", stored)
	if stored.Decisions[1] != "Connect with postgres://app:[redacted: connection-string-password]@db.internal:5432/app" {
		t.Errorf("decision stored as %q", stored.Decisions[1])
	}
	items, err := e.app.CheckpointItems(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	holdsNoSecret(t, "the stored items", items)
	v, err := e.app.VerifyCheckpoint(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !v.OK {
		t.Errorf("verify: %+v", v)
	}
}

func TestNoteAndClaimAreRedacted(t *testing.T) {
	e := newRedactEnv(t)
	ctx := context.Background()
	c, err := e.app.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: e.space, Content: smriti.Content{Message: "Start"}})
	if err != nil {
		t.Fatal(err)
	}
	n, err := e.app.AddNote(ctx, c.ID, smriti.NoteCreate{Text: "used " + fakeGitHub + " to push"})
	if err != nil {
		t.Fatal(err)
	}
	if n.Text != "used [redacted: github-pat] to push" || !reflect.DeepEqual(n.Redactions, []smriti.Redaction{{Field: "text", Rule: "github-pat", Fingerprint: secrets.Fingerprint(fakeGitHub)}}) {
		t.Errorf("note %q, redactions %v", n.Text, n.Redactions)
	}
	cl, _, err := e.app.CreateClaim(ctx, coord.ClaimCreate{SpaceID: e.space, Agent: "codex", Scope: "rotate " + fakeAWS, BaseCheckpointID: &c.ID})
	if err != nil {
		t.Fatal(err)
	}
	if cl.Scope != "rotate [redacted: aws-access-token]" || !reflect.DeepEqual(cl.Redactions, []smriti.Redaction{{Field: "scope", Rule: "aws-access-token", Fingerprint: secrets.Fingerprint(fakeAWS)}}) {
		t.Errorf("claim scope %q, redactions %v", cl.Scope, cl.Redactions)
	}
	stored, err := e.app.Checkpoint(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	holdsNoSecret(t, "the stored note", stored.Notes)
}

// A turn stored before redaction existed (written here straight to the
// store) holds a key: a draft neither gives it to the background model nor
// carries it into what it proposes.
func TestDraftNeitherGivesTheModelAnOldSecretNorReturnsOne(t *testing.T) {
	e := newRedactEnv(t)
	ctx := context.Background()
	se, err := e.st.CreateSession(ctx, smriti.SessionCreate{SpaceID: &e.space, Provider: "mock", Model: "mock"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.AppendExchange(ctx, contract.Exchange{SessionID: se.ID,
		User:      contract.TurnWrite{Content: "Decision: deploy with " + fakePGURL, Provider: "mock", Model: "mock"},
		Assistant: contract.TurnWrite{Content: "Decision: use token " + fakeGitHub, Provider: "mock", Model: "mock"}}); err != nil {
		t.Fatal(err)
	}
	res, err := e.app.Draft(ctx, intelligence.DraftRequest{SessionID: se.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(e.model.seen) == 0 {
		t.Fatal("the background model was not called")
	}
	holdsNoSecret(t, "what the background model was given", e.model.seen)
	holdsNoSecret(t, "the draft", res.Draft)
	holdsNoSecret(t, "the draft's items", res.Items)
}

// A bundle's turns are redacted on import; a checkpoint that holds a secret
// refuses the import (its hash covers the text) and says where it is.
func TestBundleImportRedactsTurnsAndRefusesACheckpointWithASecret(t *testing.T) {
	ctx := context.Background()
	// The bundles come from an older server, whose export did not refuse
	// a secret: written here by the store's export, below the use case.
	export := func(e *redactEnv) []byte {
		var buf bytes.Buffer
		w, err := portability.NewBundleWriter(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.st.ExportSpace(ctx, e.space, w); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}

	e := newRedactEnv(t)
	se, err := e.st.CreateSession(ctx, smriti.SessionCreate{SpaceID: &e.space, Provider: "mock", Model: "mock", Title: "key " + fakeAWS})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.AppendExchange(ctx, contract.Exchange{SessionID: se.ID,
		User:      contract.TurnWrite{Content: "token " + fakeGitHub, Provider: "mock", Model: "mock"},
		Assistant: contract.TurnWrite{Content: "ok", Provider: "mock", Model: "mock"}}); err != nil {
		t.Fatal(err)
	}
	sp, _, err := e.app.ImportSpace(ctx, bytes.NewReader(export(e)), true)
	if err != nil {
		t.Fatal(err)
	}
	sessions, _, err := e.st.Sessions(ctx, &sp.ID, smriti.Page{})
	if err != nil || len(sessions) != 1 {
		t.Fatalf("imported sessions %v, %v", sessions, err)
	}
	if sessions[0].Title != "key [redacted: aws-access-token]" {
		t.Errorf("imported session title %q", sessions[0].Title)
	}
	turns, err := e.app.Turns(ctx, sessions[0].ID, contract.TurnQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) != 2 || turns[0].Content != "token [redacted: github-pat]" {
		t.Errorf("imported turns %+v", turns)
	}

	old := newRedactEnv(t)
	c, err := old.st.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: old.space, Content: smriti.Content{Message: "Old", Summary: "key " + fakeAWS}})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = old.app.ImportSpace(ctx, bytes.NewReader(export(old)), true)
	want := "the bundle's checkpoint " + c.ID.String() + " holds a secret in summary (aws-access-token)"
	if smriti.ErrorCode(err) != smriti.EUNPROCESSABLE || !strings.Contains(smriti.ErrorMessage(err), want) {
		t.Errorf("import of a checkpoint with a secret: %v; want EUNPROCESSABLE saying %q", err, want)
	}
}

func TestImportedChatExportIsRedacted(t *testing.T) {
	e := newRedactEnv(t)
	ctx := context.Background()
	res, err := e.app.ImportTranscripts(ctx, strings.NewReader("User: deploy with "+fakePGURL+"\n\nAssistant: Noted.\n"),
		portability.TranscriptImport{SpaceID: e.space, Filename: "notes.md"})
	if err != nil || len(res) != 1 || res[0].SessionID == nil {
		t.Fatalf("import %+v, %v", res, err)
	}
	turns, err := e.app.Turns(ctx, *res[0].SessionID, contract.TurnQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) != 2 || turns[0].Content != "deploy with postgres://app:[redacted: connection-string-password]@db.internal:5432/app" {
		t.Errorf("imported turns %+v", turns)
	}
}

// TestEveryDoorRedactsTheCredentialCorpus places each fake credential of the
// corpus in a chat send, a checkpoint's decision and a note, then drafts
// from the session: at least 95% of them are gone from everything stored and
// from what the background model was given.
func TestEveryDoorRedactsTheCredentialCorpus(t *testing.T) {
	e := newRedactEnv(t)
	ctx := context.Background()
	se, err := e.app.CreateSession(ctx, smriti.SessionCreate{SpaceID: &e.space, Provider: "mock", Model: "mock"})
	if err != nil {
		t.Fatal(err)
	}
	creds := secretstest.FakeCredentials(3)
	stored := map[string][]string{}
	for _, c := range creds {
		if _, err := e.app.Send(ctx, app.SendRequest{SessionID: se.ID, Message: c.Text, UseMock: true}); err != nil {
			t.Fatal(err)
		}
		cp, err := e.app.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: e.space, Content: smriti.Content{Message: c.Format, Decisions: []string{c.Text}}})
		if err != nil {
			t.Fatal(err)
		}
		n, err := e.app.AddNote(ctx, cp.ID, smriti.NoteCreate{Text: c.Text})
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.app.Checkpoint(ctx, cp.ID)
		if err != nil {
			t.Fatal(err)
		}
		stored["checkpoint"] = append(stored["checkpoint"], got.Decisions[0])
		stored["note"] = append(stored["note"], n.Text)
	}
	turns, err := e.app.Turns(ctx, se.ID, contract.TurnQuery{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tu := range turns {
		if tu.Role == smriti.RoleUser {
			stored["turn"] = append(stored["turn"], tu.Content)
		}
	}
	e.model.seen = nil
	if _, err := e.app.Draft(ctx, intelligence.DraftRequest{SessionID: se.ID}); err != nil {
		t.Fatal(err)
	}
	stored["background model input"] = []string{strings.Join(e.model.seen, "\n")}

	for door, texts := range stored {
		leaked := 0
		for i, c := range creds {
			text := texts[0]
			if len(texts) == len(creds) {
				text = texts[i]
			}
			if strings.Contains(text, c.Secret) {
				leaked++
			}
		}
		rate := float64(len(creds)-leaked) / float64(len(creds))
		t.Logf("%s: %d of %d credentials redacted (%.1f%%)", door, len(creds)-leaked, len(creds), 100*rate)
		if rate < 0.95 {
			t.Errorf("%s: %d of %d credentials kept (%.1f%% redacted), want at least 95%% redacted", door, leaked, len(creds), 100*rate)
		}
	}
}

// stopsAfterOnePiece streams one piece and then waits for the client to go.
type stopsAfterOnePiece struct{ capturing }

func (p *stopsAfterOnePiece) Stream(ctx context.Context, req intelligence.CompletionRequest, onDelta func(string) error) (*intelligence.Completion, error) {
	if err := onDelta("the new key is " + fakeAWS + " and"); err != nil {
		return nil, err
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

// A reply the user stops is stored as far as it got, and redacted like any.
func TestStoppedReplyIsRedacted(t *testing.T) {
	e := newRedactEnv(t)
	ctx := context.Background()
	se, err := e.app.CreateSession(ctx, smriti.SessionCreate{SpaceID: &e.space, Provider: "mock", Model: "mock"})
	if err != nil {
		t.Fatal(err)
	}
	stopping := app.New(app.Config{Store: e.st, Providers: capturingProviders{e.real, &stopsAfterOnePiece{capturing{Provider: e.model.Provider}}}})
	sctx, stop := context.WithCancel(ctx)
	_, err = stopping.Stream(sctx, app.SendRequest{SessionID: se.ID, Message: "token " + fakeGitHub, UseMock: true}, nil,
		func(string) error { stop(); return nil })
	if err == nil {
		t.Fatal("a stopped stream answered no error")
	}
	turns, err := e.app.Turns(ctx, se.ID, contract.TurnQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) != 2 || turns[0].Content != "token [redacted: github-pat]" || turns[1].Content != "the new key is [redacted: aws-access-token] and" {
		t.Fatalf("stored %+v", turns)
	}
	if got := turns[1].Metadata["redactions"]; !reflect.DeepEqual(got, []any{map[string]any{"rule": "aws-access-token", "fingerprint": secrets.Fingerprint(fakeAWS)}}) {
		t.Errorf("stopped reply metadata.redactions = %#v", got)
	}
}
