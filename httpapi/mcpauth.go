package httpapi

import (
	"net/http"
	"sync"
	"time"

	"smriti"
)

// mcpSessionHeader names the MCP session a streamable HTTP request belongs
// to (set by the server on the answer to initialize).
const mcpSessionHeader = "Mcp-Session-Id"

// maxMCPSessions bounds the open MCP sessions over HTTP; past it a new one
// is refused until one is closed or goes idle.
const maxMCPSessions = 10000

// gateMCP serves the MCP tools for the request's principal (the app's LLM
// gate admits or refuses their provider calls for that principal, as it
// does the HTTP routes'), and an MCP session answers only the user who
// opened it (the tools act for that user whatever credential a later
// request carries, so another user holding the session's id is refused as
// if it did not exist).
func (s *Server) gateMCP(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user := smriti.UserFromContext(r.Context())
		id := r.Header.Get(mcpSessionHeader)
		if id != "" {
			if !s.mcpOwners.holds(id, user, s.now()) {
				s.writeError(w, r, smriti.Errorf(smriti.ENOTFOUND, "Not found: MCP session"))
				return
			}
			if r.Method == http.MethodDelete {
				defer s.mcpOwners.forget(id)
			}
		} else {
			if !s.mcpOwners.room(s.now(), s.cfg.MCPSessionIdle) {
				s.writeError(w, r, smriti.Errorf(smriti.EUNAVAILABLE,
					"too many open MCP sessions; close one (DELETE /mcp with its Mcp-Session-Id) or retry later"))
				return
			}
			// The session is bound as its id is written, before the answer
			// that names it leaves, so no request can carry it unbound.
			w = &bindingWriter{ResponseWriter: w, bind: func(opened string) { s.mcpOwners.bind(opened, user, s.now()) }}
		}
		h.ServeHTTP(w, r)
	})
}

// bindingWriter calls bind with the session id the MCP server sets on its
// answer, when the answer's header is written.
type bindingWriter struct {
	http.ResponseWriter
	bind  func(id string)
	bound bool
}

func (b *bindingWriter) WriteHeader(code int) {
	if !b.bound {
		b.bound = true
		if id := b.Header().Get(mcpSessionHeader); id != "" {
			b.bind(id)
		}
	}
	b.ResponseWriter.WriteHeader(code)
}

func (b *bindingWriter) Write(p []byte) (int, error) {
	if !b.bound {
		b.WriteHeader(http.StatusOK)
	}
	return b.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the flusher and deadlines of
// the connection underneath (the MCP answers are event streams).
func (b *bindingWriter) Unwrap() http.ResponseWriter { return b.ResponseWriter }

func (b *bindingWriter) Flush() {
	if !b.bound {
		b.WriteHeader(http.StatusOK)
	}
	http.NewResponseController(b.ResponseWriter).Flush()
}

// sessionOwners binds each open MCP session id to the user who opened it.
// Only ids this server handed out are bound, so an id it does not know is
// refused; a binding lasts until the session is deleted or has been idle
// long enough that the MCP server has closed it.
type sessionOwners struct {
	mu sync.Mutex
	by map[string]sessionOwner
}

type sessionOwner struct {
	user smriti.ID
	seen time.Time
}

// bind records that user opened the session id.
func (o *sessionOwners) bind(id string, user smriti.ID, now time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.by == nil {
		o.by = map[string]sessionOwner{}
	}
	o.by[id] = sessionOwner{user: user, seen: now}
}

// holds reports whether user opened the session id, and marks it used.
func (o *sessionOwners) holds(id string, user smriti.ID, now time.Time) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	owner, ok := o.by[id]
	if !ok || owner.user != user {
		return false
	}
	o.by[id] = sessionOwner{user: user, seen: now}
	return true
}

// room reports whether another session may open, first dropping the
// bindings of sessions the MCP server has closed for being idle longer than
// idle (a minute's grace covers the two clocks; 0 drops none).
func (o *sessionOwners) room(now time.Time, idle time.Duration) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.by) < maxMCPSessions {
		return true
	}
	for id, owner := range o.by {
		if idle > 0 && now.Sub(owner.seen) > idle+time.Minute {
			delete(o.by, id)
		}
	}
	return len(o.by) < maxMCPSessions
}

func (o *sessionOwners) forget(id string) {
	o.mu.Lock()
	delete(o.by, id)
	o.mu.Unlock()
}
