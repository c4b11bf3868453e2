package httpapi

import (
	"net/http"

	"smriti"
	"smriti/wire"
)

func (s *Server) nextBaseRoutes() []route {
	return []route{
		{method: "GET", path: "/api/v5/spaces/{space_id}/next-base", summary: "What the next checkpoint of a space builds on: its branch and parent, for a session or with none",
			description: "Clients ask this instead of working it out: the parent is the branch's newest checkpoint; a fork before its first " +
				"checkpoint builds on the checkpoint it was forked from; null when the checkpoint would be the first of its line. " +
				"The answer is the base at this moment: a write that names it is rebased if the branch moves on before it lands.",
			tag: "checkpoints", out: wire.NextBaseOut{}, status: 200, handle: s.nextBase,
			query: map[string]string{"session_id": "the writing session (absent: a checkpoint with no session, onto main)"}},
	}
}

func (s *Server) nextBase(w http.ResponseWriter, r *http.Request) error {
	space, err := pathID(r, "space_id")
	if err != nil {
		return err
	}
	session, err := queryID(r, "session_id")
	if err != nil {
		return err
	}
	id := smriti.NilID
	if session != nil {
		id = *session
	}
	nb, err := s.app.NextBase(r.Context(), space, id)
	if err != nil {
		return err
	}
	out := wire.NextBaseOut{SpaceID: space, SessionID: session, BranchName: nb.BranchName, BaseCheckpointID: nb.CheckpointID}
	if nb.CommitHash != "" {
		out.BaseCommitHash = &nb.CommitHash
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
