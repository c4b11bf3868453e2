package account

import (
	"context"
	"strings"
	"testing"
	"time"

	"smriti"
	"smriti/credential"
)

// What each token scope and each space role permits, need by need.
func TestScopesAndRolesPermit(t *testing.T) {
	needs := []Need{NeedRead, NeedWrite, NeedAdmin}
	for _, tc := range []struct {
		name   string
		permit func(Need) bool
		want   string // one letter per need: y permitted, n refused
	}{
		{"scope read", ScopeRead.Permits, "ynn"}, {"scope write", ScopeWrite.Permits, "yyn"}, {"scope admin", ScopeAdmin.Permits, "yyy"},
		{"scope unknown", Scope("root").Permits, "nnn"},
		{"role viewer", RoleViewer.Permits, "ynn"}, {"role editor", RoleEditor.Permits, "yyn"}, {"role owner", RoleOwner.Permits, "yyy"},
		{"role unknown", Role("guest").Permits, "nnn"},
	} {
		var got strings.Builder
		for _, n := range needs {
			if tc.permit(n) {
				got.WriteByte('y')
			} else {
				got.WriteByte('n')
			}
		}
		if got.String() != tc.want {
			t.Errorf("%s permits %s, want %s (read, write, admin)", tc.name, got.String(), tc.want)
		}
	}
	for _, tc := range []struct {
		role Role
		need Need
		want string
	}{
		{RoleViewer, NeedWrite, "a viewer of this space may not change it"},
		{RoleEditor, NeedAdmin, "only the space's owner may do this"},
		{RoleViewer, NeedAdmin, "only the space's owner may do this"},
		{RoleEditor, NeedWrite, ""},
		{RoleOwner, NeedAdmin, ""},
	} {
		err := tc.role.Authorize(tc.need)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s Authorize(%d) = %v, want nil", tc.role, tc.need, err)
		case tc.want != "" && (smriti.ErrorCode(err) != smriti.EFORBIDDEN || smriti.ErrorMessage(err) != tc.want):
			t.Errorf("%s Authorize(%d) = %v, want EFORBIDDEN %q", tc.role, tc.need, err, tc.want)
		}
	}
}

func TestParseRoleAndValidateUsername(t *testing.T) {
	for in, want := range map[string]string{"owner": "", "editor": "", "viewer": "", "Owner": `role: "Owner" is not one of owner, editor, viewer`, "": `role: "" is not one of owner, editor, viewer`} {
		_, err := ParseRole(in)
		if got := smriti.ErrorMessage(err); (err == nil) != (want == "") || (err != nil && got != want) {
			t.Errorf("ParseRole(%q) = %v, want %q", in, err, want)
		}
	}
	ok := []string{"ana", "a", "0day", "ana.b_c-d", strings.Repeat("a", 64)}
	bad := []string{"", "Ana", "-ana", ".ana", "ana b", "ana/b", strings.Repeat("a", 65), "ánä"}
	for _, name := range ok {
		if err := ValidateUsername(name); err != nil {
			t.Errorf("ValidateUsername(%q) = %v, want nil", name, err)
		}
	}
	for _, name := range bad {
		if err := ValidateUsername(name); smriti.ErrorCode(err) != smriti.EUNPROCESSABLE {
			t.Errorf("ValidateUsername(%q) = %v, want EUNPROCESSABLE", name, err)
		}
	}
}

func TestTokenUsable(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	past, future := now.Add(-time.Second), now.Add(time.Second)
	for _, tc := range []struct {
		name string
		tok  APIToken
		ok   bool
	}{
		{"no expiry", APIToken{}, true},
		{"expires later", APIToken{ExpiresAt: &future}, true},
		{"expires now", APIToken{ExpiresAt: &now}, false},
		{"expired", APIToken{ExpiresAt: &past}, false},
		{"revoked", APIToken{RevokedAt: &past, ExpiresAt: &future}, false},
	} {
		err := tc.tok.CheckUsable(now)
		if tc.ok != (err == nil) || (err != nil && err != ErrBadCredentials()) {
			t.Errorf("%s: CheckUsable = %v, want usable %v (one error for every unusable token)", tc.name, err, tc.ok)
		}
	}
}

// tokenStore keeps the tokens IssueToken stores; the rest of Service is
// not used by it.
type tokenStore struct {
	Service
	tokens map[string]*APIToken
}

func (s *tokenStore) CreateToken(_ context.Context, t *APIToken, hash string) error {
	s.tokens[hash] = t
	return nil
}

func TestIssueToken(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	user := smriti.NewID()
	for _, tc := range []struct {
		in      TokenRequest
		expires string // RFC 3339, "" for never
		err     string
	}{
		{in: TokenRequest{Name: "ci", Scope: "read"}},
		{in: TokenRequest{Name: "deploy", Scope: " write ", ExpiresIn: "720h"}, expires: "2026-12-31T12:00:00Z"},
		{in: TokenRequest{Scope: "root"}, err: `scope: "root" is not one of read, write, admin`},
		{in: TokenRequest{Scope: "admin", ExpiresIn: "-1h"}, err: `expires_in: "-1h" is not a positive duration such as "720h" (at most ten years)`},
		{in: TokenRequest{Scope: "admin", ExpiresIn: "87601h"}, err: `expires_in: "87601h" is not a positive duration such as "720h" (at most ten years)`},
		{in: TokenRequest{Scope: "admin", ExpiresIn: "soon"}, err: `expires_in: "soon" is not a positive duration such as "720h" (at most ten years)`},
		{in: TokenRequest{Name: strings.Repeat("n", 101), Scope: "read"}, err: "name: at most 100 characters"},
		{in: TokenRequest{Name: "a\x00b", Scope: "read"}, err: "name contains a NUL character"},
	} {
		st := &tokenStore{tokens: map[string]*APIToken{}}
		tok, secret, err := IssueToken(context.Background(), st, user, tc.in, now)
		if tc.err != "" {
			if smriti.ErrorCode(err) != smriti.EUNPROCESSABLE || smriti.ErrorMessage(err) != tc.err || len(st.tokens) != 0 {
				t.Errorf("IssueToken(%+v) = %v (stored %d), want EUNPROCESSABLE %q and nothing stored", tc.in, err, len(st.tokens), tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("IssueToken(%+v): %v", tc.in, err)
		}
		if !strings.HasPrefix(secret, "smriti_") || st.tokens[credential.HashSecret(secret)] != tok || tok.UserID != user || tok.Name != tc.in.Name ||
			string(tok.Scope) != strings.TrimSpace(tc.in.Scope) || !tok.CreatedAt.Equal(now) {
			t.Errorf("IssueToken(%+v) = %+v, secret %q; want it stored under the secret's hash, for the user, with its name and scope", tc.in, tok, secret)
		}
		got := ""
		if tok.ExpiresAt != nil {
			got = tok.ExpiresAt.UTC().Format(time.RFC3339)
		}
		if got != tc.expires {
			t.Errorf("IssueToken(%+v) expires %q, want %q", tc.in, got, tc.expires)
		}
	}
}
