// Package smriti holds the domain of Smriti — version control for reasoning
// state: Spaces, Sessions and their Turns (the append-only event stream), and
// Checkpoints (immutable, structured, branchable snapshots of what was
// concluded) with their items and notes — together with the service
// interfaces the adapters implement, the limits every write obeys, and the
// pure rules (hash, diff, merge, item identity, tasks, references,
// authorship) that sit between them. The rest of the domain imports only
// this package: how agents coordinate is in coord, accounts in account (and
// their secrets in credential), search in search, idempotency keys in
// idempotency. Use cases are in app, prompts in intelligence, markdown views
// in render, file formats in portability.
//
// This package imports nothing of Smriti's but internal/nonnil, and no
// adapter: no SQL, no HTTP, no provider SDK.
package smriti

import (
	"context"

	"github.com/google/uuid"

	"smriti/internal/textutil"
)

// ID identifies every stored thing.
type ID = uuid.UUID

var (
	// NilID is the zero ID.
	NilID = uuid.Nil
	// LocalUserID is the built-in user every request runs as in local mode (no
	// --auth).
	// It matches the single tenant of the first implementation so that migrated
	// data keeps its owner.
	LocalUserID = uuid.MustParse("00000000-0000-0000-0000-00000000000a")
)

// Built-in names.
const (
	// MainBranch is the branch every Space starts with.
	MainBranch = "main"
	// LocalUsername is the local user's name, which is how it is shown.
	LocalUsername = "local"
)

// ParseID parses s as a UUID, returning an EINVALID error naming field when it
// is not one.
func ParseID(field, s string) (ID, error) {
	id, err := uuid.Parse(s)
	if err != nil || len(s) != 36 {
		return NilID, Errorf(EINVALID, "%s: %q is not a valid UUID", field, textutil.Truncate(s, 64))
	}
	return id, nil
}

// NewID returns a new random ID.
func NewID() ID { return uuid.New() }

type userKey struct{}

// WithUser returns a context whose caller is user.
func WithUser(ctx context.Context, user ID) context.Context {
	return context.WithValue(ctx, userKey{}, user)
}

// UserFromContext returns the caller of ctx. Every store query is scoped by it,
// so that adding accounts changes no query. A context without a user is the
// local user.
func UserFromContext(ctx context.Context) ID {
	if u, ok := ctx.Value(userKey{}).(ID); ok {
		return u
	}
	return LocalUserID
}
