package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"smriti"
	"smriti/coord"
	"smriti/internal/nonnil"
	"smriti/internal/textutil"
	"smriti/wire"
)

func (s *Server) readyRoutes() []route {
	return []route{
		{method: "GET", path: "/api/v5/spaces/{space_id}/ready", summary: "The ready queue: open tasks nothing blocks and no live claim holds, most-unblocking then oldest first",
			tag: "coordination", out: wire.ReadyList{}, status: 200, query: map[string]string{"limit": "at most this many tasks (1–1000, default all up to 1000)"}, handle: s.readyTasks},
		{method: "POST", path: "/api/v5/spaces/{space_id}/ready/claim", summary: "Claim the first ready task atomically (404 when nothing is ready)",
			tag: "coordination", in: wire.ReadyClaimRequest{}, out: wire.ReadyClaimed{}, status: 201, handle: s.claimReady, idempotent: true},
		{method: "POST", path: "/api/v5/claims/{claim_id}/heartbeat", summary: "Renew a live claim's lease (409 when it has finished or expired)",
			tag: "coordination", in: wire.HeartbeatRequest{}, out: wire.ClaimOut{}, status: 200, handle: s.heartbeatClaim, errors: []int{409}},
	}
}

func readyOf(t coord.ReadyTask) wire.ReadyTaskOut {
	return wire.ReadyTaskOut{Key: t.Key, Text: t.Task.Text, ID: t.Task.ID, IntentHint: t.Task.IntentHint, BlockedBy: t.Task.BlockedBy,
		BranchName: t.Branch, CheckpointID: t.CheckpointID, CommitHash: textutil.ShortHash(t.Hash), Unblocks: t.Unblocks, Since: t.Since}
}

func (s *Server) readyTasks(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "space_id")
	if err != nil {
		return err
	}
	q := coord.ReadyQuery{}
	if v := r.URL.Query().Get("limit"); v != "" {
		if q.Limit, err = strconv.Atoi(v); err != nil || q.Limit < 1 {
			return smriti.Errorf(smriti.EINVALID, "query parameter limit must be a positive integer, got %q", textutil.Truncate(v, 32))
		}
	}
	ts, err := s.app.ReadyTasks(r.Context(), id, q)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.ReadyList{SpaceID: id, Tasks: nonnil.Convert(ts, readyOf)})
	return nil
}

// ttlOf reads an optional duration field.
func ttlOf(v *string) (*time.Duration, error) {
	if v == nil {
		return nil, nil
	}
	d, err := coord.ParseDuration(*v)
	if err != nil {
		return nil, smriti.Errorf(smriti.EINVALID, "ttl: %s", smriti.ErrorMessage(err))
	}
	return &d, nil
}

func (s *Server) claimReady(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "space_id")
	if err != nil {
		return err
	}
	var req wire.ReadyClaimRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	in := coord.ClaimCreate{SpaceID: id, Agent: deref(req.Agent), Intent: deref(req.IntentType)}
	if in.SessionID, err = wire.OptID("session_id", req.SessionID); err != nil {
		return err
	}
	if in.WorktreeID, err = wire.OptID("worktree_id", req.WorktreeID); err != nil {
		return err
	}
	if in.TTL, err = ttlOf(req.TTL); err != nil {
		return err
	}
	c, t, err := s.app.ClaimReady(r.Context(), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, wire.ReadyClaimed{Claim: wire.ClaimOf(c), Task: readyOf(*t)})
	return nil
}

func (s *Server) heartbeatClaim(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "claim_id")
	if err != nil {
		return err
	}
	var req wire.HeartbeatRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	ttl, err := ttlOf(req.TTL)
	if err != nil {
		return err
	}
	c, err := s.app.HeartbeatClaim(r.Context(), id, ttl)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.ClaimOf(c))
	return nil
}
