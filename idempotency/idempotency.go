// Package idempotency holds the keys that make a creating write safe to
// send twice: the claim a use case writes under (carried in the context to
// the store's transaction), the stored answer, and the store that keeps
// them. app decides what a repeated key answers; the store inserts the key's
// row in the write's own transaction.
//
// It imports nothing of Smriti's.
package idempotency

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Answer is what an idempotency key of a creating write (other
// than a send) has stored: the digest of the request it first answered and,
// once recorded, that answer (Status 0 while the first request is still
// answering, or when its answer was lost).
type Answer struct {
	RequestHash string
	Status      int
	Body        []byte
	CreatedAt   time.Time
}

// Store keeps the idempotency keys of creating writes. Keys are
// scoped to the caller in the context and to a kind (the route). The row of
// a key is inserted by the write's own transaction (see
// WithClaim), so it exists exactly when the write does.
type Store interface {
	// IdempotentAnswer returns the key's row within the retention, nil when
	// there is none.
	IdempotentAnswer(ctx context.Context, kind, key string) (*Answer, error)
	// RecordIdempotentAnswer stores the answer under the key (inserting the
	// row when the write's transaction did not, as after a COMMIT whose
	// outcome was settled by a look-up). It never overwrites an answer or
	// a row with another request hash.
	RecordIdempotentAnswer(ctx context.Context, kind, key, requestHash string, status int, body []byte) error
}

// ErrKeyTaken is a write refused because another request holding
// its idempotency key committed first (the other request's row is stored;
// look it up).
var ErrKeyTaken = errors.New("idempotency key already taken")

// Claim is a key a use case writes under: the first write
// transaction that commits while it is in the context stores its row.
type Claim struct {
	Kind, Key, RequestHash string

	mu    sync.Mutex
	state int // 0 not placed, 1 in an open transaction, 2 committed (or maybe)
}

// Begin reports whether the transaction about to run should insert the
// claim's row (no other transaction holds or has committed it).
func (c *Claim) Begin() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state != 0 {
		return false
	}
	c.state = 1
	return true
}

// End settles a Begin: committed (or a COMMIT whose outcome is unknown)
// keeps the claim placed; otherwise a later transaction inserts it.
func (c *Claim) End(placed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if placed {
		c.state = 2
	} else {
		c.state = 0
	}
}

// Placed reports whether a transaction with the claim's row committed (or
// may have).
func (c *Claim) Placed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state == 2
}

type claimKey struct{}

// WithClaim returns ctx whose first committing write transaction
// also stores c's row.
func WithClaim(ctx context.Context, c *Claim) context.Context {
	return context.WithValue(ctx, claimKey{}, c)
}

// ClaimFrom returns the claim in ctx, nil when there is none.
func ClaimFrom(ctx context.Context) *Claim {
	c, _ := ctx.Value(claimKey{}).(*Claim)
	return c
}
