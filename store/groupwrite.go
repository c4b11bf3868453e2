package store

import (
	"context"
	"database/sql"
	"fmt"

	"smriti/idempotency"

	"smriti/store/internal/dbx"
)

// Grouped writes: on SQLite every write transaction runs on the one writer
// connection, one after another, and each pays for its own COMMIT (the
// write-ahead log frames of every page it touched, the full-text index's
// flush). Concurrent checkpoint commits are therefore run in one
// transaction: whoever finds no group running leads, takes every write
// queued so far and runs them one after another, each inside a SAVEPOINT,
// then commits once; the first write queued meanwhile leads the next group.
// A lone write runs at once, so nothing waits for a group to fill.
//
// Each write keeps the semantics of running alone: it sees every write
// before it in the group (same transaction), and one that fails is rolled
// back to its savepoint and gets its own error while the others go on.
// When the group's transaction itself fails, every write is run again on
// its own (an ambiguous COMMIT is answered as it would be alone: each
// caller looks up what is stored). A write in a group runs without its
// caller's cancellation (checked before it starts): cancelling a statement
// interrupts SQLite, which would roll back the whole group's transaction.
// A write with an idempotency claim is never grouped (its claim is placed by
// the transaction that writes it). The batching is a groupcommit.Queue
// (s.writes).

// maxWriteGroup bounds the writes run in one transaction.
const maxWriteGroup = 16

type pendingWrite struct {
	ctx context.Context
	fn  func(ctx context.Context, tx *sql.Tx) error
	err error
}

// groupedTx runs fn as s.tx would, in a group with concurrent grouped
// writes on SQLite; elsewhere (PostgreSQL, whose writers run in parallel on
// their own connections) and for a write with an idempotency claim it is
// s.tx.
func (s *Store) groupedTx(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	if s.d.Name != "sqlite" || idempotency.ClaimFrom(ctx) != nil || s.held(ctx) != nil {
		return s.tx(ctx, func(tx *sql.Tx) error { return fn(ctx, tx) })
	}
	p := &pendingWrite{ctx: ctx, fn: fn}
	s.writes.Do(p, s.runWriteGroup)
	return p.err
}

// runWriteGroup runs a group and leaves every write's result in it.
func (s *Store) runWriteGroup(batch []*pendingWrite) {
	live := make([]*pendingWrite, 0, len(batch))
	for _, p := range batch {
		if err := p.ctx.Err(); err != nil {
			p.err = fmt.Errorf("begin: %w", err)
			continue
		}
		live = append(live, p)
	}
	switch {
	case len(live) == 1:
		p := live[0]
		p.err = s.tx(p.ctx, func(tx *sql.Tx) error { return p.fn(p.ctx, tx) })
	case len(live) > 1:
		ctx := context.WithoutCancel(live[0].ctx)
		err := s.tx(ctx, func(tx *sql.Tx) error {
			for _, p := range live {
				if p.err = p.ctx.Err(); p.err != nil {
					continue
				}
				if _, err := s.stmts.WriteStmt(ctx, tx, `SAVEPOINT grouped_write`).ExecContext(ctx); err != nil {
					return fmt.Errorf("savepoint: %w", err)
				}
				if p.err = p.fn(context.WithoutCancel(p.ctx), tx); p.err != nil {
					s.last.Store(nil) // what it wrote is rolled back
					if _, err := s.stmts.WriteStmt(ctx, tx, `ROLLBACK TO grouped_write`).ExecContext(ctx); err != nil {
						return fmt.Errorf("rollback to savepoint: %w", err)
					}
				}
				if _, err := s.stmts.WriteStmt(ctx, tx, `RELEASE grouped_write`).ExecContext(ctx); err != nil {
					return fmt.Errorf("release savepoint: %w", err)
				}
			}
			return nil
		})
		switch {
		case err == nil:
		case dbx.Ambiguous(err):
			// COMMIT failed after it was sent: what was written may be
			// stored. Each write that succeeded in the group gets the
			// error and settles it as it would alone.
			for _, p := range live {
				if p.err == nil {
					p.err = err
				}
			}
		default:
			// Nothing was stored: each write runs again on its own, so an
			// error goes to the write it belongs to.
			for _, p := range live {
				p.err = s.tx(p.ctx, func(tx *sql.Tx) error { return p.fn(p.ctx, tx) })
			}
		}
	}
}
