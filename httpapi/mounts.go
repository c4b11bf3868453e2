package httpapi

import (
	"net/http"
	"smriti/wire"
)

func (s *Server) mountRoutes() []route {
	return []route{
		{method: "PUT", path: "/api/v5/chat/sessions/{session_id}/mount", summary: "Mount a checkpoint: later sends and drafts without mount fields use it", tag: "sessions",
			in: wire.MountRequest{}, out: wire.SessionOut{}, status: 200, handle: s.mountSession},
		{method: "DELETE", path: "/api/v5/chat/sessions/{session_id}/mount", summary: "End the session's mount (back to its default context)", tag: "sessions",
			out: wire.SessionOut{}, status: 200, handle: s.unmountSession},
	}
}

func (s *Server) mountSession(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "session_id")
	if err != nil {
		return err
	}
	var req wire.MountRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	checkpoint, err := wire.ReqID("checkpoint_id", req.CheckpointID)
	if err != nil {
		return err
	}
	se, err := s.app.Session(r.Context(), id)
	if err != nil {
		return err
	}
	m := se.MountAt(checkpoint, req.HistoryBaseSeq)
	se, err = s.app.SetMount(r.Context(), id, &m)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.SessionOf(se))
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
	writeJSON(w, http.StatusOK, wire.SessionOf(se))
	return nil
}
