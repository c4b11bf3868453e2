package httpapi

import (
	"net/http"
	"sync"
	"time"

	"smriti"
)

// streamWriter carries a streamed answer (server-sent events). Every write
// and flush gets its own deadline, so a client that stops reading is
// dropped within StreamWriteTimeout: the handler's next write fails, and the
// handler's context work (the upstream LLM call) stops with it. While the
// handler is quiet, a comment line keeps proxies from closing the stream.
// Every stream route gets one from wrap, so routes added later are covered.
type streamWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration

	mu      sync.Mutex
	last    time.Time
	err     error
	started bool // headers are out
	sse     bool // and they said text/event-stream
}

// WriteHeader records, under the lock the keep-alive takes, that the
// answer has started and whether it is an event stream.
func (w *streamWriter) WriteHeader(code int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.startLocked()
	w.ResponseWriter.WriteHeader(code)
}

func (w *streamWriter) startLocked() {
	if !w.started {
		w.started = true
		w.sse = w.ResponseWriter.Header().Get("Content-Type") == "text/event-stream"
	}
}

func (s *Server) newStreamWriter(rec *statusRecorder) *streamWriter {
	return &streamWriter{ResponseWriter: rec, rc: http.NewResponseController(rec.ResponseWriter), timeout: s.sec.StreamWriteTimeout}
}

func (w *streamWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return 0, w.err
	}
	w.startLocked()
	_ = w.rc.SetWriteDeadline(time.Now().Add(w.timeout))
	n, err := w.ResponseWriter.Write(b)
	w.last = time.Now()
	if err != nil {
		w.err = err
	}
	return n, err
}

func (w *streamWriter) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.flushLocked()
}

func (w *streamWriter) flushLocked() {
	if w.err != nil {
		return
	}
	_ = w.rc.SetWriteDeadline(time.Now().Add(w.timeout))
	if err := w.rc.Flush(); err != nil {
		w.err = err
	}
}

func (w *streamWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// keepAlive writes an SSE comment whenever the stream has been quiet for
// every, until stop is closed.
func (w *streamWriter) keepAlive(every time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			w.mu.Lock()
			if w.err == nil && w.sse && now.Sub(w.last) >= every {
				_, err := w.ResponseWriter.Write([]byte(": keep-alive\n\n"))
				if err != nil {
					w.err = err
				} else {
					w.last = now
					w.flushLocked()
				}
			}
			w.mu.Unlock()
		}
	}
}

// finish stops the keep-alive and lifts the write deadline, so the next
// request on a kept-alive connection does not inherit it.
func (w *streamWriter) finish() {
	w.mu.Lock()
	defer w.mu.Unlock()
	_ = w.rc.SetWriteDeadline(time.Time{})
}

// serveStream runs a stream route's handler under the concurrent-stream cap.
func (s *Server) serveStream(rt route, rec *statusRecorder, r *http.Request) error {
	select {
	case s.streams <- struct{}{}:
		defer func() { <-s.streams }()
	default:
		rec.Header().Set("Retry-After", "1")
		return smriti.Errorf(smriti.ETOOMANY, "too many streams open at once (limit %d); retry shortly", cap(s.streams))
	}
	sw := s.newStreamWriter(rec)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { defer close(done); sw.keepAlive(s.sec.StreamKeepAlive, stop) }()
	err := rt.handle(sw, r)
	close(stop)
	<-done
	sw.finish()
	return err
}
