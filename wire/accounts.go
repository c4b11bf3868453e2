package wire

import (
	"smriti/account"
	"time"

	"smriti"
)

// LoginRequest signs a browser in.
type LoginRequest struct {
	Username *string `json:"username" required:"true" doc:"The user's name"`
	Password *string `json:"password" required:"true" doc:"The user's password"`
}

// UserOut is a user as the API shows it (never a password hash).
type UserOut struct {
	ID        smriti.ID `json:"id" doc:"The user"`
	Username  string    `json:"username" doc:"The user's name (the built-in local user is local)"`
	Disabled  bool      `json:"disabled" doc:"A disabled user cannot sign in and their tokens are refused"`
	CreatedAt time.Time `json:"created_at" doc:"When the user was added (RFC 3339, UTC)"`
}

// LoginOut answers a login; the session itself travels only in the
// HttpOnly cookie.
type LoginOut struct {
	User      UserOut   `json:"user" doc:"The signed-in user"`
	ExpiresAt time.Time `json:"expires_at" doc:"When the session cookie expires (RFC 3339, UTC)"`
}

// MeOut is who the request acts for.
type MeOut struct {
	UserID   smriti.ID `json:"user_id" doc:"The caller"`
	Username string    `json:"username" doc:"The caller's name (local for the built-in local user)"`
	Scope    string    `json:"scope" enum:"read,write,admin" doc:"What the credential may do: read, write or admin"`
	// Via is how the request authenticated: token, session, or local (auth
	// mode off).
	Via     string     `json:"via" enum:"token,session,local" doc:"How the request authenticated: token, session (the browser cookie), or local (auth mode off)"`
	TokenID *smriti.ID `json:"token_id" doc:"The API token used (null for a session or the local user)"`
}

// TokenCreateRequest makes an API token for the caller.
type TokenCreateRequest struct {
	Name  *string `json:"name" doc:"A name to recognise the token by: not blank"`
	Scope *string `json:"scope" required:"true" enum:"read,write,admin" doc:"read, write or admin (required)"`
	// ExpiresIn is a Go duration such as "720h"; absent means no expiry.
	ExpiresIn *string `json:"expires_in" doc:"A duration such as 720h (default: never expires)"`
}

// TokenOut is an API token without its secret.
type TokenOut struct {
	ID        smriti.ID  `json:"id" doc:"The token"`
	UserID    smriti.ID  `json:"user_id" doc:"Its user"`
	Name      string     `json:"name" doc:"Its name"`
	Scope     string     `json:"scope" enum:"read,write,admin" doc:"read, write or admin"`
	CreatedAt time.Time  `json:"created_at" doc:"When it was created (RFC 3339, UTC)"`
	ExpiresAt *time.Time `json:"expires_at" doc:"When it expires (null: never)"`
	RevokedAt *time.Time `json:"revoked_at" doc:"When it was revoked (null: live)"`
}

// TokenCreated carries the token's secret, shown this once.
type TokenCreated struct {
	Token  TokenOut `json:"token" doc:"The token's record"`
	Secret string   `json:"secret" doc:"The token itself, shown this once: send it as Authorization: Bearer <secret>"`
}

// MemberRequest sets a member's role.
type MemberRequest struct {
	Role *string `json:"role" required:"true" enum:"owner,editor,viewer" doc:"owner, editor or viewer"`
}

// MemberOut is a user's role in a space.
type MemberOut struct {
	SpaceID   smriti.ID `json:"space_id" doc:"The space"`
	UserID    smriti.ID `json:"user_id" doc:"The member"`
	Username  string    `json:"username" doc:"The member's name"`
	Role      string    `json:"role" enum:"owner,editor,viewer" doc:"Role in the space: owner, editor or viewer"`
	CreatedAt time.Time `json:"created_at" doc:"When the role was given (RFC 3339, UTC)"`
}

// UserOf is the wire form of a user.
func UserOf(u *account.User) UserOut {
	return UserOut{ID: u.ID, Username: u.Username, Disabled: u.Disabled, CreatedAt: u.CreatedAt}
}

// TokenOf is the wire form of a token.
func TokenOf(t *account.APIToken) TokenOut {
	return TokenOut{ID: t.ID, UserID: t.UserID, Name: t.Name, Scope: string(t.Scope), CreatedAt: t.CreatedAt, ExpiresAt: t.ExpiresAt, RevokedAt: t.RevokedAt}
}
