package store

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// The turn cache trusts that a stored turn never changes. That holds for one
// database, not across two: after a failover to a standby that had not
// received everything, or a split brain where an old primary came back
// writable, the same (session, sequence number) may name another turn. The
// store therefore remembers which database it reads — PostgreSQL's
// system_identifier (one per cluster, shared by its physical standbys) and
// timeline (a new one at every promotion; see identityQuery) — and drops the whole cache when
// either changes. It looks at most every topologyEvery, and at the next
// read after a new connection opened (a reconnect is when a failover is
// first seen). SQLite is one file: nothing to check.

// topologyEvery is the longest the identity goes unchecked while the cache
// is used.
const topologyEvery = 3 * time.Second

type topology struct {
	// probe returns the database's identity; tests replace it.
	probe func(ctx context.Context) (string, error)
	mu    sync.Mutex // held while probing
	known string
	last  atomic.Int64 // when the last probe answered, in Unix nanoseconds
	due   atomic.Bool  // a connection opened since the last probe
	off   atomic.Bool  // the probe is not permitted: no checks
	// drops counts the times the cache was dropped.
	drops atomic.Int64
	// purges is the purge mark last read (see checkPurges); epoch counts
	// the times caches were dropped for what changed elsewhere.
	purges string
	epoch  atomic.Int64
}

// reconnected marks a check due; it runs on every new connection.
func (t *topology) reconnected() { t.due.Store(true) }

// identityQuery reads the cluster's system identifier and its timeline. The
// last checkpoint's timeline (pg_control_checkpoint) moves only at the
// first checkpoint after a promotion; on a primary the current WAL file's
// name carries the new one from the moment of the promotion.
const identityQuery = `SELECT s.system_identifier, CASE WHEN pg_is_in_recovery() THEN c.timeline_id
	ELSE greatest(c.timeline_id, ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::int) END
	FROM pg_control_system() s, pg_control_checkpoint() c`

// pgIdentity is the PostgreSQL probe.
func (s *Store) pgIdentity(ctx context.Context) (string, error) {
	var system, timeline int64
	err := s.read.QueryRowContext(ctx, identityQuery).Scan(&system, &timeline)
	if err != nil {
		return "", err
	}
	return strconv.FormatInt(system, 10) + "/" + strconv.FormatInt(timeline, 10), nil
}

// checkTopology drops the turn cache when the database is not the one it
// was filled from, or when another server purged a secret (see
// checkPurges). It probes only when a check is due and no other caller is
// probing; a failed probe is tried again at the next read.
func (s *Store) checkTopology(ctx context.Context) {
	t := &s.topo
	if t.probe == nil {
		return
	}
	now := time.Now()
	if !t.due.Load() && now.Sub(time.Unix(0, t.last.Load())) < topologyEvery {
		return
	}
	if !t.mu.TryLock() {
		return
	}
	defer t.mu.Unlock()
	t.due.Store(false)
	pctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	s.checkPurges(pctx)
	if !t.off.Load() {
		s.checkIdentity(pctx, now)
	} else {
		t.last.Store(now.UnixNano())
	}
}

// checkIdentity is checkTopology's probe of the database's identity.
func (s *Store) checkIdentity(pctx context.Context, now time.Time) {
	t := &s.topo
	id, err := t.probe(pctx)
	if err != nil {
		var pg *pgconn.PgError
		if errors.As(err, &pg) && pg.Code == "42501" {
			// Not permitted (pg_control_* need pg_monitor or a superuser
			// where the grants were narrowed): said once, then not tried.
			t.off.Store(true)
			s.log.Warn("cannot read the database's identity (pg_control_system); the turn cache will not notice a failover to another database", "err", err)
			return
		}
		t.due.Store(true)
		return
	}
	t.last.Store(now.UnixNano())
	if t.known != "" && id != t.known {
		n, _ := s.cache.size()
		s.cache.clear()
		t.drops.Add(1)
		t.epoch.Add(1)
		s.log.Warn("the database's identity or timeline changed; dropped the turn cache", "was", t.known, "now", id, "sessions", n)
	}
	t.known = id
}

// Identity names the database the store reads: PostgreSQL's
// system_identifier and timeline, "system/timeline"; "" on SQLite.
func (s *Store) Identity(ctx context.Context) (string, error) {
	if s.d.name != "postgres" {
		return "", nil
	}
	return s.pgIdentity(ctx)
}

// A purge rewrites turns and checkpoints in place, which every cache of
// them assumes never happens: the server that purged drops its own caches at
// once, and every other server on the same database at its next probe
// (within topologyEvery of its next read), when the purge mark — how many
// purges are recorded, and the greatest of their ids — has changed. CacheEpoch tells the
// App's caches (rendered state by checkpoint hash, which a purge keeps) to
// drop theirs too.
const purgeMarkQuery = `SELECT count(*), coalesce(max(CAST(id AS TEXT)), '') FROM secret_purges`

// checkPurges is checkTopology's probe of the purge mark.
func (s *Store) checkPurges(ctx context.Context) {
	var n int64
	var newest string
	if err := s.read.QueryRowContext(ctx, purgeMarkQuery).Scan(&n, &newest); err != nil {
		s.topo.due.Store(true)
		return
	}
	mark := strconv.FormatInt(n, 10) + "/" + newest
	t := &s.topo
	if t.purges != "" && mark != t.purges {
		s.cache.clear()
		t.epoch.Add(1)
		s.log.Info("a secret was purged on another server; dropped the cached turns and state")
	}
	t.purges = mark
}

// CacheEpoch counts the times the store dropped its caches for a change made
// elsewhere (a failover to another database, a purge by another server).
// A cache of what the store returns drops its entries when it changes.
func (s *Store) CacheEpoch() int64 { return s.topo.epoch.Load() }
