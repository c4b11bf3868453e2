package httpapi

import (
	"net/http"
)

// Capabilities lists what this server supports; agents use it to detect a
// server too old for what they want to do. Only what is implemented is
// listed.
var Capabilities = []string{
	"structured_tasks", "task_ids", "checkpoint_notes", "branch_disposition",
	"hash_chain_verify", "idempotent_send", "streaming", "context_preview", "merge", "source_turns",
	"claims", "freshness", "compact_state", "worktrees", "worktree_binding", "context_packs",
}

func (s *Server) systemRoutes() []route {
	return []route{
		{method: "GET", path: "/health", summary: "Server status, version and capabilities", tag: "system",
			out: Health{}, status: 200, handle: s.health},
		{method: "GET", path: "/openapi.json", summary: "This API as an OpenAPI 3.1 document", tag: "system",
			out: map[string]any{}, status: 200, handle: s.openapi},
		{method: "GET", path: "/docs", summary: "A browsable reference of this API", tag: "system",
			status: 200, handle: s.docs},
	}
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) error {
	status, code := "ok", http.StatusOK
	if err := s.store.Ping(r.Context()); err != nil {
		s.log.WarnContext(r.Context(), "database ping failed", "err", err)
		status, code = "degraded", http.StatusServiceUnavailable
	}
	writeJSON(w, code, Health{Status: status, Version: s.cfg.Version, GitSHA: s.cfg.Commit, Database: s.store.Engine(),
		Capabilities: Capabilities})
	return nil
}
