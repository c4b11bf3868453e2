package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"smriti/account"
	"smriti/app"
	"smriti/credential"
	"strings"
	"sync"
	"time"

	"smriti"
)

// AuthConfig turns on auth mode and bounds the LLM-backed endpoints. The
// zero value is local mode: every request is the built-in local user with
// every right, and no login exists.
type AuthConfig struct {
	// Enabled requires a credential on every API request: an API token
	// ("Authorization: Bearer …") or a browser session cookie.
	Enabled bool
	// Accounts keeps users, tokens, browser sessions and space members; the
	// account and membership routes answer 503 without it.
	Accounts account.Service
	// SessionTTL is how long a browser login lasts (DefaultSessionTTL when 0).
	SessionTTL time.Duration
	// SecureCookie marks the session cookie Secure (set when serving TLS or
	// behind a TLS-terminating proxy).
	SecureCookie bool
	// CredentialCacheTTL is how long a resolved token or session is
	// trusted without asking the database again (DefaultCredentialCacheTTL
	// when 0; negative turns the cache off). A revocation or logout through
	// this server clears the cache at once; one made elsewhere (the CLI,
	// another replica) takes effect within the TTL.
	CredentialCacheTTL time.Duration
	// LoginRefill is how often one more sign-in attempt is allowed per
	// account name and per client address (DefaultLoginRefill when 0).
	LoginRefill time.Duration
}

// DefaultCredentialCacheTTL bounds how stale a cached credential may be.
const DefaultCredentialCacheTTL = 2 * time.Second

// DefaultSessionTTL is how long a browser login lasts by default.
const DefaultSessionTTL = 12 * time.Hour

// SessionCookie is the name of the browser session cookie.
const SessionCookie = "smriti_session"

// principalOf returns the principal the middleware resolved for r.
func principalOf(ctx context.Context) *account.Principal {
	return app.PrincipalOf(ctx)
}

var localPrincipal = &account.Principal{UserID: smriti.LocalUserID, Username: "local", Scope: account.ScopeAdmin}

// publicPath reports whether a request may go without credentials in auth
// mode: login and logout (which ends only the session whose secret it
// presents, so an expired cookie can still be cleared), status and API
// documents, and the web workspace's static files (which hold no data).
func publicPath(r *http.Request) bool {
	return public(r.Method, r.URL.Path)
}

// public is publicPath by method and path (a route's pattern is a path for
// it: no public path has wildcards).
func public(method, p string) bool {
	switch {
	case (p == "/api/v4/auth/login" || p == "/api/v4/auth/logout") && method == http.MethodPost:
		return true
	case p == "/health", p == "/health/live", p == "/health/ready", p == "/openapi.json", p == "/docs":
		return true
	case strings.HasPrefix(p, "/api/"), p == "/mcp", strings.HasPrefix(p, "/mcp/"), p == "/metrics":
		return false
	}
	return true
}

// authenticate resolves the request's principal once: the local user in
// local mode, otherwise the bearer token or the session cookie. A request
// to a public path carries no principal in auth mode.
func (s *Server) authenticate(r *http.Request) (*account.Principal, error) {
	if !s.auth.Enabled {
		return localPrincipal, nil
	}
	if publicPath(r) {
		return nil, nil
	}
	accounts := s.auth.Accounts
	if accounts == nil {
		return nil, smriti.Errorf(smriti.EUNAVAILABLE, "auth mode is on but no account store is configured")
	}
	now := s.now()
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, token, ok := strings.Cut(h, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
			return nil, account.ErrBadCredentials()
		}
		return s.creds.resolve("t"+credential.HashSecret(strings.TrimSpace(token)), now, func(hash string) (*account.Principal, error) {
			return accounts.TokenPrincipal(r.Context(), hash, now)
		})
	}
	if c, err := r.Cookie(SessionCookie); err == nil && c.Value != "" {
		return s.creds.resolve("s"+credential.HashSecret(c.Value), now, func(hash string) (*account.Principal, error) {
			return accounts.SessionPrincipal(r.Context(), hash, now)
		})
	}
	return nil, account.ErrBadCredentials()
}

// needOf is what a request asks to do by its method: GET and HEAD read,
// everything else writes.
func needOf(r *http.Request) account.Need {
	return needOfMethod(r.Method)
}

func needOfMethod(method string) account.Need {
	if method == http.MethodGet || method == http.MethodHead {
		return account.NeedRead
	}
	return account.NeedWrite
}

// authorize checks a routed request against its principal: the token's
// scope first, then, for a write in auth mode, the caller's role in every
// space the request names (by path or by a top-level "…_id" in its JSON
// body). Things the caller cannot see are left to the handler, which
// answers 404 for them as for things that do not exist.
func (s *Server) authorize(rt route, w http.ResponseWriter, r *http.Request) error {
	p := principalOf(r.Context())
	if p == nil {
		return nil // a public route
	}
	need := needOf(r)
	if !p.Scope.Permits(need) {
		return smriti.Errorf(smriti.EFORBIDDEN, "this token's scope (%s) may not %s", p.Scope, strings.ToLower(r.Method))
	}
	if s.auth.Enabled && need != account.NeedRead {
		if err := s.authorizeSpaces(r.Context(), namedIDs(rt.path, r, s.bodyLimit), need); err != nil {
			return err
		}
	}
	return nil
}

// authorizeSpaces applies account.Role.Permits to every space ids name (a
// space, or a thing in one); ids the caller cannot see are left to the
// handler, which answers 404.
func (s *Server) authorizeSpaces(ctx context.Context, ids []smriti.ID, need account.Need) error {
	for _, id := range ids {
		role, err := s.auth.Accounts.SpaceRole(ctx, id)
		if smriti.ErrorCode(err) == smriti.ENOTFOUND {
			continue
		}
		if err != nil {
			return err
		}
		if err := role.Authorize(need); err != nil {
			return err
		}
	}
	return nil
}

// namedIDs returns the UUIDs a request names: its path wildcards and the
// string values of its JSON body's top-level keys ending in "_id". The body
// is put back for the handler.
func namedIDs(pattern string, r *http.Request, limit int64) []smriti.ID {
	var ids []smriti.ID
	add := func(v string) {
		if id, err := smriti.ParseID("", v); err == nil {
			ids = append(ids, id)
		}
	}
	for rest := pattern; ; {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			break
		}
		add(r.PathValue(strings.TrimSuffix(rest[i+1:i+j], "...")))
		rest = rest[i+j:]
	}
	if r.Body == nil || r.Body == http.NoBody || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		return ids
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
	if err != nil {
		return ids
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return ids
	}
	for k, v := range top {
		var str string
		if strings.HasSuffix(k, "_id") && json.Unmarshal(v, &str) == nil {
			add(str)
		}
	}
	return ids
}

// llmRoutes are the endpoints that call a provider: the app's LLM gate
// admits each call (the OpenAPI document lists their 429).
var llmRoutes = map[string]bool{
	"POST /api/v4/chat/send":                        true,
	"POST /api/v5/chat/send/stream":                 true,
	"POST /api/v5/checkpoint/draft":                 true,
	"POST /api/v5/checkpoint/extract":               true,
	"POST /api/v5/checkpoint/{commit_id}/review":    true,
	"POST /api/v4/chat/sessions/{session_id}/title": true,
}

func (c AuthConfig) sessionTTL() time.Duration {
	if c.SessionTTL <= 0 {
		return DefaultSessionTTL
	}
	return c.SessionTTL
}

// authorizeMCP admits MCP clients whose scope may write: the MCP tools both
// read and write, over the same services.
func (s *Server) authorizeMCP(r *http.Request, p *account.Principal) error {
	if r.URL.Path != "/mcp" && !strings.HasPrefix(r.URL.Path, "/mcp/") {
		return nil
	}
	if !p.Scope.Permits(account.NeedWrite) {
		return smriti.Errorf(smriti.EFORBIDDEN, "MCP needs a token with the write or admin scope")
	}
	return nil
}

// credCache remembers resolved credentials for a short while, so a client
// making many requests does not cost a database read for each. Only
// successes are kept; an entry never outlives its credential.
type credCache struct {
	ttl time.Duration
	mu  sync.Mutex
	m   map[string]credEntry
}

type credEntry struct {
	p     *account.Principal
	until time.Time
}

func newCredCache(ttl time.Duration) *credCache {
	if ttl == 0 {
		ttl = DefaultCredentialCacheTTL
	}
	return &credCache{ttl: ttl, m: map[string]credEntry{}}
}

// resolve returns the principal for key (a kind letter and the secret's
// hash), asking lookup with the hash when it is not cached.
func (c *credCache) resolve(key string, now time.Time, lookup func(hash string) (*account.Principal, error)) (*account.Principal, error) {
	if c.ttl > 0 {
		c.mu.Lock()
		e, ok := c.m[key]
		c.mu.Unlock()
		if ok && now.Before(e.until) {
			return e.p, nil
		}
	}
	p, err := lookup(key[1:])
	if err != nil || c.ttl <= 0 {
		return p, err
	}
	until := now.Add(c.ttl)
	if p.Expires != nil && p.Expires.Before(until) {
		until = *p.Expires
	}
	c.mu.Lock()
	if len(c.m) >= maxCredEntries {
		c.m = map[string]credEntry{}
	}
	c.m[key] = credEntry{p: p, until: until}
	c.mu.Unlock()
	return p, nil
}

// maxCredEntries bounds the cache; past it, it starts afresh.
const maxCredEntries = 10000

// clear forgets every cached credential (after a revocation or logout).
func (c *credCache) clear() {
	c.mu.Lock()
	c.m = map[string]credEntry{}
	c.mu.Unlock()
}
