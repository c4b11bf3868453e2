package memtrim

import (
	"context"
	"net/http"
	"sync/atomic"
	"time"
)

// Idle calls a release function once each time a server has been quiet for
// a while: no request in flight and none ended within the quiet time. A
// server that is busy again and then quiet again is released again. An open
// stream (a chat reply, an MCP session's event stream) is a request in
// flight, so a server holding one is never idle.
type Idle struct {
	quiet    time.Duration
	release  func()
	now      func() time.Time
	inflight atomic.Int64
	last     atomic.Int64 // unix nanoseconds when the latest request ended (or the watch began)
	released atomic.Bool  // whether release ran since then
}

// NewIdle watches for quiet spells of the given length; release runs on
// Run's goroutine.
func NewIdle(quiet time.Duration, release func()) *Idle {
	w := &Idle{quiet: quiet, release: release, now: time.Now}
	w.last.Store(w.now().UnixNano())
	return w
}

// Wrap counts the requests h serves.
func (w *Idle) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.inflight.Add(1)
		defer func() {
			w.last.Store(w.now().UnixNano())
			w.released.Store(false)
			w.inflight.Add(-1)
		}()
		h.ServeHTTP(rw, r)
	})
}

// Run checks for quiet until ctx ends, a few times per quiet spell.
func (w *Idle) Run(ctx context.Context) {
	every := min(max(w.quiet/4, 10*time.Millisecond), 5*time.Second)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			w.check()
		}
	}
}

// check runs release when the server has been quiet long enough and was not
// released since its latest request; it reports whether it did. A request
// that starts while release runs is unharmed: release only hands back
// memory that is taken again on use.
func (w *Idle) check() bool {
	if w.inflight.Load() > 0 || w.released.Load() {
		return false
	}
	if w.now().Sub(time.Unix(0, w.last.Load())) < w.quiet {
		return false
	}
	w.released.Store(true)
	w.release()
	return true
}
