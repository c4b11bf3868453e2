package memtrim

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// clock is a settable time for the watcher.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestIdleReleasesOncePerQuietSpell(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	releases := 0
	w := NewIdle(30*time.Second, func() { releases++ })
	w.now = c.now
	w.last.Store(c.t.UnixNano())

	hold := make(chan struct{})
	entered := make(chan struct{})
	h := w.Wrap(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/stream" {
			close(entered)
			<-hold
		}
		rw.WriteHeader(http.StatusNoContent)
	}))
	serve := func(path string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != http.StatusNoContent {
			t.Errorf("GET %s = %d, want 204", path, rec.Code)
		}
	}

	steps := []struct {
		name    string
		advance time.Duration
		request string
		want    bool // check() releases
		total   int
	}{
		{name: "QuietTooShortAfterStart", advance: 29 * time.Second, want: false, total: 0},
		{name: "QuietLongEnoughAfterStart", advance: time.Second, want: true, total: 1},
		{name: "NotTwiceInOneSpell", advance: time.Hour, want: false, total: 1},
		{name: "RequestRestartsTheSpell", request: "/health", advance: 29 * time.Second, want: false, total: 1},
		{name: "SecondSpellReleasesAgain", advance: time.Second, want: true, total: 2},
	}
	for _, s := range steps {
		if s.request != "" {
			serve(s.request)
		}
		c.t = c.t.Add(s.advance)
		if got := w.check(); got != s.want || releases != s.total {
			t.Fatalf("%s: check() = %v with %d releases, want %v with %d", s.name, got, releases, s.want, s.total)
		}
	}

	// A request in flight (a stream held open) keeps the server busy however
	// long it lasts; its end starts the quiet spell.
	done := make(chan struct{})
	go func() { serve("/stream"); close(done) }()
	<-entered
	c.t = c.t.Add(time.Hour)
	if w.check() || releases != 2 {
		t.Fatalf("released with a stream open: %d releases", releases)
	}
	close(hold)
	<-done
	c.t = c.t.Add(29 * time.Second)
	if w.check() {
		t.Fatalf("released 29 s after the stream ended")
	}
	c.t = c.t.Add(time.Second)
	if !w.check() || releases != 3 {
		t.Fatalf("not released 30 s after the stream ended: %d releases", releases)
	}
}

func TestIdleRunStopsWithItsContext(t *testing.T) {
	released := make(chan struct{}, 1)
	w := NewIdle(time.Millisecond, func() {
		select {
		case released <- struct{}{}:
		default:
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { w.Run(ctx); close(stopped) }()
	select {
	case <-released:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not release a server quiet since it began")
	}
	cancel()
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
}
