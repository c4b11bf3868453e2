package store

import (
	"context"
	"strconv"
)

// A purge rewrites turns and checkpoints in place, which every cache of
// them assumes never happens: the server that purged drops its own caches at
// once, and every other server on the same database at its next probe
// (within 3 s of its next read, or after a reconnect), when the purge mark
// — how many purges are recorded, and the greatest of their ids — has
// changed. CacheEpoch tells the App's caches (rendered state by checkpoint
// hash, which a purge keeps) to drop theirs too.
const purgeMarkQuery = `SELECT count(*), coalesce(max(CAST(id AS TEXT)), '') FROM secret_purges`

// purgeMark is the database probe's mark (dbx.Topology.SetMark).
func (s *Store) purgeMark(ctx context.Context) (string, error) {
	var n int64
	var greatest string
	if err := s.read.QueryRowContext(ctx, purgeMarkQuery).Scan(&n, &greatest); err != nil {
		return "", err
	}
	return strconv.FormatInt(n, 10) + "/" + greatest, nil
}

// CacheEpoch counts the times the store's caches went stale for a change
// made elsewhere (a failover to another database, a purge by another
// server) or by a purge here. A cache of what the store returns drops its
// entries when it changes.
func (s *Store) CacheEpoch() int64 { return s.topo.Epoch() }
