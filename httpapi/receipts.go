package httpapi

import (
	"net/http"
	"strconv"

	"smriti"
	"smriti/app"
	"smriti/internal/textutil"
	"smriti/wire"
)

func (s *Server) receiptRoutes() []route {
	return []route{
		{method: "POST", path: "/api/v5/spaces/{space_id}/receipts", summary: "Record a compaction receipt: what a hook re-injected after the agent host compacted, checked against the live items",
			description: "The server reads the items live on main's head and sorts them by whether the injected text holds each in full. " +
				"The receipt is incomplete when a live decision or open task was not injected in full.",
			tag: "coordination", in: wire.ReceiptRequest{}, out: wire.ReceiptOut{}, status: 201, handle: s.recordReceipt},
		{method: "GET", path: "/api/v5/spaces/{space_id}/receipts", summary: "A space's compaction receipts, newest first",
			tag: "coordination", out: []wire.ReceiptOut{}, status: 200, handle: s.listReceipts,
			query: map[string]string{"limit": "the most receipts to return (default and maximum 5000)"}},
	}
}

func (s *Server) recordReceipt(w http.ResponseWriter, r *http.Request) error {
	space, err := pathID(r, "space_id")
	if err != nil {
		return err
	}
	var req wire.ReceiptRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	in := app.CompactionIn{AgentSession: deref(req.AgentSession), Host: deref(req.Host), Event: deref(req.Event),
		Trigger: deref(req.Trigger), Injected: deref(req.Injected)}
	if req.Tokens != nil {
		in.Tokens = *req.Tokens
	}
	rc, err := s.app.RecordCompaction(r.Context(), space, in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, wire.ReceiptOf(rc))
	return nil
}

func (s *Server) listReceipts(w http.ResponseWriter, r *http.Request) error {
	space, err := pathID(r, "space_id")
	if err != nil {
		return err
	}
	limit := 0
	if v := r.URL.Query().Get("limit"); v != "" {
		if limit, err = strconv.Atoi(v); err != nil || limit < 1 {
			return smriti.Errorf(smriti.EINVALID, "limit must be a positive integer, got %q", textutil.Truncate(v, 32))
		}
	}
	rs, err := s.app.CompactionReceipts(r.Context(), space, limit)
	if err != nil {
		return err
	}
	out := make([]wire.ReceiptOut, len(rs))
	for i, rc := range rs {
		out[i] = wire.ReceiptOf(rc)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// briefBudget reads the brief's ?budget= (0 when absent).
func briefBudget(r *http.Request) (int, error) {
	v := r.URL.Query().Get("budget")
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, smriti.Errorf(smriti.EINVALID, "budget must be a positive number of tokens, got %q", textutil.Truncate(v, 32))
	}
	return n, nil
}
