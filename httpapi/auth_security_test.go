package httpapi_test

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"smriti"
	"smriti/account"
	"smriti/client"
	"smriti/credential"
	"smriti/httpapi"
	"smriti/internal/clock"
	"smriti/store/storetest"
	"smriti/wire"
)

// The security-regression suite for accounts: one test per attack, named
// for it, on a real server in auth mode over a real database (SQLite, and
// PostgreSQL where storage decides the outcome).

func withAuth(ac httpapi.AuthConfig) envOption {
	return func(c *envConfig) { ac.Enabled = true; c.auth = ac }
}

// withLLMRate sets the app's allowance of LLM-backed calls per principal.
func withLLMRate(perMinute float64, burst int) envOption {
	return func(c *envConfig) { c.gate.RatePerMinute, c.gate.Burst = perMinute, burst }
}

func withLogger(l *slog.Logger) envOption { return func(c *envConfig) { c.logger = l } }

// engines runs fn on SQLite and on PostgreSQL.
func engines(t *testing.T, fn func(t *testing.T, opts ...envOption)) {
	t.Run("SQLite", func(t *testing.T) { fn(t) })
	t.Run("Postgres", func(t *testing.T) { fn(t, withPostgres()) })
}

// actor is a user with a client that carries one of their tokens.
type actor struct {
	user   *account.User
	c      *client.Client
	secret string
	token  *account.APIToken
}

const testPassword = "correct horse battery"

var (
	testHashOnce sync.Once
	testHash     string
)

// newAccount adds a user (password testPassword) and a token of scope.
func (e *testEnv) newAccount(t *testing.T, name string, scope account.Scope) *actor {
	t.Helper()
	testHashOnce.Do(func() { testHash, _ = credential.HashPassword(testPassword) })
	u := storetest.Get(e.store.CreateUser(bg, name, testHash)).Must(t)
	a := &actor{user: u}
	a.token, a.secret = e.issue(t, u, scope, nil)
	a.c = e.clientWith(a.secret)
	return a
}

func (e *testEnv) issue(t *testing.T, u *account.User, scope account.Scope, expires *time.Time) (*account.APIToken, string) {
	t.Helper()
	secret, hash, err := credential.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	tok := &account.APIToken{ID: smriti.NewID(), UserID: u.ID, Scope: scope, CreatedAt: clock.Now(), ExpiresAt: expires}
	if err := e.store.CreateToken(bg, tok, hash); err != nil {
		t.Fatal(err)
	}
	return tok, secret
}

func (e *testEnv) clientWith(secret string) *client.Client {
	c := client.NewClient(e.url)
	c.HTTP.Transport = e.http.Transport
	c.Header = http.Header{"Authorization": {"Bearer " + secret}}
	return c
}

// call sends a JSON request and returns the status and the error's detail
// ("" on success).
func call(t *testing.T, c *client.Client, method, path string, body any) (int, string) {
	t.Helper()
	resp, err := c.Do(bg, method, path, body, nil)
	if resp == nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	if err != nil {
		return resp.StatusCode, err.Error()
	}
	return resp.StatusCode, ""
}

// world is one user's data: a space with a session (two turns), a
// checkpoint with a note, and a live claim.
type world struct {
	space, session, checkpoint, claim string
}

func makeWorld(t *testing.T, a *actor) world {
	t.Helper()
	var w world
	var out struct {
		ID string `json:"id"`
	}
	if _, err := a.c.Do(bg, "POST", "/api/v2/repos", map[string]any{"name": "Trip"}, &out); err != nil {
		t.Fatal(err)
	}
	w.space = out.ID
	if _, err := a.c.Do(bg, "POST", "/api/v4/chat/spaces/"+w.space+"/sessions", map[string]any{"title": "Plan", "provider": "mock", "model": "mock"}, &out); err != nil {
		t.Fatal(err)
	}
	w.session = out.ID
	if _, err := a.c.Do(bg, "POST", "/api/v4/chat/send", map[string]any{"session_id": w.session, "message": "Plan Sydney", "use_mock": true}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := a.c.Do(bg, "POST", "/api/v4/chat/commit", map[string]any{"repo_id": w.space, "session_id": w.session, "message": "Base", "summary": "s"}, &out); err != nil {
		t.Fatal(err)
	}
	w.checkpoint = out.ID
	if _, err := a.c.Do(bg, "POST", "/api/v5/checkpoint/"+w.checkpoint+"/notes", map[string]any{"text": "keep", "author": "a", "kind": "note"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := a.c.Do(bg, "POST", "/api/v5/claims", map[string]any{"space_id": w.space, "agent": "a", "scope": "docs"}, &out); err != nil {
		t.Fatal(err)
	}
	w.claim = out.ID
	if w.claim == "" {
		t.Fatal("no claim id")
	}
	return w
}

// checkIntact asserts the owner still sees the world unchanged.
func checkIntact(t *testing.T, a *actor, w world) {
	t.Helper()
	var turns []map[string]any
	if _, err := a.c.Do(bg, "GET", "/api/v4/chat/sessions/"+w.session+"/turns", nil, &turns); err != nil || len(turns) != 2 {
		t.Fatalf("owner's turns = %d, %v; want 2", len(turns), err)
	}
	if st, d := call(t, a.c, "GET", "/api/v2/commits/"+w.checkpoint, nil); st != 200 {
		t.Fatalf("owner's checkpoint = %d %s", st, d)
	}
	var claims []map[string]any
	if _, err := a.c.Do(bg, "GET", "/api/v5/claims?space_id="+w.space, nil, &claims); err != nil || len(claims) != 1 || claims[0]["status"] != "active" {
		t.Fatalf("owner's claims = %v, %v", claims, err)
	}
}

// fillFor fills a route's path parameters with the victim's ids by name.
func fillFor(path string, w world, victim *actor) string {
	ids := map[string]string{"repo_id": w.space, "space_id": w.space, "session_id": w.session, "commit_id": w.checkpoint,
		"a_id": w.checkpoint, "b_id": w.checkpoint, "claim_id": w.claim, "id_or_prefix": w.space,
		"token_id": victim.token.ID.String(), "user_id": victim.user.ID.String()}
	out := path
	for strings.Contains(out, "{") {
		i, j := strings.Index(out, "{"), strings.Index(out, "}")
		out = out[:i] + ids[out[i+1:j]] + out[j+1:]
	}
	return out
}

// TestAttackOtherUsersIDsAnswer404 drives every route with a path
// parameter from /openapi.json with another user's ids, as a user with an
// admin token: every one answers 404 (existence is not leaked), and the
// victim's data is unchanged. Routes that take ids in the body or the query
// are tried too.
func TestAttackOtherUsersIDsAnswer404(t *testing.T) {
	engines(t, func(t *testing.T, opts ...envOption) {
		e := newEnv(t, append(opts, withAuth(httpapi.AuthConfig{}))...)
		alice := e.newAccount(t, "alice", account.ScopeAdmin)
		mallory := e.newAccount(t, "mallory", account.ScopeAdmin)
		w := makeWorld(t, alice)
		body := map[string]any{"session_id": w.session, "repo_id": w.space, "space_id": w.space, "checkpoint_id": w.checkpoint,
			"parent_commit_id": w.checkpoint, "message": "m", "name": "n", "text": "t", "author": "x", "kind": "note", "role": "owner",
			"status": "done", "title": "t", "project_root": "/x", "summary": "s", "scope": "docs", "agent": "m", "use_mock": true,
			"source_checkpoint_id": w.checkpoint, "target_checkpoint_id": w.checkpoint, "target_branch": "main", "branch_name": "main", "disposition": "abandoned"}
		n := 0
		for _, r := range routes(t, e) {
			method, path := r[0], r[1]
			if !strings.Contains(path, "{") {
				continue
			}
			var b any
			if r[2] == "body" {
				b = body
			}
			status, detail := call(t, mallory.c, method, fillFor(path, w, alice), b)
			want := 404
			if strings.HasPrefix(path, "/api/v5/worktrees/") && status == 503 {
				want = 503 // this server has no git; nothing about the id is said
			}
			if status != want {
				t.Errorf("%s %s with another user's ids: %d %q, want 404", method, path, status, detail)
			}
			n++
		}
		if n < 30 {
			t.Fatalf("only %d routes with ids swept", n)
		}
		for _, q := range []string{"/api/v5/claims?space_id=" + w.space, "/api/v5/worktrees?space_id=" + w.space,
			"/api/v5/search?q=Sydney&space_id=" + w.space} {
			if status, detail := call(t, mallory.c, "GET", q, nil); status != 404 && status != 503 {
				t.Errorf("GET %s: %d %q, want 404", q, status, detail)
			}
		}
		for _, p := range []string{"/api/v4/chat/send", "/api/v5/chat/send/stream", "/api/v4/chat/commit", "/api/v2/commits", "/api/v5/claims",
			"/api/v5/lineage/sessions/fork", "/api/v5/lineage/merge", "/api/v5/checkpoint/draft", "/api/v5/chat/context"} {
			if status, detail := call(t, mallory.c, "POST", p, body); status != 404 {
				t.Errorf("POST %s naming another user's ids: %d %q, want 404", p, status, detail)
			}
		}
		var spaces []map[string]any
		if _, err := mallory.c.Do(bg, "GET", "/api/v2/repos", nil, &spaces); err != nil || len(spaces) != 0 {
			t.Fatalf("mallory lists %d spaces (%v), want 0", len(spaces), err)
		}
		var found wire.SearchResponse
		if _, err := mallory.c.Do(bg, "GET", "/api/v5/search?q=Sydney", nil, &found); err != nil || len(found.Results) != 0 {
			t.Fatalf("mallory's search finds %d hits (%v), want 0", len(found.Results), err)
		}
		if _, err := alice.c.Do(bg, "GET", "/api/v5/search?q=Sydney", nil, &found); err != nil || len(found.Results) == 0 {
			t.Fatalf("alice's search finds %d hits (%v); the check above proves nothing", len(found.Results), err)
		}
		var sessions []map[string]any
		if _, err := mallory.c.Do(bg, "GET", "/api/v4/chat/sessions", nil, &sessions); err != nil || len(sessions) != 0 {
			t.Fatalf("mallory lists %d sessions (%v), want 0", len(sessions), err)
		}
		checkIntact(t, alice, w)
	})
}

// TestAttackViewerCannotWrite: a viewer reads the shared space but every
// write answers 403 and changes nothing; an editor may write.
func TestAttackViewerCannotWrite(t *testing.T) {
	engines(t, func(t *testing.T, opts ...envOption) {
		e := newEnv(t, append(opts, withAuth(httpapi.AuthConfig{}))...)
		alice := e.newAccount(t, "alice", account.ScopeAdmin)
		vic := e.newAccount(t, "vic", account.ScopeWrite)
		w := makeWorld(t, alice)
		if st, d := call(t, alice.c, "PUT", "/api/v5/spaces/"+w.space+"/members/"+vic.user.ID.String(), map[string]any{"role": "viewer"}); st != 200 {
			t.Fatalf("share: %d %s", st, d)
		}
		for _, p := range []string{"/api/v2/repos/" + w.space, "/api/v4/chat/sessions/" + w.session + "/turns", "/api/v2/commits/" + w.checkpoint,
			"/api/v5/claims?space_id=" + w.space, "/api/v5/lineage/spaces/" + w.space} {
			if st, d := call(t, vic.c, "GET", p, nil); st != 200 {
				t.Fatalf("viewer GET %s: %d %s", p, st, d)
			}
		}
		const forbidden = "a viewer of this space may not change it"
		for _, c := range []struct {
			method, path string
			body         any
		}{
			{"POST", "/api/v4/chat/send", map[string]any{"session_id": w.session, "message": "hi", "use_mock": true}},
			{"POST", "/api/v4/chat/commit", map[string]any{"repo_id": w.space, "session_id": w.session, "message": "m"}},
			{"POST", "/api/v5/checkpoint/" + w.checkpoint + "/notes", map[string]any{"text": "x", "author": "v", "kind": "note"}},
			{"DELETE", "/api/v2/commits/" + w.checkpoint + "?cascade=true", nil},
			{"DELETE", "/api/v4/chat/sessions/" + w.session, nil},
			{"PATCH", "/api/v2/repos/" + w.space + "/project-root", map[string]any{"project_root": "/evil"}},
			{"PATCH", "/api/v5/claims/" + w.claim, map[string]any{"status": "abandoned"}},
			{"POST", "/api/v5/claims", map[string]any{"space_id": w.space, "agent": "v", "scope": "x"}},
			{"DELETE", "/api/v2/repos/" + w.space, nil},
		} {
			if st, d := call(t, vic.c, c.method, c.path, c.body); st != 403 || d != forbidden {
				t.Errorf("viewer %s %s: %d %q, want 403 %q", c.method, c.path, st, d, forbidden)
			}
		}
		if st, d := call(t, vic.c, "GET", "/api/v5/spaces/"+w.space+"/members", nil); st != 403 || d != "only the space's owner may do this" {
			t.Errorf("viewer lists members: %d %q", st, d)
		}
		checkIntact(t, alice, w)

		if st, d := call(t, alice.c, "PUT", "/api/v5/spaces/"+w.space+"/members/"+vic.user.ID.String(), map[string]any{"role": "editor"}); st != 200 {
			t.Fatalf("promote: %d %s", st, d)
		}
		if st, d := call(t, vic.c, "POST", "/api/v4/chat/send", map[string]any{"session_id": w.session, "message": "hi", "use_mock": true}); st != 200 {
			t.Fatalf("editor send: %d %s", st, d)
		}
		if st, d := call(t, vic.c, "DELETE", "/api/v2/repos/"+w.space, nil); st != 403 || d != "only the space's owner may do this" {
			t.Fatalf("editor deletes the space: %d %q", st, d)
		}
	})
}

// TestAttackReadScopeTokenCannotDelete: a read token reads but every other
// method answers 403.
func TestAttackReadScopeTokenCannotDelete(t *testing.T) {
	e := newEnv(t, withAuth(httpapi.AuthConfig{}))
	alice := e.newAccount(t, "alice", account.ScopeAdmin)
	w := makeWorld(t, alice)
	_, readSecret := e.issue(t, alice.user, account.ScopeRead, nil)
	reader := e.clientWith(readSecret)
	if st, d := call(t, reader, "GET", "/api/v2/repos/"+w.space, nil); st != 200 {
		t.Fatalf("read token GET: %d %s", st, d)
	}
	for _, c := range [][2]string{{"DELETE", "/api/v2/repos/" + w.space}, {"DELETE", "/api/v2/commits/" + w.checkpoint}, {"POST", "/api/v2/repos"}} {
		st, d := call(t, reader, c[0], c[1], map[string]any{"name": "x"})
		if st != 403 || d != "this token's scope (read) may not "+strings.ToLower(c[0]) {
			t.Errorf("read token %s %s: %d %q", c[0], c[1], st, d)
		}
	}
	_, writeSecret := e.issue(t, alice.user, account.ScopeWrite, nil)
	if st, d := call(t, e.clientWith(writeSecret), "POST", "/api/v4/auth/tokens", map[string]any{"scope": "admin"}); st != 403 ||
		d != "this token's scope (write) may not post" && d != "managing tokens needs the admin scope or a browser session" {
		t.Errorf("write token makes a token: %d %q", st, d)
	}
	checkIntact(t, alice, w)
}

const badCredentials = "missing, invalid, expired or revoked credentials"

// wantUnauthorized checks a 401 with the one detail and a Bearer challenge.
func wantUnauthorized(t *testing.T, e *testEnv, what string, header http.Header) {
	t.Helper()
	req, _ := http.NewRequest("GET", e.url+"/api/v2/repos", nil)
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := e.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 401 || string(b) != `{"detail":"`+badCredentials+`"}`+"\n" || resp.Header.Get("WWW-Authenticate") != `Bearer realm="smriti"` {
		t.Fatalf("%s: %d %s (WWW-Authenticate %q), want 401", what, resp.StatusCode, b, resp.Header.Get("WWW-Authenticate"))
	}
}

// TestAttackRevokedAndExpiredTokensFail, with a missing or malformed one.
func TestAttackRevokedAndExpiredTokensFail(t *testing.T) {
	engines(t, func(t *testing.T, opts ...envOption) {
		e := newEnv(t, append(opts, withAuth(httpapi.AuthConfig{}))...)
		alice := e.newAccount(t, "alice", account.ScopeAdmin)
		if st, d := call(t, alice.c, "GET", "/api/v2/repos", nil); st != 200 {
			t.Fatalf("live token: %d %s", st, d)
		}
		past := clock.Now().Add(-time.Minute)
		_, expired := e.issue(t, alice.user, account.ScopeAdmin, &past)
		wantUnauthorized(t, e, "expired token", http.Header{"Authorization": {"Bearer " + expired}})

		tok, secret := e.issue(t, alice.user, account.ScopeWrite, nil)
		if st, d := call(t, alice.c, "DELETE", "/api/v4/auth/tokens/"+tok.ID.String(), nil); st != 200 {
			t.Fatalf("revoke: %d %s", st, d)
		}
		wantUnauthorized(t, e, "revoked token", http.Header{"Authorization": {"Bearer " + secret}})
		wantUnauthorized(t, e, "no credentials", nil)
		wantUnauthorized(t, e, "unknown token", http.Header{"Authorization": {"Bearer smriti_nope"}})
		wantUnauthorized(t, e, "basic auth", http.Header{"Authorization": {"Basic YWxpY2U6cHc="}})
		wantUnauthorized(t, e, "unknown session cookie", http.Header{"Cookie": {httpapi.SessionCookie + "=forged"}})

		dora := e.newAccount(t, "dora", account.ScopeAdmin)
		storetest.Get(e.store.SetUserDisabled(bg, "dora", true)).Must(t)
		wantUnauthorized(t, e, "disabled user's token", http.Header{"Authorization": {"Bearer " + dora.secret}})

		if st, _ := call(t, e.c, "GET", "/health", nil); st != 200 {
			t.Fatalf("/health without credentials = %d, want 200", st)
		}
	})
}

// login signs in over HTTP and returns the response.
func login(t *testing.T, e *testEnv, user, password string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", e.url+"/api/v4/auth/login", strings.NewReader(`{"username": "`+user+`", "password": "`+password+`"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := e.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

func withCookie(e *testEnv, c *http.Cookie) *client.Client {
	cl := client.NewClient(e.url)
	cl.HTTP.Transport = e.http.Transport
	cl.Header = http.Header{"Cookie": {c.Name + "=" + c.Value}}
	return cl
}

// TestAttackCookieSessionLoginLogoutExpiry: a login sets an HttpOnly,
// SameSite=Strict cookie that works until logout or expiry; wrong
// passwords, unknown and disabled users get the same 401.
func TestAttackCookieSessionLoginLogoutExpiry(t *testing.T) {
	engines(t, func(t *testing.T, opts ...envOption) {
		e := newEnv(t, append(opts, withAuth(httpapi.AuthConfig{SessionTTL: time.Hour}))...)
		alice := e.newAccount(t, "alice", account.ScopeRead)
		e.newAccount(t, "dora", account.ScopeRead)
		storetest.Get(e.store.SetUserDisabled(bg, "dora", true)).Must(t)
		for _, c := range [][2]string{{"alice", "wrong password"}, {"nobody", testPassword}, {"dora", testPassword}} {
			resp, body := login(t, e, c[0], c[1])
			if resp.StatusCode != 401 || body != `{"detail":"`+badCredentials+`"}`+"\n" || len(resp.Cookies()) != 0 {
				t.Fatalf("login %s/%s: %d %s", c[0], c[1], resp.StatusCode, body)
			}
		}
		resp, body := login(t, e, "alice", testPassword)
		if resp.StatusCode != 200 || !strings.Contains(body, `"username":"alice"`) {
			t.Fatalf("login: %d %s", resp.StatusCode, body)
		}
		cookies := resp.Cookies()
		if len(cookies) != 1 {
			t.Fatalf("cookies = %v", cookies)
		}
		c := cookies[0]
		if c.Name != httpapi.SessionCookie || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Secure || c.Path != "/" ||
			c.Expires.Before(time.Now().Add(59*time.Minute)) || c.Expires.After(time.Now().Add(61*time.Minute)) {
			t.Fatalf("cookie = %+v", c)
		}
		if strings.Contains(body, c.Value) {
			t.Fatal("the session secret is in the login body")
		}
		sess := withCookie(e, c)
		var me wire.MeOut
		if _, err := sess.Do(bg, "GET", "/api/v4/auth/me", nil, &me); err != nil || me.UserID != alice.user.ID || me.Via != "session" || me.Scope != "admin" {
			t.Fatalf("me = %+v, %v", me, err)
		}
		// A browser session may make tokens; the secret comes back once.
		var made wire.TokenCreated
		if _, err := sess.Do(bg, "POST", "/api/v4/auth/tokens", map[string]any{"scope": "write", "name": "laptop"}, &made); err != nil ||
			!strings.HasPrefix(made.Secret, "smriti_") || made.Token.Scope != "write" {
			t.Fatalf("token from session = %+v, %v", made, err)
		}
		var logoutResp *http.Response
		logoutResp, err := sess.Do(bg, "POST", "/api/v4/auth/logout", nil, nil)
		if err != nil || logoutResp.StatusCode != 204 {
			t.Fatalf("logout: %v", err)
		}
		if cl := logoutResp.Cookies(); len(cl) != 1 || cl[0].MaxAge != -1 || cl[0].Value != "" {
			t.Fatalf("logout cookies = %v", cl)
		}
		wantUnauthorized(t, e, "cookie after logout", http.Header{"Cookie": {c.Name + "=" + c.Value}})

		// An expired session is refused even though its row is still there.
		secret, hash, _ := credential.NewSecret()
		if err := e.store.CreateBrowserSession(bg, hash, alice.user.ID, clock.Now().Add(-time.Second)); err != nil {
			t.Fatal(err)
		}
		wantUnauthorized(t, e, "expired session", http.Header{"Cookie": {httpapi.SessionCookie + "=" + secret}})
	})
}

// TestAttackSecretsNeverInResponsesLogsOrMetrics: passwords, token secrets
// and session secrets appear nowhere but the one answer that hands them
// out: not in later answers, the server's log, or /metrics.
func TestAttackSecretsNeverInResponsesLogsOrMetrics(t *testing.T) {
	var logs syncBuffer
	e := newEnv(t, withAuth(httpapi.AuthConfig{}), withLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	alice := e.newAccount(t, "alice", account.ScopeAdmin)
	resp, _ := login(t, e, "alice", testPassword)
	session := resp.Cookies()[0].Value
	login(t, e, "alice", "a wrong password")
	var made wire.TokenCreated
	if _, err := alice.c.Do(bg, "POST", "/api/v4/auth/tokens", map[string]any{"scope": "read"}, &made); err != nil {
		t.Fatal(err)
	}
	makeWorld(t, alice)
	e.clientWith(made.Secret).Do(bg, "GET", "/api/v2/repos", nil, nil)
	e.clientWith("smriti_guess").Do(bg, "GET", "/api/v2/repos", nil, nil)
	_, hash, _ := e.store.UserByName(bg, "alice")

	var seen strings.Builder
	for _, p := range []string{"/api/v4/auth/tokens", "/api/v4/auth/me", "/api/v2/repos", "/metrics"} {
		req, _ := http.NewRequest("GET", e.url+p, nil)
		req.Header.Set("Authorization", "Bearer "+alice.secret)
		r, err := e.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode != 200 {
			t.Fatalf("GET %s: %d %s", p, r.StatusCode, b)
		}
		seen.Write(b)
	}
	for what, text := range map[string]string{"answers": seen.String(), "log": logs.String()} {
		for name, secret := range map[string]string{"password": testPassword, "wrong password": "a wrong password", "admin token": alice.secret,
			"made token": made.Secret, "session": session, "password hash": hash, "token hash": credential.HashSecret(alice.secret), "guess": "smriti_guess"} {
			if strings.Contains(text, secret) {
				t.Errorf("the %s appears in the %s", name, what)
			}
		}
	}
	if !strings.Contains(logs.String(), "/api/v4/auth/login") {
		t.Fatal("the log recorded no requests; the check above proves nothing")
	}
}

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestAttackLLMRateLimitAnswers429: past its allowance a principal gets
// 429 with Retry-After and a JSON detail on every LLM-backed route, while
// another token keeps its own allowance.
func TestAttackLLMRateLimitAnswers429(t *testing.T) {
	e := newEnv(t, withAuth(httpapi.AuthConfig{}), withLLMRate(1, 1))
	alice := e.newAccount(t, "alice", account.ScopeWrite)
	w := makeWorld(t, alice) // spends alice's one call on the send
	for _, c := range []struct {
		path string
		body any
	}{
		{"/api/v4/chat/send", map[string]any{"session_id": w.session, "message": "again", "use_mock": true}},
		{"/api/v5/chat/send/stream", map[string]any{"session_id": w.session, "message": "again", "use_mock": true}},
		{"/api/v5/checkpoint/draft", map[string]any{"session_id": w.session, "use_mock": true}},
		{"/api/v5/checkpoint/extract", map[string]any{"markdown": "# x", "use_mock": true}},
		{"/api/v5/checkpoint/" + w.checkpoint + "/review", map[string]any{"use_mock": true}},
		{"/api/v4/chat/sessions/" + w.session + "/title", map[string]any{}},
	} {
		resp, err := alice.c.Do(bg, "POST", c.path, c.body, nil)
		if resp == nil || resp.StatusCode != 429 || smriti.ErrorCode(err) != smriti.ETOOMANY ||
			!strings.HasPrefix(smriti.ErrorMessage(err), "rate limit for LLM-backed calls reached (1 per minute); retry in ") {
			t.Fatalf("POST %s past the limit: %v %v", c.path, resp, err)
		}
		if ra, _ := strconv.Atoi(resp.Header.Get("Retry-After")); ra < 1 || ra > 60 {
			t.Fatalf("Retry-After = %q", resp.Header.Get("Retry-After"))
		}
	}
	// Reads and non-LLM writes are not limited.
	if st, d := call(t, alice.c, "POST", "/api/v5/checkpoint/"+w.checkpoint+"/notes", map[string]any{"text": "x", "author": "a", "kind": "note"}); st != 201 {
		t.Fatalf("note under the limit: %d %s", st, d)
	}
	_, other := e.issue(t, alice.user, account.ScopeWrite, nil)
	if st, d := call(t, e.clientWith(other), "POST", "/api/v4/chat/send", map[string]any{"session_id": w.session, "message": "x", "use_mock": true}); st != 200 {
		t.Fatalf("another token's first send: %d %s", st, d)
	}
}

// TestLocalModeNeedsNoCredentials: without --auth every request is the
// local user, as before accounts existed.
func TestLocalModeNeedsNoCredentials(t *testing.T) {
	e := newEnv(t)
	var me wire.MeOut
	if _, err := e.c.Do(bg, "GET", "/api/v4/auth/me", nil, &me); err != nil || me.UserID != smriti.LocalUserID || me.Via != "local" || me.Scope != "admin" {
		t.Fatalf("me = %+v, %v", me, err)
	}
	sp := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("local"), Description: new("")})).Must(t)
	var members []wire.MemberOut
	if _, err := e.c.Do(bg, "GET", "/api/v5/spaces/"+sp.ID.String()+"/members", nil, &members); err != nil ||
		len(members) != 1 || members[0].UserID != smriti.LocalUserID || members[0].Role != "owner" || members[0].Username != "local" {
		t.Fatalf("members = %+v, %v", members, err)
	}
}
