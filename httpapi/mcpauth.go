package httpapi

import (
	"net/http"
	"sync"

	"smriti"
)

// mcpSessionHeader names the MCP session a streamable HTTP request belongs
// to (set by the server on the answer to initialize).
const mcpSessionHeader = "Mcp-Session-Id"

// gateMCP serves the MCP tools for the request's principal: the requests
// get the gate the LLM routes pass through (admitLLM), which the tools ask
// before they call a provider, and an MCP session answers only the user who
// opened it (the tools act for that user whatever credential a later
// request carries, so another user holding the session's id is refused as
// if it did not exist).
func (s *Server) gateMCP(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user := smriti.UserFromContext(r.Context())
		if id := r.Header.Get(mcpSessionHeader); id != "" {
			if !s.mcpOwners.claim(id, user) {
				s.writeError(w, r, smriti.Errorf(smriti.ENOTFOUND, "Not found: MCP session"))
				return
			}
			if r.Method == http.MethodDelete {
				defer s.mcpOwners.forget(id)
			}
		}
		h.ServeHTTP(w, r.WithContext(smriti.WithLLMGate(r.Context(), s.admitLLM)))
		if id := w.Header().Get(mcpSessionHeader); id != "" {
			s.mcpOwners.claim(id, user)
		}
	})
}

// sessionOwners binds MCP session ids to the user who opened them. A
// session is bound when the server names it in an answer, or at the first
// request that carries it, whichever comes first: its id is a random secret
// only its opener has been told.
type sessionOwners struct {
	mu sync.Mutex
	by map[string]smriti.ID
}

// claim binds id to user unless it is bound already, and reports whether
// user holds it.
func (o *sessionOwners) claim(id string, user smriti.ID) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if owner, ok := o.by[id]; ok {
		return owner == user
	}
	if o.by == nil || len(o.by) >= maxLimiters {
		o.by = map[string]smriti.ID{}
	}
	o.by[id] = user
	return true
}

func (o *sessionOwners) forget(id string) {
	o.mu.Lock()
	delete(o.by, id)
	o.mu.Unlock()
}
