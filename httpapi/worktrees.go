package httpapi

import (
	"net/http"
	"time"

	"smriti"

	"smriti/internal/nonnil"
	"smriti/render"
)

// WorktreeRequest opens a git worktree for an agent.
type WorktreeRequest struct {
	SpaceID *string `json:"space_id" required:"true" doc:"The space (UUID)"`
	Agent   *string `json:"agent" required:"true" doc:"The agent to open it for: not blank"`
	// BranchName is the git branch to create (default smriti/<agent>/<suffix>).
	BranchName *string `json:"branch_name" doc:"The git branch to create (default: smriti/<agent>/<8 hex digits>); 409 when it exists"`
	// BaseCommitSHA is where the branch starts (default the project's HEAD).
	BaseCommitSHA *string `json:"base_commit_sha" doc:"The git commit to start from (default: HEAD of the space's project)"`
	// BasePath is the absolute directory to create (default under the
	// server's worktree root).
	BasePath *string `json:"base_path" doc:"Absolute directory to put it in (default: under the server's worktree directory; 400 when it has none)"`
}

// WorktreeOut is a worktree on the wire.
type WorktreeOut struct {
	ID            smriti.ID  `json:"id" doc:"The worktree"`
	RepoID        smriti.ID  `json:"repo_id" doc:"Its space"`
	Agent         string     `json:"agent" doc:"The agent it was opened for"`
	Path          string     `json:"path" doc:"Its directory"`
	BranchName    string     `json:"branch_name" doc:"Its git branch"`
	BaseCommitSHA *string    `json:"base_commit_sha" doc:"The git commit it was opened at (null when unknown)"`
	Status        string     `json:"status" doc:"active or closed"`
	CreatedAt     time.Time  `json:"created_at" doc:"When it was opened (RFC 3339, UTC)"`
	ClosedAt      *time.Time `json:"closed_at" doc:"When it was closed (null while active)"`
}

// WorktreeListItem is a worktree with its drift (probe null when closed or
// when probing failed).
type WorktreeListItem struct {
	WorktreeOut
	Probe *smriti.WorktreeProbe `json:"probe" doc:"Its git state, cached for a minute (null when closed or probing failed)"`
}

func worktreeOf(w *smriti.Worktree) WorktreeOut {
	return WorktreeOut{ID: w.ID, RepoID: w.SpaceID, Agent: w.Agent, Path: w.Path, BranchName: w.BranchName,
		BaseCommitSHA: w.BaseCommitSHA, Status: w.Status, CreatedAt: w.CreatedAt, ClosedAt: w.ClosedAt}
}

// probeOut fills the relative time of the last commit as of now (the cache
// keeps the absolute time, so a cached probe never reads stale).
func probeOut(p *smriti.WorktreeProbe, now time.Time) *smriti.WorktreeProbe {
	if p == nil {
		return nil
	}
	q := *p
	q.DirtyPaths = nonnil.Slice(q.DirtyPaths)
	if !q.LastCommitAt.IsZero() {
		q.LastCommitRelative = render.RelativeTime(q.LastCommitAt, now)
	}
	return &q
}

func (s *Server) worktreeRoutes() []route {
	return []route{
		{method: "POST", path: "/api/v5/worktrees", summary: "Open a git worktree on a new branch for an agent (runs git in the space's project root)",
			tag: "worktrees", in: WorktreeRequest{}, out: WorktreeOut{}, status: 201, handle: s.openWorktree},
		{method: "GET", path: "/api/v5/worktrees", summary: "A space's worktrees, newest first, each active one with its drift",
			tag: "worktrees", out: []WorktreeListItem{}, status: 200, handle: s.listWorktrees, mustQuery: []string{"space_id"}, query: map[string]string{
				"space_id": "the space (required)", "include_closed": "true: also closed worktrees (never probed)"}},
		{method: "GET", path: "/api/v5/worktrees/{id_or_prefix}", summary: "A worktree by id or id prefix (at least 4 characters)",
			tag: "worktrees", out: WorktreeOut{}, status: 200, handle: s.getWorktree},
		{method: "DELETE", path: "/api/v5/worktrees/{id_or_prefix}", summary: "Remove a worktree (409 with uncommitted changes unless force=true; the branch stays)",
			tag: "worktrees", out: WorktreeOut{}, status: 200, handle: s.closeWorktree,
			query: map[string]string{"force": "true: remove even with uncommitted changes"}},
	}
}

func (s *Server) openWorktree(w http.ResponseWriter, r *http.Request) error {
	var req WorktreeRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	space, err := reqID("space_id", req.SpaceID)
	if err != nil {
		return err
	}
	in := smriti.WorktreeOpen{SpaceID: space, Agent: deref(req.Agent), BranchName: deref(req.BranchName),
		BaseCommitSHA: deref(req.BaseCommitSHA), BasePath: deref(req.BasePath)}
	wt, err := s.app.Coordinator.OpenWorktree(r.Context(), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, worktreeOf(wt))
	return nil
}

func (s *Server) listWorktrees(w http.ResponseWriter, r *http.Request) error {
	space, err := requiredQueryID(r, "space_id")
	if err != nil {
		return err
	}
	includeClosed, err := queryBool(r, "include_closed")
	if err != nil {
		return err
	}
	ws, probes, err := s.app.Coordinator.Worktrees(r.Context(), space, includeClosed)
	if err != nil {
		return err
	}
	now := s.now()
	out := make([]WorktreeListItem, len(ws))
	for i, wt := range ws {
		out[i] = WorktreeListItem{WorktreeOut: worktreeOf(wt), Probe: probeOut(probes[wt.ID], now)}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) getWorktree(w http.ResponseWriter, r *http.Request) error {
	wt, err := s.app.Coordinator.Worktree(r.Context(), r.PathValue("id_or_prefix"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, worktreeOf(wt))
	return nil
}

func (s *Server) closeWorktree(w http.ResponseWriter, r *http.Request) error {
	force, err := queryBool(r, "force")
	if err != nil {
		return err
	}
	wt, err := s.app.Coordinator.CloseWorktree(r.Context(), r.PathValue("id_or_prefix"), force)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, worktreeOf(wt))
	return nil
}
