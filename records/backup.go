package records

import (
	"time"

	"smriti"
	"smriti/account"
)

// A backup of a whole store carries, beside each space's bundle, the rows
// no bundle holds: who owns each space and the accounts.

// SpaceOwner names a space and the user who owns it.
type SpaceOwner struct {
	ID      smriti.ID `json:"id"`
	OwnerID smriti.ID `json:"owner_id"`
	Name    string    `json:"name"`
}

// Accounts are the rows a space bundle does not carry: users (with their
// password hashes), API tokens (their secrets' SHA-256 only) and the
// memberships other than each space's owner. A backup keeps them so a
// restored server signs the same people in.
type Accounts struct {
	Users   []AccountUser   `json:"users"`
	Tokens  []AccountToken  `json:"tokens"`
	Members []AccountMember `json:"members"`
}

// AccountUser is one users row. PasswordHash is the argon2id hash, never a
// password.
type AccountUser struct {
	ID           smriti.ID `json:"id"`
	Username     string    `json:"username"`
	PasswordHash string    `json:"password_hash"`
	Disabled     bool      `json:"disabled"`
	CreatedAt    time.Time `json:"created_at"`
}

// AccountToken is one api_tokens row. SecretHash is the SHA-256 of the
// secret, which no backup holds.
type AccountToken struct {
	ID         smriti.ID     `json:"id"`
	UserID     smriti.ID     `json:"user_id"`
	Name       string        `json:"name"`
	SecretHash string        `json:"secret_hash"`
	Scope      account.Scope `json:"scope"`
	CreatedAt  time.Time     `json:"created_at"`
	ExpiresAt  *time.Time    `json:"expires_at"`
	RevokedAt  *time.Time    `json:"revoked_at"`
}

// AccountMember is a space_members row other than the space's owner.
type AccountMember struct {
	SpaceID   smriti.ID    `json:"space_id"`
	UserID    smriti.ID    `json:"user_id"`
	Role      account.Role `json:"role"`
	CreatedAt time.Time    `json:"created_at"`
}

// Emptiness says what a store already holds, so a restore can refuse to
// mix a backup into live data.
type Emptiness struct {
	Spaces, Sessions, Users int
}

// Empty reports whether the store holds no space, no session and no user
// but the built-in local one.
func (e Emptiness) Empty() bool { return e.Spaces == 0 && e.Sessions == 0 && e.Users == 0 }

// StoreVerification is the outcome of recomputing every checkpoint hash in
// a store.
type StoreVerification struct {
	Spaces      int         `json:"spaces"`
	Checkpoints int         `json:"checkpoints"`
	Turns       int         `json:"turns"`
	Mismatches  []smriti.ID `json:"mismatches"`
}
