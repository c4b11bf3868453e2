package dbx

import (
	"context"
	"database/sql"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// SQLite copies its write-ahead log back into the database file in a
// "checkpoint", which ends with an fsync. Left to itself it runs the
// checkpoint inside the commit that crosses 1,000 log pages, so about one
// send in fifty (a send writes ~20 pages) waited ~10 ms for it: the p99 of a
// lone client was 10-12 ms against 1 ms at the median. The
// store runs checkpoints on their own goroutine instead, a short while after
// writes; SQLite's own checkpoint stays as a backstop at a larger log size
// should this one fall behind.
const (
	// checkpointAfter is how soon after a write a checkpoint may start.
	checkpointAfter = 50 * time.Millisecond
	// BackstopPages is SQLite's own checkpoint threshold (the DSN's
	// wal_autocheckpoint), in log pages.
	BackstopPages = 10000
)

// Checkpointer runs PASSIVE checkpoints, which never wait for readers or the
// writer, off the request path. A nil Checkpointer (PostgreSQL) does
// nothing.
type Checkpointer struct {
	kick     chan struct{}
	stop     chan struct{}
	stopOnce sync.Once
	done     sync.WaitGroup
	runs     atomic.Int64 // checkpoints that completed, for tests
	after    time.Duration
	// mu is held while a checkpoint runs. SQLite lets one checkpoint run
	// at a time and answers any other at once as busy, without waiting, so
	// a caller that needs its own (a purge's TRUNCATE) takes it first.
	mu sync.Mutex
}

// StartCheckpointer starts the goroutine that checkpoints the SQLite
// database behind db.
func StartCheckpointer(db *sql.DB, log *slog.Logger) *Checkpointer {
	c := &Checkpointer{kick: make(chan struct{}, 1), stop: make(chan struct{}), after: checkpointAfter}
	c.done.Add(1)
	go func() {
		defer c.done.Done()
		for {
			select {
			case <-c.stop:
				return
			case <-c.kick:
			}
			// Let a burst of writes pile up a little: one checkpoint then
			// copies them all.
			select {
			case <-c.stop:
				return
			case <-time.After(c.after):
			}
			// Best effort: a failed checkpoint leaves the log longer, and
			// the next write asks again (SQLite's backstop covers the rest).
			c.mu.Lock()
			_, err := db.ExecContext(context.Background(), "PRAGMA wal_checkpoint(PASSIVE)")
			c.mu.Unlock()
			if err == nil {
				c.runs.Add(1)
			} else {
				log.Warn("WAL checkpoint failed", "err", err)
			}
		}
	}()
	return c
}

// Wrote tells the checkpointer a write committed.
func (c *Checkpointer) Wrote() {
	if c == nil {
		return
	}
	select {
	case c.kick <- struct{}{}:
	default: // one is already due
	}
}

// Exclusive runs f while no background checkpoint runs (f itself may
// checkpoint). A nil Checkpointer just runs f.
func (c *Checkpointer) Exclusive(f func() error) error {
	if c == nil {
		return f()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return f()
}

// Stop ends the goroutine; closing the database then lets SQLite
// checkpoint the rest as the last connection closes.
func (c *Checkpointer) Stop() {
	if c != nil {
		c.stopOnce.Do(func() { close(c.stop) })
		c.done.Wait()
	}
}

// Runs is how many checkpoints completed.
func (c *Checkpointer) Runs() int64 { return c.runs.Load() }
