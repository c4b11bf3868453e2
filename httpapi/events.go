package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"smriti/wire"
	"strconv"
	"strings"
	"time"

	"smriti"
)

// eventPollInterval is how often an open event stream reads the log. The log
// lives in the database, so every replica sees every write.
const eventPollInterval = 500 * time.Millisecond

// eventKeepAlive is how often an idle stream sends a comment, so proxies
// and browsers keep the connection.
const eventKeepAlive = 15 * time.Second

func (s *Server) eventRoutes() []route {
	return []route{
		{method: "GET", path: "/api/v5/spaces/{space_id}/events",
			summary: "Live changes of a space as server-sent events (checkpoint.created, session.created, session.updated, disposition.changed, claim.changed); the event id is the space's log position, and Last-Event-ID (header) or after (query) resumes after it",
			tag:     "spaces", status: 200,
			stream: "one per change, named by its kind, with data {position, space_id, kind, subject_id, branch_name, created_at}; " +
				"comments carry the start position and keep-alives",
			query:  map[string]string{"after": "resume after this log position (default: now, or the Last-Event-ID header)"},
			handle: s.spaceEvents},
	}
}

func (s *Server) spaceEvents(w http.ResponseWriter, r *http.Request) error {
	log := s.app
	id, err := pathID(r, "space_id")
	if err != nil {
		return err
	}
	after, resume, err := eventCursor(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	if !resume {
		if after, err = log.LogPosition(ctx, id); err != nil {
			return err
		}
	}
	// The first read checks the space exists before the stream starts, so
	// an unknown space is an ordinary 404.
	pending, err := log.SpaceEvents(ctx, id, after, 100)
	if err != nil {
		return err
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		return smriti.Errorf(smriti.EINTERNAL, "streaming is not supported by this connection")
	}
	// A stream outlives any per-request write deadline the server sets.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, "retry: 2000\n: position %d\n\n", after)
	flusher.Flush()

	poll := time.NewTicker(eventPollInterval)
	defer poll.Stop()
	idle := time.Now()
	for {
		for _, ev := range pending {
			b, err := json.Marshal(wire.SpaceEventOut{Position: ev.Position, SpaceID: ev.SpaceID, Kind: ev.Kind,
				SubjectID: ev.SubjectID, BranchName: ev.BranchName, CreatedAt: ev.CreatedAt})
			if err != nil {
				return err
			}
			if _, err := fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", ev.Position, ev.Kind, b); err != nil {
				return nil
			}
			after = ev.Position
		}
		if len(pending) > 0 {
			flusher.Flush()
			idle = time.Now()
		} else if time.Since(idle) >= eventKeepAlive {
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return nil
			}
			flusher.Flush()
			idle = time.Now()
		}
		if len(pending) == 100 {
			// More are waiting: read on without sleeping.
		} else {
			select {
			case <-ctx.Done():
				return nil
			case <-poll.C:
			}
		}
		if pending, err = log.SpaceEvents(ctx, id, after, 100); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			// The space was deleted, or the database failed: end the
			// stream; the browser reconnects and gets a proper answer.
			s.log.WarnContext(ctx, "event stream ended", "err", err, "request_id", requestID(ctx))
			return nil
		}
	}
}

// eventCursor reads where a subscriber resumes: the after query parameter,
// else the Last-Event-ID header. resume is false when neither is given.
func eventCursor(r *http.Request) (after int64, resume bool, err error) {
	v := r.URL.Query().Get("after")
	name := "after"
	if v == "" {
		v = strings.TrimSpace(r.Header.Get("Last-Event-ID"))
		name = "Last-Event-ID"
	}
	if v == "" {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, false, smriti.Errorf(smriti.EUNPROCESSABLE, "%s must be a non-negative integer", name)
	}
	return n, true, nil
}
