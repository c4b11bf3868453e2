package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"

	"smriti"
)

// eventStream writes an answer of server-sent events; the first event
// starts the answer (200, text/event-stream), so an error found before it is
// still answered as an ordinary JSON error.
type eventStream struct {
	w       http.ResponseWriter
	flusher http.Flusher
	started bool
}

func newEventStream(w http.ResponseWriter) (*eventStream, error) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		return nil, smriti.Errorf(smriti.EINTERNAL, "streaming is not supported by this connection")
	}
	return &eventStream{w: w, flusher: flusher}, nil
}

// send writes one event whose data is v as JSON.
func (e *eventStream) send(name string, v any) error {
	if !e.started {
		e.w.Header().Set("Content-Type", "text/event-stream")
		e.w.Header().Set("Cache-Control", "no-cache")
		e.w.Header().Set("X-Accel-Buffering", "no")
		e.w.WriteHeader(http.StatusOK)
		e.started = true
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(e.w, "event: %s\ndata: %s\n\n", name, b); err != nil {
		return err
	}
	e.flusher.Flush()
	return nil
}

// fail ends a stream with an error: as an ordinary JSON error answer before
// the first event, else as an "error" event {status, detail}.
func (s *Server) failStream(e *eventStream, r *http.Request, err error) error {
	if !e.started {
		return err
	}
	status, body := s.errorAnswer(r, err)
	_ = e.send("error", map[string]any{"status": status, "detail": body.Detail})
	return nil
}
