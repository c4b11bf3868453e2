package httpapi

import (
	"net/http"

	"smriti"
)

// MountRequest mounts a checkpoint on a session.
type MountRequest struct {
	CheckpointID   *string `json:"checkpoint_id" required:"true" doc:"Checkpoint of the session's space to anchor the context to"`
	HistoryBaseSeq *int64  `json:"history_base_seq" doc:"Last sequence number to leave out: only later turns reach the model. Default: the session's last turn (only what is typed from now on); -1 keeps every turn"`
}

func (s *Server) mountRoutes() []route {
	return []route{
		{method: "PUT", path: "/api/v5/chat/sessions/{session_id}/mount", summary: "Mount a checkpoint: later sends and drafts without mount fields use it", tag: "sessions",
			in: MountRequest{}, out: SessionOut{}, status: 200, handle: s.mountSession},
		{method: "DELETE", path: "/api/v5/chat/sessions/{session_id}/mount", summary: "End the session's mount (back to its default context)", tag: "sessions",
			out: SessionOut{}, status: 200, handle: s.unmountSession},
	}
}

func (s *Server) mountSession(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "session_id")
	if err != nil {
		return err
	}
	var req MountRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	checkpoint, err := reqID("checkpoint_id", req.CheckpointID)
	if err != nil {
		return err
	}
	se, err := s.app.Session(r.Context(), id)
	if err != nil {
		return err
	}
	m := smriti.MountFor(se, checkpoint, req.HistoryBaseSeq)
	se, err = s.app.SetMount(r.Context(), id, &m)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, sessionOf(se))
	return nil
}

func (s *Server) unmountSession(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "session_id")
	if err != nil {
		return err
	}
	se, err := s.app.SetMount(r.Context(), id, nil)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, sessionOf(se))
	return nil
}
