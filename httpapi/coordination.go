package httpapi

import (
	"maps"
	"net/http"
	"smriti/coord"
	"smriti/wire"
	"strings"

	"smriti"
)

func (s *Server) coordinationRoutes() []route {
	stateQuery := map[string]string{
		"since_commit_id": "the checkpoint you last saw: the brief says what changed on main since (404 when not in the space)",
		"session_id":      "the asking session: the brief shows its mounted checkpoint",
	}
	briefQuery := map[string]string{
		"format":          "markdown (the only format)",
		"compact":         "true: list artifact labels only",
		"preview":         "true: cut artifact content to 800 characters",
		"stats":           "true: append what compact mode saved",
		"budget":          "the most tokens the brief may cost: items are shown newest and open first until it is reached, each kind left out counted with the command that lists it (default: every item)",
		"since_commit_id": stateQuery["since_commit_id"],
		"session_id":      stateQuery["session_id"],
	}
	maps.Copy(briefQuery, briefClientQuery)
	return append([]route{
		{method: "GET", path: "/api/v4/chat/spaces/{repo_id}/state", summary: "The state brief: main head, active branches, live claims, divergence and freshness",
			tag: "coordination", out: wire.SpaceState{}, status: 200, query: stateQuery, handle: s.spaceState},
		{method: "GET", path: "/api/v5/spaces/{space_id}/brief", summary: "The state brief rendered as markdown, as agents read it",
			tag: "coordination", status: 200, text: "text/markdown", query: briefQuery, handle: s.spaceBrief},
		{method: "POST", path: "/api/v5/claims", summary: "Claim work: a task_id is held by one live claim at a time (409 naming the holder and its expiry); other collisions are returned, not refused",
			tag: "coordination", in: wire.ClaimRequest{}, out: wire.ClaimCreated{}, status: 201, handle: s.createClaim, idempotent: true},
		{method: "GET", path: "/api/v5/claims", summary: "A space's claims, newest first (live ones unless include_expired)",
			tag: "coordination", out: []wire.ClaimOut{}, status: 200, handle: s.listClaims, mustQuery: []string{"space_id"}, query: map[string]string{
				"space_id": "the space (required)", "include_expired": "true: also expired, done and abandoned claims",
				"limit": "page size (1–1000); without it every claim up to 5,000", "after": "cursor from X-Next-Cursor"}},
		{method: "PATCH", path: "/api/v5/claims/{claim_id}", summary: "Finish a live claim: done or abandoned (once)",
			tag: "coordination", in: wire.ClaimPatchRequest{}, out: wire.ClaimOut{}, status: 200, handle: s.finishClaim, errors: []int{409}},
		{method: "GET", path: "/api/v5/metrics/spaces/{space_id}", summary: "Coordination and state-quality metrics of a space",
			tag: "coordination", out: wire.SpaceMetricsOut{}, status: 200, handle: s.spaceMetrics},
	}, append(append(s.worktreeRoutes(), s.contextPackRoutes()...), s.readyRoutes()...)...)
}

// stateQueryOf reads ?since_commit_id= and ?session_id=.
func stateQueryOf(r *http.Request) (coord.StateQuery, error) {
	var q coord.StateQuery
	var err error
	if q.Since, err = queryID(r, "since_commit_id"); err != nil {
		return q, err
	}
	if q.SessionID, err = queryID(r, "session_id"); err != nil {
		return q, err
	}
	return q, nil
}

func (s *Server) brief(r *http.Request, spaceID smriti.ID) (*coord.StateBrief, error) {
	q, err := stateQueryOf(r)
	if err != nil {
		return nil, err
	}
	return s.app.SpaceState(r.Context(), spaceID, q)
}

func (s *Server) spaceState(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "repo_id")
	if err != nil {
		return err
	}
	b, err := s.brief(r, id)
	if err != nil {
		return err
	}
	h := wire.Head{RepoID: id}
	if c := b.Head; c != nil {
		h.CommitHash, h.CommitID, h.Summary, h.Objective = &c.Hash, &c.ID, &c.Summary, &c.Objective
	}
	if se := b.LatestSession; se != nil {
		h.LatestSessionID, h.LatestSessionTitle = &se.ID, &se.Title
	}
	out := wire.SpaceStateOf(b, h, s.now())
	out.BriefTokens = compactBriefTokens(b, s.now())
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) createClaim(w http.ResponseWriter, r *http.Request) error {
	var req wire.ClaimRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	space, err := wire.ReqID("space_id", req.SpaceID)
	if err != nil {
		return err
	}
	in := coord.ClaimCreate{SpaceID: space, Agent: deref(req.Agent), Scope: deref(req.Scope), BranchName: deref(req.BranchName),
		TaskID: deref(req.TaskID), Intent: deref(req.IntentType)}
	if in.BaseCheckpointID, err = wire.OptID("base_commit_id", req.BaseCommitID); err != nil {
		return err
	}
	if in.SessionID, err = wire.OptID("session_id", req.SessionID); err != nil {
		return err
	}
	if in.WorktreeID, err = wire.OptID("worktree_id", req.WorktreeID); err != nil {
		return err
	}
	if req.TTLHours != nil {
		d := coord.ClaimTTLHours(*req.TTLHours)
		in.TTL = &d
	}
	if req.TTL != nil {
		if in.TTL, err = ttlOf(req.TTL); err != nil {
			return err
		}
	}
	c, collisions, err := s.app.CreateClaim(r.Context(), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, wire.ClaimCreated{ClaimOut: wire.ClaimOf(c), Collisions: wire.ClaimsOf(collisions), Redactions: c.Redactions})
	return nil
}

func (s *Server) listClaims(w http.ResponseWriter, r *http.Request) error {
	space, err := requiredQueryID(r, "space_id")
	if err != nil {
		return err
	}
	q := coord.ClaimQuery{}
	if q.IncludeExpired, err = queryBool(r, "include_expired"); err != nil {
		return err
	}
	if q.Page, err = queryPage(r); err != nil {
		return err
	}
	claims, next, err := s.app.Claims(r.Context(), space, q)
	if err != nil {
		return err
	}
	setNextCursor(w, next)
	writeJSON(w, http.StatusOK, wire.ClaimsOf(claims))
	return nil
}

func (s *Server) finishClaim(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "claim_id")
	if err != nil {
		return err
	}
	var req wire.ClaimPatchRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	if req.Status == nil {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "status is required")
	}
	c, err := s.app.FinishClaim(r.Context(), id, strings.TrimSpace(*req.Status))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.ClaimOf(c))
	return nil
}

func (s *Server) spaceMetrics(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "space_id")
	if err != nil {
		return err
	}
	m, err := s.app.SpaceMetrics(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.MetricsOf(m))
	return nil
}
