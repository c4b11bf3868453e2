package httpapi

import (
	"net/http"
	"smriti/contract"
	"smriti/internal/textutil"
	"smriti/wire"
	"strconv"

	"smriti"
)

func (s *Server) sessionRoutes() []route {
	turnsQuery := map[string]string{"after": "cursor from the X-Next-Cursor header of the previous page: only turns with a greater sequence number",
		"after_seq": "older name of after, still accepted", "limit": "page size (1–1000); without it every turn up to 5,000"}
	return []route{
		{method: "POST", path: "/api/v4/chat/sessions", summary: "Create a session", tag: "sessions", in: wire.SessionCreateRequest{}, out: wire.SessionOut{}, status: 201, handle: s.createSession},
		{method: "GET", path: "/api/v4/chat/sessions", summary: "List sessions, most recently updated first", tag: "sessions", out: []wire.SessionOut{}, status: 200,
			query: map[string]string{"limit": "page size (1–1000); without it every session up to 5,000", "after": "cursor from X-Next-Cursor"}, handle: s.listSessions},
		{method: "GET", path: "/api/v4/chat/sessions/{session_id}", summary: "Get a session", tag: "sessions", out: wire.SessionOut{}, status: 200, handle: s.getSession},
		{method: "DELETE", path: "/api/v4/chat/sessions/{session_id}", summary: "Delete a session and its turns", tag: "sessions", status: 204, handle: s.deleteSession},
		{method: "GET", path: "/api/v4/chat/sessions/{session_id}/turns", summary: "A session's turns in order", tag: "sessions", out: []wire.TurnOut{}, status: 200, query: turnsQuery, handle: s.listTurns},
		{method: "PUT", path: "/api/v4/chat/sessions/{session_id}/attach", summary: "Attach a session to a space", tag: "sessions", in: wire.AttachRequest{}, out: wire.SessionOut{}, status: 200, handle: s.attachSession},
		{method: "POST", path: "/api/v4/chat/spaces/{repo_id}/sessions", summary: "Create a session in a space", tag: "sessions", in: wire.SessionCreateRequest{}, out: wire.SessionOut{}, status: 201, handle: s.createSpaceSession},
		{method: "GET", path: "/api/v4/chat/spaces/{repo_id}/sessions/{session_id}", summary: "Get a session of a space", tag: "sessions", out: wire.SessionOut{}, status: 200, handle: s.getSpaceSession},
		{method: "GET", path: "/api/v4/chat/spaces/{repo_id}/sessions/{session_id}/turns", summary: "A space session's turns", tag: "sessions", out: []wire.TurnOut{}, status: 200, query: turnsQuery, handle: s.listSpaceTurns},
		{method: "GET", path: "/api/v4/chat/spaces/{repo_id}/head", summary: "A space's main head and latest session", tag: "sessions", out: wire.Head{}, status: 200, handle: s.spaceHead},
	}
}

func (s *Server) createSession(w http.ResponseWriter, r *http.Request) error {
	var req wire.SessionCreateRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	space, err := wire.OptID("repo_id", req.RepoID)
	if err != nil {
		return err
	}
	return s.newSession(w, r, space, req)
}

func (s *Server) createSpaceSession(w http.ResponseWriter, r *http.Request) error {
	space, err := pathID(r, "repo_id")
	if err != nil {
		return err
	}
	var req wire.SessionCreateRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	return s.newSession(w, r, &space, req)
}

func (s *Server) newSession(w http.ResponseWriter, r *http.Request, space *smriti.ID, req wire.SessionCreateRequest) error {
	se, err := s.app.CreateSession(r.Context(), smriti.SessionCreate{SpaceID: space, Title: req.Title,
		Provider: req.Provider, Model: req.Model, SeedFrom: req.SeedFrom})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, wire.SessionOf(se))
	return nil
}

func (s *Server) listSessions(w http.ResponseWriter, r *http.Request) error {
	page, err := queryPage(r)
	if err != nil {
		return err
	}
	list, next, err := s.app.Sessions(r.Context(), nil, page)
	if err != nil {
		return err
	}
	setNextCursor(w, next)
	writeJSON(w, http.StatusOK, wire.SessionsOf(list))
	return nil
}

func (s *Server) getSession(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "session_id")
	if err != nil {
		return err
	}
	se, err := s.app.Session(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.SessionOf(se))
	return nil
}

// spaceSession loads a session addressed under a space; a session of
// another space is not found there.
func (s *Server) spaceSession(r *http.Request) (*smriti.Session, error) {
	space, err := pathID(r, "repo_id")
	if err != nil {
		return nil, err
	}
	id, err := pathID(r, "session_id")
	if err != nil {
		return nil, err
	}
	se, err := s.app.Session(r.Context(), id)
	if err != nil {
		return nil, err
	}
	if !se.InSpace(space) {
		return nil, smriti.Errorf(smriti.ENOTFOUND, "Session not found in this space")
	}
	return se, nil
}

func (s *Server) getSpaceSession(w http.ResponseWriter, r *http.Request) error {
	se, err := s.spaceSession(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.SessionOf(se))
	return nil
}

func (s *Server) deleteSession(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "session_id")
	if err != nil {
		return err
	}
	if err := s.app.DeleteSession(r.Context(), id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) listTurns(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "session_id")
	if err != nil {
		return err
	}
	return s.writeTurns(w, r, id)
}

func (s *Server) listSpaceTurns(w http.ResponseWriter, r *http.Request) error {
	se, err := s.spaceSession(r)
	if err != nil {
		return err
	}
	return s.writeTurns(w, r, se.ID)
}

// writeTurns pages turns by sequence number: the first page starts at 0
// and X-Next-Cursor carries the cursor (?after=) of the next one, as for
// every list. ?after_seq= is the older name of the same cursor.
func (s *Server) writeTurns(w http.ResponseWriter, r *http.Request, sessionID smriti.ID) error {
	q := contract.TurnQuery{Limit: smriti.ListCap}
	page, err := queryPage(r)
	if err != nil {
		return err
	}
	if v := page.After; v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < -1 {
			return smriti.Errorf(smriti.EINVALID, "query parameter after must be a turn sequence number >= -1 (from X-Next-Cursor), got %q", textutil.Truncate(v, 32))
		}
		q.AfterSeq = &n
	}
	if page.Limit > 0 {
		q.Limit = page.Limit
	}
	turns, err := s.app.Turns(r.Context(), sessionID, q)
	if err != nil {
		return err
	}
	if len(turns) == q.Limit {
		setNextCursor(w, strconv.FormatInt(turns[len(turns)-1].Seq, 10))
	}
	writeJSON(w, http.StatusOK, wire.TurnsOf(turns))
	return nil
}

func (s *Server) attachSession(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "session_id")
	if err != nil {
		return err
	}
	var req wire.AttachRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	space, err := wire.ReqID("repo_id", req.RepoID)
	if err != nil {
		return err
	}
	se, err := s.app.AttachSession(r.Context(), id, space)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.SessionOf(se))
	return nil
}

func (s *Server) spaceHead(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "repo_id")
	if err != nil {
		return err
	}
	head, err := s.head(r, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, head)
	return nil
}

func (s *Server) head(r *http.Request, spaceID smriti.ID) (wire.Head, error) {
	h := wire.Head{RepoID: spaceID}
	latest, err := s.app.LatestCheckpoints(r.Context(), spaceID, smriti.MainBranch, 1)
	if err != nil {
		return h, err
	}
	if len(latest) == 1 {
		c := latest[0]
		h.CommitHash, h.CommitID, h.Summary, h.Objective = &c.Hash, &c.ID, &c.Summary, &c.Objective
	}
	sessions, _, err := s.app.Sessions(r.Context(), &spaceID, smriti.Page{Limit: 1})
	if err != nil {
		return h, err
	}
	if len(sessions) == 1 {
		h.LatestSessionID, h.LatestSessionTitle = &sessions[0].ID, &sessions[0].Title
	}
	return h, nil
}
