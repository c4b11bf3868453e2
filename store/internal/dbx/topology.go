package dbx

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// The store's turn cache trusts that a stored turn never changes. That holds for one
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

// Topology watches the identity of the database behind a pool. The zero
// value, without a probe, watches nothing (SQLite).
type Topology struct {
	// probe returns the database's identity.
	probe func(ctx context.Context) (string, error)
	mu    sync.Mutex // held while probing
	known string
	last  atomic.Int64 // when the last probe answered, in Unix nanoseconds
	due   atomic.Bool  // a connection opened since the last probe
	off   atomic.Bool  // the probe is not permitted: no checks
	// drops counts the times the identity changed.
	drops atomic.Int64
	// mark, when set, is a second probe run at each check, even where the
	// identity cannot be read: a value that moves when another server
	// rewrote what the caller caches (see store/purgemark.go). marked is
	// its last answer.
	mark   func(ctx context.Context) (string, error)
	marked string
	// epoch counts the times the caller's caches went stale: the identity
	// or the mark changed, or Bump.
	epoch atomic.Int64
}

// SetMark sets the mark probe (see Topology.mark).
func (t *Topology) SetMark(mark func(ctx context.Context) (string, error)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.mark = mark
}

// Epoch counts the times what the caller cached went stale.
func (t *Topology) Epoch() int64 { return t.epoch.Load() }

// Bump moves the epoch: the caller itself made its caches stale.
func (t *Topology) Bump() { t.epoch.Add(1) }

// Reconnected marks a check due; it runs on every new connection.
func (t *Topology) Reconnected() { t.due.Store(true) }

// SetProbe sets the probe of the database's identity and turns checks on.
func (t *Topology) SetProbe(probe func(ctx context.Context) (string, error)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.probe = probe
	t.off.Store(false)
}

// Drops counts the times Check found the identity changed.
func (t *Topology) Drops() int64 { return t.drops.Load() }

// identityQuery reads the cluster's system identifier and its timeline. The
// last checkpoint's timeline (pg_control_checkpoint) moves only at the
// first checkpoint after a promotion; on a primary the current WAL file's
// name carries the new one from the moment of the promotion.
const identityQuery = `SELECT s.system_identifier, CASE WHEN pg_is_in_recovery() THEN c.timeline_id
	ELSE greatest(c.timeline_id, ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::int) END
	FROM pg_control_system() s, pg_control_checkpoint() c`

// PGIdentity is the PostgreSQL probe: "system/timeline".
func PGIdentity(ctx context.Context, db *sql.DB) (string, error) {
	var system, timeline int64
	err := db.QueryRowContext(ctx, identityQuery).Scan(&system, &timeline)
	if err != nil {
		return "", err
	}
	return strconv.FormatInt(system, 10) + "/" + strconv.FormatInt(timeline, 10), nil
}

// Check reports whether the database is no longer the one the last check
// found, and both identities (changed), or whether the mark moved (stale):
// either way the caller drops what it filled before. It probes only when a
// check is due and no other caller is probing; a failed probe is tried
// again at the next call.
func (t *Topology) Check(ctx context.Context, log *slog.Logger) (was, now string, changed, stale bool) {
	if t.probe == nil {
		return "", "", false, false
	}
	at := time.Now()
	if !t.due.Load() && at.Sub(time.Unix(0, t.last.Load())) < topologyEvery {
		return "", "", false, false
	}
	if !t.mu.TryLock() {
		return "", "", false, false
	}
	defer t.mu.Unlock()
	t.due.Store(false)
	pctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if t.mark != nil {
		if m, err := t.mark(pctx); err != nil {
			t.due.Store(true)
		} else {
			stale = t.marked != "" && m != t.marked
			t.marked = m
		}
	}
	if t.off.Load() {
		t.last.Store(at.UnixNano())
		return t.bumped("", "", false, stale)
	}
	id, err := t.probe(pctx)
	if err != nil {
		var pg *pgconn.PgError
		if errors.As(err, &pg) && pg.Code == "42501" {
			// Not permitted (pg_control_* need pg_monitor or a superuser
			// where the grants were narrowed): said once, then not tried.
			t.off.Store(true)
			log.Warn("cannot read the database's identity (pg_control_system); the turn cache will not notice a failover to another database", "err", err)
			return t.bumped("", "", false, stale)
		}
		t.due.Store(true)
		return t.bumped("", "", false, stale)
	}
	t.last.Store(at.UnixNano())
	was, changed = t.known, t.known != "" && id != t.known
	if changed {
		t.drops.Add(1)
	}
	t.known = id
	return t.bumped(was, id, changed, stale)
}

// bumped moves the epoch when the identity or the mark changed.
func (t *Topology) bumped(was, now string, changed, stale bool) (string, string, bool, bool) {
	if changed || stale {
		t.epoch.Add(1)
	}
	return was, now, changed, stale
}
