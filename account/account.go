// Package account holds who may use Smriti and how far: users, API tokens
// and their scopes, browser-session principals, and a Space's members with
// their roles (the one rule for what a role permits). The store keeps
// accounts (Service); the HTTP server checks them.
//
// It imports the domain (smriti) and credential only.
package account

import (
	"context"
	"regexp"
	"smriti"
	"smriti/credential"
	"smriti/internal/textutil"
	"strings"
	"sync"
	"time"
)

// User is an account that may sign in (auth mode) and own or share Spaces.
// The built-in local user (smriti.LocalUserID) has no password and never signs in.
type User struct {
	ID        smriti.ID
	Username  string
	Disabled  bool
	CreatedAt time.Time
}

// Scope is what an API token may do: read (GET/HEAD only), write (everything
// but account management) or admin (also users and tokens).
type Scope string

// Token scopes, weakest first.
const (
	ScopeRead  Scope = "read"
	ScopeWrite Scope = "write"
	ScopeAdmin Scope = "admin"
)

// Need is what a request asks to do.
type Need int

// Needs, weakest first.
const (
	NeedRead  Need = iota // look without changing anything
	NeedWrite             // change a space's contents
	NeedAdmin             // manage accounts, tokens or a space's members
)

// parseScope returns the scope named s, or EUNPROCESSABLE.
func parseScope(s string) (Scope, error) {
	switch Scope(s) {
	case ScopeRead, ScopeWrite, ScopeAdmin:
		return Scope(s), nil
	}
	return "", smriti.Errorf(smriti.EUNPROCESSABLE, "scope: %q is not one of read, write, admin", textutil.Truncate(s, 32))
}

// Permits reports whether a token of this scope may do what need asks.
func (s Scope) Permits(need Need) bool {
	switch s {
	case ScopeAdmin:
		return true
	case ScopeWrite:
		return need <= NeedWrite
	case ScopeRead:
		return need == NeedRead
	}
	return false
}

// Role is a member's standing in a Space. The Space's creator is its owner.
type Role string

// Space roles, weakest first.
const (
	RoleViewer Role = "viewer"
	RoleEditor Role = "editor"
	RoleOwner  Role = "owner"
)

// ParseRole returns the role named s, or EUNPROCESSABLE.
func ParseRole(s string) (Role, error) {
	switch Role(s) {
	case RoleViewer, RoleEditor, RoleOwner:
		return Role(s), nil
	}
	return "", smriti.Errorf(smriti.EUNPROCESSABLE, "role: %q is not one of owner, editor, viewer", textutil.Truncate(s, 32))
}

// Permits is the one rule for what a member may do in a Space: a viewer
// reads, an editor also writes, the owner also manages members.
func (r Role) Permits(need Need) bool {
	switch r {
	case RoleOwner:
		return true
	case RoleEditor:
		return need <= NeedWrite
	case RoleViewer:
		return need == NeedRead
	}
	return false
}

// Authorize returns nil when role permits need, and otherwise the EFORBIDDEN
// error every adapter reports for it.
func (r Role) Authorize(need Need) error {
	if r.Permits(need) {
		return nil
	}
	switch need {
	case NeedAdmin:
		return smriti.Errorf(smriti.EFORBIDDEN, "only the space's owner may do this")
	default:
		return smriti.Errorf(smriti.EFORBIDDEN, "a %s of this space may not change it", r)
	}
}

// Member is a user's role in a Space.
type Member struct {
	SpaceID   smriti.ID
	UserID    smriti.ID
	Username  string
	Role      Role
	CreatedAt time.Time
}

// APIToken is a bearer credential. Only the SHA-256 of its secret is stored;
// the secret is shown once, when the token is made.
type APIToken struct {
	ID        smriti.ID
	UserID    smriti.ID
	Name      string
	Scope     Scope
	CreatedAt time.Time
	ExpiresAt *time.Time
	RevokedAt *time.Time
}

// Principal is who a request acts for and how far it may go.
type Principal struct {
	UserID   smriti.ID
	Username string
	Scope    Scope
	// TokenID is the API token used, nil for a browser session or local mode.
	TokenID *smriti.ID
	// Expires is when the credential stops working (nil: never).
	Expires *time.Time
}

// CheckUsable returns EUNAUTHORIZED when the token may not be used at now.
func (t *APIToken) CheckUsable(now time.Time) error {
	switch {
	case t.RevokedAt != nil:
		return errBadCredentials
	case t.ExpiresAt != nil && !now.Before(*t.ExpiresAt):
		return errBadCredentials
	}
	return nil
}

// errBadCredentials is the one answer for every unusable credential, so a
// caller cannot tell a revoked token from an expired or unknown one.
var errBadCredentials = smriti.Errorf(smriti.EUNAUTHORIZED, "missing, invalid, expired or revoked credentials")

// ErrBadCredentials returns the error for an unusable credential.
func ErrBadCredentials() error { return errBadCredentials }

var usernameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`) })

// ValidateUsername checks a new username: 1–64 of a-z 0-9 . _ -, starting
// with a letter or digit.
func ValidateUsername(name string) error {
	if !usernameRE().MatchString(name) {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "username: %q must be 1–64 characters of a-z, 0-9, '.', '_' or '-', starting with a letter or digit", textutil.Truncate(name, 64))
	}
	return nil
}

// Service keeps users, API tokens, browser sessions and space members.
// Methods taking ctx act for the caller in it where they say so.
type Service interface {
	// CreateUser stores a user with the given password hash; ECONFLICT when
	// the username is taken.
	CreateUser(ctx context.Context, username, passwordHash string) (*User, error)
	// Users lists every user by username.
	Users(ctx context.Context) ([]*User, error)
	// UserByName returns the user and its password hash, or ENOTFOUND.
	UserByName(ctx context.Context, username string) (*User, string, error)
	// SetUserDisabled disables or re-enables a user; ENOTFOUND when unknown.
	// Disabling also ends the user's browser sessions.
	SetUserDisabled(ctx context.Context, username string, disabled bool) (*User, error)

	// CreateToken stores t under the hash of its secret.
	CreateToken(ctx context.Context, t *APIToken, secretHash string) error
	// Tokens lists the user's tokens, newest first.
	Tokens(ctx context.Context, userID smriti.ID) ([]*APIToken, error)
	// RevokeToken revokes one of the user's tokens; ENOTFOUND when the user
	// has no such token (revoking twice keeps the first time).
	RevokeToken(ctx context.Context, userID, id smriti.ID) (*APIToken, error)
	// TokenPrincipal resolves a token secret's hash at now: EUNAUTHORIZED
	// when unknown, revoked, expired or its user is disabled.
	TokenPrincipal(ctx context.Context, secretHash string, now time.Time) (*Principal, error)

	// CreateBrowserSession stores a signed-in browser's session.
	CreateBrowserSession(ctx context.Context, secretHash string, userID smriti.ID, expires time.Time) error
	// SessionPrincipal resolves a browser session's hash at now; EUNAUTHORIZED
	// as TokenPrincipal.
	SessionPrincipal(ctx context.Context, secretHash string, now time.Time) (*Principal, error)
	// DeleteBrowserSession ends a browser session; unknown hashes are ignored.
	DeleteBrowserSession(ctx context.Context, secretHash string) error

	// SpaceRole returns the caller's role in the Space that holds id (a
	// space, session, checkpoint, claim or worktree id); ENOTFOUND when no
	// such thing exists or the caller is not a member of its Space.
	SpaceRole(ctx context.Context, id smriti.ID) (Role, error)
	// Members lists a Space's members; ENOTFOUND as SpaceRole.
	Members(ctx context.Context, spaceID smriti.ID) ([]*Member, error)
	// SetMember gives a user a role in the Space; the caller must own it
	// (EFORBIDDEN otherwise), the user must exist (ENOTFOUND) and the Space's
	// creator stays its owner (ECONFLICT).
	SetMember(ctx context.Context, spaceID, userID smriti.ID, role Role) (*Member, error)
	// RemoveMember takes a user out of the Space; rules as SetMember, and
	// ENOTFOUND when the user is not a member.
	RemoveMember(ctx context.Context, spaceID, userID smriti.ID) error
}

// maxTokenNameLen bounds a token's name.
const maxTokenNameLen = 100

// TokenRequest is what a caller asks of a new API token.
type TokenRequest struct {
	Name  string
	Scope string
	// ExpiresIn is a Go duration ("720h"); "" means the token never expires.
	ExpiresIn string
}

// IssueToken validates in, makes a token for user and stores it under the
// hash of its secret. The secret is returned this once and kept nowhere.
// The HTTP API and the CLI both issue tokens through it.
func IssueToken(ctx context.Context, accounts Service, user smriti.ID, in TokenRequest, now time.Time) (*APIToken, string, error) {
	scope, err := parseScope(strings.TrimSpace(in.Scope))
	if err != nil {
		return nil, "", err
	}
	if len([]rune(in.Name)) > maxTokenNameLen {
		return nil, "", smriti.Errorf(smriti.EUNPROCESSABLE, "name: at most %d characters", maxTokenNameLen)
	}
	if err := smriti.CheckText("name", in.Name); err != nil {
		return nil, "", err
	}
	t := &APIToken{ID: smriti.NewID(), UserID: user, Name: in.Name, Scope: scope, CreatedAt: now}
	if in.ExpiresIn != "" {
		d, err := time.ParseDuration(in.ExpiresIn)
		if err != nil || d <= 0 || d > 10*365*24*time.Hour {
			return nil, "", smriti.Errorf(smriti.EUNPROCESSABLE, "expires_in: %q is not a positive duration such as \"720h\" (at most ten years)", textutil.Truncate(in.ExpiresIn, 32))
		}
		exp := now.Add(d)
		t.ExpiresAt = &exp
	}
	secret, hash, err := credential.NewSecret()
	if err != nil {
		return nil, "", err
	}
	if err := accounts.CreateToken(ctx, t, hash); err != nil {
		return nil, "", err
	}
	return t, secret, nil
}
