package store

import (
	"context"
	"database/sql"
)

// heldTx is the transaction RunInTx holds, carried by the context it hands
// to its function.
type heldTx struct {
	s  *Store
	tx *sql.Tx
}

type heldTxKey struct{}

// RunInTx runs fn in one transaction: every write of this store that fn
// makes with the context it is given joins that transaction, so they all
// commit together, or — when fn fails, or the commit does — none is
// stored. Like every write it may run fn again on a retryable conflict, so
// fn must not act outside the store. Reads fn makes through the store's
// read methods see what was committed before it began, not its own writes.
func (s *Store) RunInTx(ctx context.Context, fn func(ctx context.Context) error) error {
	if s.held(ctx) != nil {
		return fn(ctx)
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		return fn(context.WithValue(ctx, heldTxKey{}, &heldTx{s: s, tx: tx}))
	})
}

// held is the transaction RunInTx holds for ctx on this store (nil when
// none).
func (s *Store) held(ctx context.Context) *sql.Tx {
	if h, ok := ctx.Value(heldTxKey{}).(*heldTx); ok && h.s == s {
		return h.tx
	}
	return nil
}
