package httpapi

import (
	"net/http"
	"strings"
	"sync"
	"time"

	"smriti"
	"smriti/account"
	"smriti/credential"
	"smriti/internal/nonnil"
	"smriti/wire"
)

func memberOut(m *account.Member) wire.MemberOut {
	return wire.MemberOut{SpaceID: m.SpaceID, UserID: m.UserID, Username: m.Username, Role: string(m.Role), CreatedAt: m.CreatedAt}
}

func (s *Server) accountRoutes() []route {
	creds := []int{401, 403}
	return []route{
		{method: "POST", path: "/api/v4/auth/login", summary: "Sign a browser in: sets an HttpOnly, SameSite=Strict session cookie", tag: "accounts",
			in: wire.LoginRequest{}, out: wire.LoginOut{}, status: 200, handle: s.login, errors: []int{401, 429, 503},
			description: "A wrong password, an unknown or disabled user all answer the same 401. Each account name and each client address has a small allowance of attempts (10 and 30, one more every 6 s); past it, 429 with Retry-After. In local mode the session is made but changes nothing: every request is the local user."},
		{method: "POST", path: "/api/v4/auth/logout", summary: "End this browser's session and clear its cookie", tag: "accounts", status: 204, handle: s.logout, errors: []int{503}},
		{method: "GET", path: "/api/v4/auth/me", summary: "Who this request acts for and with which scope", tag: "accounts", out: wire.MeOut{}, status: 200, handle: s.me, errors: creds},
		{method: "POST", path: "/api/v4/auth/tokens", summary: "Make an API token for yourself (admin scope or a browser session); the secret is shown once", tag: "accounts",
			in: wire.TokenCreateRequest{}, out: wire.TokenCreated{}, status: 201, handle: s.createToken, errors: []int{401, 403, 503}},
		{method: "GET", path: "/api/v4/auth/tokens", summary: "Your API tokens, newest first (never their secrets)", tag: "accounts", out: []wire.TokenOut{}, status: 200, handle: s.listTokens, errors: []int{401, 403, 503}},
		{method: "DELETE", path: "/api/v4/auth/tokens/{token_id}", summary: "Revoke one of your API tokens", tag: "accounts", out: wire.TokenOut{}, status: 200, handle: s.revokeToken, errors: []int{401, 403, 503}},
		{method: "GET", path: "/api/v5/spaces/{space_id}/members", summary: "A space's members and their roles (owner only)", tag: "accounts", out: []wire.MemberOut{}, status: 200, handle: s.listMembers, errors: []int{401, 403, 503}},
		{method: "PUT", path: "/api/v5/spaces/{space_id}/members/{user_id}", summary: "Give a user a role in a space (owner only)", tag: "accounts",
			in: wire.MemberRequest{}, out: wire.MemberOut{}, status: 200, handle: s.setMember, errors: []int{401, 403, 409, 503}},
		{method: "DELETE", path: "/api/v5/spaces/{space_id}/members/{user_id}", summary: "Take a user out of a space (owner only)", tag: "accounts", status: 204, handle: s.removeMember, errors: []int{401, 403, 409, 503}},
	}
}

func (s *Server) accounts() (account.Service, error) {
	if s.auth.Accounts == nil {
		return nil, smriti.Errorf(smriti.EUNAVAILABLE, "accounts are not available on this server")
	}
	return s.auth.Accounts, nil
}

// needAdmin checks the request's scope allows account management.
func needAdmin(r *http.Request) (*account.Principal, error) {
	p := principalOf(r.Context())
	if p == nil {
		return nil, account.ErrBadCredentials()
	}
	if !p.Scope.Permits(account.NeedAdmin) {
		return nil, smriti.Errorf(smriti.EFORBIDDEN, "managing tokens needs the admin scope or a browser session")
	}
	return p, nil
}

// dummyHash makes a login for an unknown user cost what a real one costs,
// so timing does not tell which usernames exist. It is made on the first
// login, not at start.
var dummyHash = sync.OnceValue(func() string {
	h, _ := credential.HashPassword("not a password of anyone")
	return h
})

func (s *Server) login(w http.ResponseWriter, r *http.Request) error {
	var req wire.LoginRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	if req.Username == nil || *req.Username == "" || req.Password == nil || *req.Password == "" {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "username and password are required")
	}
	if err := s.logins.allow(w, r, *req.Username); err != nil {
		return err
	}
	accounts, err := s.accounts()
	if err != nil {
		return err
	}
	u, hash, err := accounts.UserByName(r.Context(), *req.Username)
	switch smriti.ErrorCode(err) {
	case "":
	case smriti.ENOTFOUND:
		u, hash = nil, dummyHash()
	default:
		return err
	}
	if !credential.CheckPassword(hash, *req.Password) || u == nil || u.Disabled {
		return account.ErrBadCredentials()
	}
	secret, secretHash, err := credential.NewSecret()
	if err != nil {
		return err
	}
	expires := s.now().Add(s.auth.sessionTTL())
	if err := accounts.CreateBrowserSession(r.Context(), secretHash, u.ID, expires); err != nil {
		return err
	}
	http.SetCookie(w, s.sessionCookie(r, secret, expires))
	writeJSON(w, http.StatusOK, wire.LoginOut{User: wire.UserOf(u), ExpiresAt: expires})
	return nil
}

// sessionCookie is the browser session cookie: HttpOnly so scripts cannot
// read it, SameSite=Strict so no other site's page can send it (the CSRF
// defence, with the Origin check), Secure when the request came over TLS
// or the operator says a TLS proxy fronts the server.
func (s *Server) sessionCookie(r *http.Request, value string, expires time.Time) *http.Cookie {
	c := &http.Cookie{Name: SessionCookie, Value: value, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: r.TLS != nil || s.auth.SecureCookie}
	if value == "" {
		c.MaxAge = -1
	} else {
		c.Expires = expires
	}
	return c
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) error {
	accounts, err := s.accounts()
	if err != nil {
		return err
	}
	if c, err := r.Cookie(SessionCookie); err == nil && c.Value != "" {
		if err := accounts.DeleteBrowserSession(r.Context(), credential.HashSecret(c.Value)); err != nil {
			return err
		}
		s.creds.clear()
	}
	http.SetCookie(w, s.sessionCookie(r, "", time.Time{}))
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) me(w http.ResponseWriter, r *http.Request) error {
	p := principalOf(r.Context())
	if p == nil {
		return account.ErrBadCredentials()
	}
	via := "session"
	switch {
	case !s.auth.Enabled:
		via = "local"
	case p.TokenID != nil:
		via = "token"
	}
	writeJSON(w, http.StatusOK, wire.MeOut{UserID: p.UserID, Username: p.Username, Scope: string(p.Scope), Via: via, TokenID: p.TokenID})
	return nil
}

func (s *Server) createToken(w http.ResponseWriter, r *http.Request) error {
	var req wire.TokenCreateRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	if req.Scope == nil {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "scope is required (read, write or admin)")
	}
	in := account.TokenRequest{Scope: *req.Scope}
	if req.Name != nil {
		in.Name = *req.Name
	}
	if req.ExpiresIn != nil {
		in.ExpiresIn = *req.ExpiresIn
	}
	p, err := needAdmin(r)
	if err != nil {
		return err
	}
	accounts, err := s.accounts()
	if err != nil {
		return err
	}
	tok, secret, err := account.IssueToken(r.Context(), accounts, p.UserID, in, s.now())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, wire.TokenCreated{Token: wire.TokenOf(tok), Secret: secret})
	return nil
}

func (s *Server) listTokens(w http.ResponseWriter, r *http.Request) error {
	p, err := needAdmin(r)
	if err != nil {
		return err
	}
	accounts, err := s.accounts()
	if err != nil {
		return err
	}
	toks, err := accounts.Tokens(r.Context(), p.UserID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, nonnil.Convert(toks, wire.TokenOf))
	return nil
}

func (s *Server) revokeToken(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "token_id")
	if err != nil {
		return err
	}
	p, err := needAdmin(r)
	if err != nil {
		return err
	}
	accounts, err := s.accounts()
	if err != nil {
		return err
	}
	t, err := accounts.RevokeToken(r.Context(), p.UserID, id)
	if err != nil {
		return err
	}
	s.creds.clear()
	writeJSON(w, http.StatusOK, wire.TokenOf(t))
	return nil
}

func (s *Server) listMembers(w http.ResponseWriter, r *http.Request) error {
	space, err := pathID(r, "space_id")
	if err != nil {
		return err
	}
	accounts, err := s.accounts()
	if err != nil {
		return err
	}
	ms, err := accounts.Members(r.Context(), space)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, nonnil.Convert(ms, memberOut))
	return nil
}

func (s *Server) setMember(w http.ResponseWriter, r *http.Request) error {
	space, err := pathID(r, "space_id")
	if err != nil {
		return err
	}
	user, err := pathID(r, "user_id")
	if err != nil {
		return err
	}
	var req wire.MemberRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	if req.Role == nil {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "role is required (owner, editor or viewer)")
	}
	role, err := account.ParseRole(strings.TrimSpace(*req.Role))
	if err != nil {
		return err
	}
	accounts, err := s.accounts()
	if err != nil {
		return err
	}
	m, err := accounts.SetMember(r.Context(), space, user, role)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, memberOut(m))
	return nil
}

func (s *Server) removeMember(w http.ResponseWriter, r *http.Request) error {
	space, err := pathID(r, "space_id")
	if err != nil {
		return err
	}
	user, err := pathID(r, "user_id")
	if err != nil {
		return err
	}
	accounts, err := s.accounts()
	if err != nil {
		return err
	}
	if err := accounts.RemoveMember(r.Context(), space, user); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
