package store

import (
	"context"

	"smriti"
	"smriti/store/internal/dbx"
)

// Status checks the database within ctx (the caller bounds it): reachable,
// writable, the migration version and the pool's statistics. It never
// returns an error; what went wrong is in Problem.
func (s *Store) Status(ctx context.Context) smriti.DatabaseStatus {
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
// was filled from (see dbx.Topology).
func (s *Store) checkTopology(ctx context.Context) {
	if was, now, changed := s.topo.Check(ctx, s.log); changed {
		n, _ := s.cache.Size()
		s.cache.Clear()
		s.log.Warn("the database's identity or timeline changed; dropped the turn cache", "was", was, "now", now, "sessions", n)
	}
}
