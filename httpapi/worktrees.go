package httpapi

import (
	"net/http"
	"smriti/coord"
	"smriti/wire"
)

func worktreeOf(w *coord.Worktree) wire.WorktreeOut {
	return wire.WorktreeOut{ID: w.ID, RepoID: w.SpaceID, Agent: w.Agent, Path: w.Path, BranchName: w.BranchName,
		BaseCommitSHA: w.BaseCommitSHA, Status: w.Status, CreatedAt: w.CreatedAt, ClosedAt: w.ClosedAt}
}

// worktreeGitErrors are the answers of a route that runs git: 409 (the
// branch exists, say "main"; uncommitted changes), 502 (git failed), 503
// (no git on this server).
var worktreeGitErrors = []int{409, 502, 503}

func (s *Server) worktreeRoutes() []route {
	return []route{
		{method: "POST", path: "/api/v5/worktrees", summary: "Open a git worktree on a new branch for an agent (runs git in the space's project root)",
			tag: "worktrees", in: wire.WorktreeRequest{}, out: wire.WorktreeOut{}, status: 201, handle: s.openWorktree, errors: worktreeGitErrors},
		{method: "GET", path: "/api/v5/worktrees", summary: "A space's worktrees, newest first, each active one with its drift",
			tag: "worktrees", out: []wire.WorktreeListItem{}, status: 200, handle: s.listWorktrees, errors: []int{503}, mustQuery: []string{"space_id"}, query: map[string]string{
				"space_id": "the space (required)", "include_closed": "true: also closed worktrees (never probed)"}},
		{method: "GET", path: "/api/v5/worktrees/{id_or_prefix}", summary: "A worktree by id or id prefix (at least 4 characters)",
			tag: "worktrees", out: wire.WorktreeOut{}, status: 200, handle: s.getWorktree, errors: []int{503}},
		{method: "DELETE", path: "/api/v5/worktrees/{id_or_prefix}", summary: "Remove a worktree (409 with uncommitted changes unless force=true; the branch stays)",
			tag: "worktrees", out: wire.WorktreeOut{}, status: 200, handle: s.closeWorktree, errors: worktreeGitErrors,
			query: map[string]string{"force": "true: remove even with uncommitted changes"}},
	}
}

func (s *Server) openWorktree(w http.ResponseWriter, r *http.Request) error {
	var req wire.WorktreeRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	space, err := wire.ReqID("space_id", req.SpaceID)
	if err != nil {
		return err
	}
	in := coord.WorktreeOpen{SpaceID: space, Agent: deref(req.Agent), BranchName: deref(req.BranchName),
		BaseCommitSHA: deref(req.BaseCommitSHA), BasePath: deref(req.BasePath)}
	wt, err := s.app.OpenWorktree(r.Context(), in)
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
	ws, probes, err := s.app.Worktrees(r.Context(), space, includeClosed)
	if err != nil {
		return err
	}
	now := s.now()
	out := make([]wire.WorktreeListItem, len(ws))
	for i, wt := range ws {
		out[i] = wire.WorktreeListItem{WorktreeOut: worktreeOf(wt), Probe: wire.ProbeOut(probes[wt.ID], now)}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) getWorktree(w http.ResponseWriter, r *http.Request) error {
	wt, err := s.app.Worktree(r.Context(), r.PathValue("id_or_prefix"))
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
	wt, err := s.app.CloseWorktree(r.Context(), r.PathValue("id_or_prefix"), force)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, worktreeOf(wt))
	return nil
}
