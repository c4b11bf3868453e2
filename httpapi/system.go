package httpapi

import (
	"context"
	"net/http"
	"smriti/contract"
	"smriti/wire"
	"time"
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
			out: wire.Health{}, status: 200, handle: s.health,
			also:        []answer{{status: 503, out: wire.Health{}, description: "Degraded: /health/ready is not ready (same body, status degraded)"}},
			description: "503 (status degraded) whenever /health/ready is not ready."},
		{method: "GET", path: "/health/live", summary: "The process is up (never touches the database)", tag: "system",
			out: wire.Liveness{}, status: 200, handle: s.live},
		{method: "GET", path: "/health/ready", summary: "The database is reachable and writable, within one second", tag: "system",
			out: wire.Readiness{}, status: 200, handle: s.ready,
			also:        []answer{{status: 503, out: wire.Readiness{}, description: "Not ready: the same body, status not_ready, problem says why"}},
			description: "Ready when, within one second, the database answers, is a primary that is not read-only, and commits a transaction (a primary waiting for a lost synchronous standby is not ready). 503 with the same body otherwise; problem says why. Pool statistics and the migration version come with it."},
		{method: "GET", path: "/openapi.json", summary: "This API as an OpenAPI 3.1 document", tag: "system",
			out: map[string]any{}, status: 200, handle: s.openapi},
		{method: "GET", path: "/docs", summary: "A browsable reference of this API", tag: "system",
			status: 200, text: "text/html", handle: s.docs},
	}
}

// readyDeadline bounds the readiness check.
const readyDeadline = time.Second

// dbStatus runs the readiness check under its deadline.
func (s *Server) dbStatus(r *http.Request) contract.DatabaseStatus {
	ctx, cancel := context.WithTimeout(r.Context(), readyDeadline)
	defer cancel()
	st := s.store.Status(ctx)
	if st.Problem != "" {
		s.log.WarnContext(r.Context(), "database not ready", "problem", st.Problem)
	}
	return st
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) error {
	status, code := "ok", http.StatusOK
	if st := s.dbStatus(r); st.Problem != "" {
		status, code = "degraded", http.StatusServiceUnavailable
	}
	writeJSON(w, code, wire.Health{Status: status, Version: s.cfg.Version, GitSHA: s.cfg.Commit, Database: s.store.Engine(),
		Capabilities: Capabilities})
	return nil
}

func (s *Server) live(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, wire.Liveness{Status: "ok"})
	return nil
}

func (s *Server) ready(w http.ResponseWriter, r *http.Request) error {
	st := s.dbStatus(r)
	out := wire.Readiness{Status: "ready", Database: s.store.Engine(), Reachable: st.Reachable, Writable: st.Writable,
		MigrationVersion: st.MigrationVersion, Problem: st.Problem,
		Pool: wire.PoolStats{Open: st.OpenConns, InUse: st.InUseConns, Idle: st.IdleConns, Max: st.MaxConns, WaitCount: st.WaitCount}}
	code := http.StatusOK
	if st.Problem != "" {
		out.Status, code = "not_ready", http.StatusServiceUnavailable
	}
	writeJSON(w, code, out)
	return nil
}
