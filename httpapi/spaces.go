package httpapi

import (
	"net/http"
	"strings"

	"smriti"
	"smriti/contract"
	"smriti/internal/nonnil"
	"smriti/wire"
)

func (s *Server) spaceRoutes() []route {
	page := map[string]string{"limit": "page size (1–1000); without it every item up to 5,000", "after": "cursor from the X-Next-Cursor header of the previous page"}
	return []route{
		{method: "POST", path: "/api/v2/repos", summary: "Create a space", tag: "spaces", in: wire.SpaceCreateRequest{}, out: wire.Repo{}, status: 201, handle: s.createSpace, errors: []int{409}},
		{method: "GET", path: "/api/v2/repos", summary: "List spaces, most recently updated first", tag: "spaces", out: []wire.Repo{}, status: 200, query: page, handle: s.listSpaces},
		{method: "GET", path: "/api/v2/repos/{repo_id}", summary: "Get a space", tag: "spaces", out: wire.Repo{}, status: 200, handle: s.getSpace},
		{method: "DELETE", path: "/api/v2/repos/{repo_id}", summary: "Delete a space and everything in it", tag: "spaces", status: 204, handle: s.deleteSpace},
		{method: "PATCH", path: "/api/v2/repos/{repo_id}/project-root", summary: "Set a space's project root", tag: "spaces", in: wire.ProjectRootRequest{}, out: wire.Repo{}, status: 200, handle: s.setProjectRoot},
		{method: "GET", path: "/api/v2/repos/{repo_id}/commits", summary: "List a space's checkpoints, newest first", tag: "spaces", out: []wire.Commit{}, status: 200,
			query: map[string]string{"branch": "only this branch", "limit": page["limit"], "after": page["after"]}, handle: s.listCheckpoints},
		{method: "GET", path: "/api/v2/repos/{repo_id}/commits/latest", summary: "The newest checkpoint of a branch", tag: "spaces", out: wire.Commit{}, status: 200,
			query: map[string]string{"branch": "branch name (default main)", "items": itemsQuery["items"], "cites_code": citesCodeQuery}, handle: s.latestCheckpoint},
	}
}

func (s *Server) createSpace(w http.ResponseWriter, r *http.Request) error {
	var req wire.SpaceCreateRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	if uid, err := wire.OptID("user_id", req.UserID); err != nil {
		return err
	} else if uid != nil && *uid != smriti.UserFromContext(r.Context()) {
		return smriti.Errorf(smriti.EFORBIDDEN, "user_id: spaces can only be created for yourself")
	}
	// The name's rules are SpaceCreate.Validate's, checked by the store.
	in := smriti.SpaceCreate{Name: strings.TrimSpace(deref(req.Name)), ProjectRoot: req.ProjectRoot, Metadata: req.Metadata}
	if req.Description != nil {
		in.Description = *req.Description
	}
	sp, err := s.app.CreateSpace(r.Context(), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, wire.RepoOf(sp))
	return nil
}

func (s *Server) listSpaces(w http.ResponseWriter, r *http.Request) error {
	page, err := queryPage(r)
	if err != nil {
		return err
	}
	spaces, next, err := s.app.Spaces(r.Context(), page)
	if err != nil {
		return err
	}
	setNextCursor(w, next)
	writeJSON(w, http.StatusOK, nonnil.Convert(spaces, wire.RepoOf))
	return nil
}

func (s *Server) getSpace(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "repo_id")
	if err != nil {
		return err
	}
	sp, err := s.app.Space(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.RepoOf(sp))
	return nil
}

func (s *Server) deleteSpace(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "repo_id")
	if err != nil {
		return err
	}
	if err := s.app.DeleteSpace(r.Context(), id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) setProjectRoot(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "repo_id")
	if err != nil {
		return err
	}
	var req wire.ProjectRootRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	if req.ProjectRoot == nil || strings.TrimSpace(*req.ProjectRoot) == "" {
		return smriti.Errorf(smriti.EINVALID, "project_root cannot be empty")
	}
	sp, err := s.app.SetProjectRoot(r.Context(), id, *req.ProjectRoot)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.RepoOf(sp))
	return nil
}

func (s *Server) listCheckpoints(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "repo_id")
	if err != nil {
		return err
	}
	page, err := queryPage(r)
	if err != nil {
		return err
	}
	q := contract.CheckpointQuery{Page: page}
	if r.URL.Query().Has("branch") {
		b := r.URL.Query().Get("branch")
		q.Branch = &b
	}
	list, next, err := s.app.Checkpoints(r.Context(), id, q)
	if err != nil {
		return err
	}
	setNextCursor(w, next)
	writeJSON(w, http.StatusOK, wire.CommitsOf(list))
	return nil
}

func (s *Server) latestCheckpoint(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "repo_id")
	if err != nil {
		return err
	}
	branch := r.URL.Query().Get("branch")
	if branch == "" {
		branch = smriti.MainBranch
	}
	list, err := s.app.LatestCheckpoints(r.Context(), id, branch, 1)
	if err != nil {
		return err
	}
	if len(list) == 0 {
		return smriti.Errorf(smriti.ENOTFOUND, "No commits found for this repo/branch")
	}
	return s.writeCheckpoint(w, r, http.StatusOK, list[0])
}
