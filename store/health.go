package store

import (
	"context"

	"smriti/contract"
	"smriti/store/internal/dbx"
)

// Status checks the database within ctx (the caller bounds it): reachable,
// writable, the migration version and the pool's statistics. It never
// returns an error; what went wrong is in Problem.
func (s *Store) Status(ctx context.Context) contract.DatabaseStatus {
	return dbx.Status(ctx, s.d, s.read, s.write)
}

// Identity names the database the store reads: PostgreSQL's
// system_identifier and timeline, "system/timeline"; "" on SQLite.
func (s *Store) Identity(ctx context.Context) (string, error) {
	if s.d.Name != "postgres" {
		return "", nil
	}
	return dbx.PGIdentity(ctx, s.read)
}

// checkTopology drops the turn cache when the database is not the one it
// was filled from, or when another server purged a secret (see
// dbx.Topology and purgemark.go).
func (s *Store) checkTopology(ctx context.Context) {
	was, now, changed, stale := s.topo.Check(ctx, s.log)
	if changed || stale {
		n, _ := s.cache.Size()
		s.cache.Clear()
		if changed {
			s.log.Warn("the database's identity or timeline changed; dropped the turn cache", "was", was, "now", now, "sessions", n)
		} else {
			s.log.Info("a secret was purged on another server; dropped the cached turns", "sessions", n)
		}
	}
}
