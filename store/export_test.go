package store

import (
	"context"
	"io/fs"

	"smriti"
)

// WriteGroup writes exchanges as one group commit, each under its own
// context, and returns their results in order.
func (s *Store) WriteGroup(ctxs []context.Context, exs []smriti.Exchange) ([]*smriti.ExchangeResult, []error) {
	batch := make([]*pendingExchange, len(exs))
	for i := range exs {
		batch[i] = &pendingExchange{ctx: ctxs[i], ex: exs[i]}
	}
	s.writeGroup(batch)
	res, errs := make([]*smriti.ExchangeResult, len(exs)), make([]error, len(exs))
	for i, p := range batch {
		res[i], errs[i] = p.res, p.err
	}
	return res, errs
}

// SetCommitFaults installs the commit test hooks (nil: none): before fails
// a transaction just before its COMMIT, after reports an error from a
// COMMIT that happened.
func (s *Store) SetCommitFaults(before, after func() error) {
	s.faults = faults{beforeCommit: before, afterCommit: after}
}

// Migrations is the embedded migrations of an engine ("sqlite" or
// "postgres").
func Migrations(engine string) (fs.FS, error) { return fs.Sub(migrations, "migrations/"+engine) }

// SetIdentityProbe replaces the probe of the database's identity and marks
// a check due at the next read, as a reconnect does.
func (s *Store) SetIdentityProbe(probe func(ctx context.Context) (string, error)) {
	s.topo.SetProbe(probe)
	s.topo.Reconnected()
}

// IdentityCacheDrops counts the times a changed identity dropped the turn
// cache.
func (s *Store) IdentityCacheDrops() int64 { return s.topo.Drops() }
