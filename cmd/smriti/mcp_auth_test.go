package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"smriti"
	"smriti/account"
	"smriti/app"
	"smriti/contract"
	"smriti/credential"
	"smriti/gitcli"
	"smriti/httpapi"
	"smriti/internal/clock"
	"smriti/provider"
	"smriti/store"
)

// countingOpenAI is an OpenAI-compatible chat completions server that
// counts its calls: a review request (its schema asks for "suggestions")
// gets an empty review, anything else a checkpoint draft.
func countingOpenAI(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		body, _ := io.ReadAll(r.Body)
		answer := `{"title":"Plan","objective":"Plan the trip","summary":"Sydney first","decisions":["Fly to Sydney"],` +
			`"assumptions":[],"open_questions":[],"entities":[],"tasks":[],"artifacts":[]}`
		if strings.Contains(string(body), `suggestions`) {
			answer = `{"issues":[],"suggestions":["Looks consistent."]}`
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1741569952,"model":"gpt-test",`+
			`"choices":[{"index":0,"message":{"role":"assistant","content":%q,"refusal":null},"finish_reason":"stop"}],`+
			`"usage":{"prompt_tokens":19,"completion_tokens":5,"total_tokens":24}}`, answer)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// bearer adds a token to every request.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// startAuthAPI runs the real server in auth mode (rate limit 1 a minute,
// bursts of 2) with providers configured from env, on a fresh SQLite file.
func startAuthAPI(t *testing.T, env map[string]string) (string, *store.Store) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := store.Open(ctx, filepath.Join(dir, "smriti.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	pcfg, err := provider.Load(provider.LoadOptions{Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	cfg := apiConfig(db, provider.New(pcfg), nil, &app.Coordinator{Briefs: db, Store: db, Git: gitcli.New(), Root: filepath.Join(dir, "worktrees")}, nil,
		app.GateConfig{RatePerMinute: 1, Burst: 2, Roles: db.SpaceRole})
	cfg.Auth = httpapi.AuthConfig{Enabled: true}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: httpapi.New(cfg), ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close(); db.Close() })
	return "http://" + ln.Addr().String(), db
}

// addUser makes a user with a write-scope token and returns the token's
// secret.
func addUser(t *testing.T, db *store.Store, name string) (*account.User, string) {
	t.Helper()
	ctx := context.Background()
	hash, err := credential.HashPassword("a long enough password")
	if err != nil {
		t.Fatal(err)
	}
	u, err := db.CreateUser(ctx, name, hash)
	if err != nil {
		t.Fatal(err)
	}
	secret, sh, err := credential.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	if err := db.CreateToken(ctx, &account.APIToken{ID: smriti.NewID(), UserID: u.ID, Scope: account.ScopeWrite, CreatedAt: clock.Now()}, sh); err != nil {
		t.Fatal(err)
	}
	return u, secret
}

// mcpConnect opens an MCP session at /mcp with a bearer token.
func mcpConnect(t *testing.T, base, secret string) *sdk.ClientSession {
	t.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	s, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: base + "/mcp?tools=all",
		HTTPClient: &http.Client{Transport: bearer(secret)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestMCPOverHTTPAuthGatesLLMTools: under --auth the LLM-backed tools at
// /mcp pass the HTTP LLM routes' gate. A viewer is refused with 403 before
// any provider call (and without spending their allowance); past the
// allowance a caller gets a 429 tool error with the wait, and the provider
// is not called.
func TestMCPOverHTTPAuthGatesLLMTools(t *testing.T) {
	ctx := context.Background()
	llm, calls := countingOpenAI(t)
	base, db := startAuthAPI(t, map[string]string{provider.EnvOpenAIKey: "sk-test-0123456789", provider.EnvOpenAIBaseURL: llm.URL + "/v1",
		provider.EnvBackgroundProvider: "openai", provider.EnvBackgroundModel: "gpt-test"})
	alice, aliceSecret := addUser(t, db, "alice")
	bob, bobSecret := addUser(t, db, "bob")
	aliceCtx := smriti.WithUser(ctx, alice.ID)
	sp, err := db.CreateSpace(aliceCtx, smriti.SpaceCreate{Name: "Trip"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SetMember(aliceCtx, sp.ID, bob.ID, account.RoleViewer); err != nil {
		t.Fatal(err)
	}
	connect := func(secret string) *sdk.ClientSession { return mcpConnect(t, base, secret) }
	tool := func(s *sdk.ClientSession, name string, args map[string]any) (bool, string) {
		t.Helper()
		res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res.IsError, textOf(res)
	}
	wantCalls := func(n int64) {
		t.Helper()
		if got := calls.Load(); got != n {
			t.Fatalf("provider calls = %d, want %d", got, n)
		}
	}

	a := connect(aliceSecret)
	if isErr, got := tool(a, "smriti_create_checkpoint", map[string]any{"space": "Trip", "content": "# Plan\n\nFly to Sydney."}); isErr ||
		!strings.HasPrefix(got, "Created checkpoint `") || !strings.HasSuffix(got, "on branch `main`: Plan\n") {
		t.Fatalf("alice's create_checkpoint = %v %q", isErr, got)
	}
	wantCalls(1)
	cps, _, err := db.Checkpoints(aliceCtx, sp.ID, contract.CheckpointQuery{})
	if err != nil || len(cps) != 1 {
		t.Fatalf("checkpoints = %d, %v", len(cps), err)
	}
	cp := cps[0].ID.String()

	// The viewer: refused before the provider, for both tools.
	b := connect(bobSecret)
	const forbidden = "HTTP 403\na viewer of this space may not change it"
	if isErr, got := tool(b, "smriti_review_checkpoint", map[string]any{"checkpoint_id": cp}); !isErr || got != forbidden {
		t.Fatalf("viewer's review = %v %q, want %q", isErr, got, forbidden)
	}
	if isErr, got := tool(b, "smriti_create_checkpoint", map[string]any{"space": "Trip", "content": "# Mine\n\nx", "dry_run": true}); !isErr || got != forbidden {
		t.Fatalf("viewer's create_checkpoint = %v %q, want %q", isErr, got, forbidden)
	}
	wantCalls(1)
	// The viewer still reads.
	if isErr, got := tool(b, "smriti_show_checkpoint", map[string]any{"checkpoint_id": cp}); isErr || !strings.Contains(got, "Plan") {
		t.Fatalf("viewer's show = %v %q", isErr, got)
	}
	// The refusals spent none of bob's allowance (burst 2): in a space of
	// his own both his LLM-backed calls reach the provider.
	if _, err := db.CreateSpace(smriti.WithUser(ctx, bob.ID), smriti.SpaceCreate{Name: "Bob's"}); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if isErr, got := tool(b, "smriti_create_checkpoint", map[string]any{"space": "Bob's", "content": "# Plan\n\nx", "dry_run": true}); isErr ||
			!strings.HasPrefix(got, "Dry run — extracted payload (no checkpoint created):") {
			t.Fatalf("bob's own dry run %d = %v %q", i, isErr, got)
		}
	}
	wantCalls(3)

	// Alice's second call is her burst's last; the third is refused with
	// the wait, before the provider.
	if isErr, got := tool(a, "smriti_review_checkpoint", map[string]any{"checkpoint_id": cp}); isErr || !strings.Contains(got, "Looks consistent.") {
		t.Fatalf("alice's review = %v %q", isErr, got)
	}
	wantCalls(4)
	const limited = "HTTP 429\nrate limit for LLM-backed calls reached (1 per minute); retry in "
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{"smriti_review_checkpoint", map[string]any{"checkpoint_id": cp}},
		{"smriti_create_checkpoint", map[string]any{"space": "Trip", "content": "# More\n\nx"}},
	} {
		isErr, got := tool(a, c.name, c.args)
		var secs int
		if !isErr || !strings.HasPrefix(got, limited) {
			t.Fatalf("alice's %s past the limit = %v %q", c.name, isErr, got)
		}
		if _, err := fmt.Sscanf(strings.TrimPrefix(got, limited), "%d s", &secs); err != nil || secs < 1 || secs > 60 || got != fmt.Sprintf("%s%d s", limited, secs) {
			t.Fatalf("alice's %s past the limit = %q, want a wait of 1–60 s", c.name, got)
		}
	}
	wantCalls(4)
	// Tools that call no provider are not limited.
	if isErr, got := tool(a, "smriti_list_checkpoints", map[string]any{"space": "Trip"}); isErr || !strings.Contains(got, "Plan") {
		t.Fatalf("alice's list past the limit = %v %q", isErr, got)
	}
}

// TestAttackMCPSessionOfAnotherUser: an MCP session answers only the user
// who opened it. Another user's token with its id — to call a tool or to
// end it — gets 404, and the session keeps working for its opener.
func TestAttackMCPSessionOfAnotherUser(t *testing.T) {
	ctx := context.Background()
	base, db := startAuthAPI(t, nil)
	alice, aliceSecret := addUser(t, db, "alice")
	_, bobSecret := addUser(t, db, "bob")
	if _, err := db.CreateSpace(smriti.WithUser(ctx, alice.ID), smriti.SpaceCreate{Name: "Alice's plans"}); err != nil {
		t.Fatal(err)
	}
	a := mcpConnect(t, base, aliceSecret)
	const listed = "1 space(s):\n\n- **Alice's plans** `"
	list := func() string {
		t.Helper()
		res, err := a.CallTool(ctx, &sdk.CallToolParams{Name: "smriti_list_spaces", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		return textOf(res)
	}
	if got := list(); !strings.HasPrefix(got, listed) {
		t.Fatalf("alice's list = %q", got)
	}
	// Bob with alice's session id, and alice with an id the server never
	// handed out, are both told the session does not exist.
	for _, c := range []struct{ method, secret, session string }{
		{"POST", bobSecret, a.ID()}, {"DELETE", bobSecret, a.ID()}, {"POST", aliceSecret, "made-up-session-id"},
	} {
		method := c.method
		req, err := http.NewRequest(method, base+"/mcp",
			strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"smriti_list_spaces","arguments":{}}}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+c.secret)
		req.Header.Set("Mcp-Session-Id", c.session)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 404 || string(body) != `{"detail":"Not found: MCP session"}`+"\n" {
			t.Fatalf("%s with session %q = %d %s", method, c.session, resp.StatusCode, body)
		}
	}
	if got := list(); !strings.HasPrefix(got, listed) {
		t.Fatalf("alice's list after bob's tries = %q", got)
	}
}
