package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"smriti"
	"smriti/internal/nonnil"
)

// ReadyTaskOut is a task of the ready queue.
type ReadyTaskOut struct {
	Key          string    `json:"key" doc:"What claim create takes as task_id: the task's id, or h- and 8 hex digits of its text's hash for a task without one"`
	Text         string    `json:"text" doc:"The task"`
	ID           string    `json:"id" doc:"The task's own id (empty when it has none)"`
	IntentHint   string    `json:"intent_hint" doc:"implement, review, investigate, docs or test; empty when unset"`
	BlockedBy    string    `json:"blocked_by" doc:"The tasks it waited for (all done, or it would not be ready)"`
	BranchName   string    `json:"branch_name" doc:"The branch whose head holds the task (main first)"`
	CheckpointID smriti.ID `json:"checkpoint_id" doc:"That head checkpoint"`
	CommitHash   string    `json:"commit_hash" doc:"Its hash prefix, as every view shows it"`
	Unblocks     int       `json:"unblocks" doc:"How many open tasks name this one in blocked_by: the queue puts the most first"`
	Since        time.Time `json:"since" doc:"When the head checkpoint was written: older first among equals"`
}

// ReadyList is a space's ready queue, best first.
type ReadyList struct {
	SpaceID smriti.ID      `json:"space_id" doc:"The space"`
	Tasks   []ReadyTaskOut `json:"tasks" doc:"Open tasks of main's head and the active branches' heads whose blockers are all done and that no live claim holds, ranked"`
}

// ReadyClaimRequest takes the first ready task.
type ReadyClaimRequest struct {
	Agent      *string `json:"agent" doc:"Who claims (the agent's name)"`
	SessionID  *string `json:"session_id" doc:"The claimer's session in the space"`
	WorktreeID *string `json:"worktree_id" doc:"The worktree the work happens in"`
	IntentType *string `json:"intent_type" doc:"implement, review, investigate, docs or test (default: the task's hint, else implement)"`
	TTL        *string `json:"ttl" doc:"Lease length: 90m, 2h, 1h30m, 3d, or a number of hours (default 4h)"`
}

// ReadyClaimed is the claim taken and the task it holds.
type ReadyClaimed struct {
	Claim ClaimOut     `json:"claim" doc:"The new claim, holding the task until it expires, is renewed by heartbeat, or finishes"`
	Task  ReadyTaskOut `json:"task" doc:"The task claimed"`
}

// HeartbeatRequest renews a claim's lease.
type HeartbeatRequest struct {
	TTL *string `json:"ttl" doc:"New lease from now: 90m, 2h, … (default: the claim's original length)"`
}

func (s *Server) readyRoutes() []route {
	return []route{
		{method: "GET", path: "/api/v5/spaces/{space_id}/ready", summary: "The ready queue: open tasks nothing blocks and no live claim holds, most-unblocking then oldest first",
			tag: "coordination", out: ReadyList{}, status: 200, query: map[string]string{"limit": "at most this many tasks (1–1000, default all up to 1000)"}, handle: s.readyTasks},
		{method: "POST", path: "/api/v5/spaces/{space_id}/ready/claim", summary: "Claim the first ready task atomically (404 when nothing is ready)",
			tag: "coordination", in: ReadyClaimRequest{}, out: ReadyClaimed{}, status: 201, handle: s.claimReady},
		{method: "POST", path: "/api/v5/claims/{claim_id}/heartbeat", summary: "Renew a live claim's lease (409 when it has finished or expired)",
			tag: "coordination", in: HeartbeatRequest{}, out: ClaimOut{}, status: 200, handle: s.heartbeatClaim},
	}
}

func readyOf(t smriti.ReadyTask) ReadyTaskOut {
	return ReadyTaskOut{Key: t.Key, Text: t.Task.Text, ID: t.Task.ID, IntentHint: t.Task.IntentHint, BlockedBy: t.Task.BlockedBy,
		BranchName: t.Branch, CheckpointID: t.CheckpointID, CommitHash: smriti.ShortHash(t.Hash), Unblocks: t.Unblocks, Since: t.Since}
}

func (s *Server) readyTasks(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "space_id")
	if err != nil {
		return err
	}
	q := smriti.ReadyQuery{}
	if v := r.URL.Query().Get("limit"); v != "" {
		if q.Limit, err = strconv.Atoi(v); err != nil || q.Limit < 1 {
			return smriti.Errorf(smriti.EINVALID, "query parameter limit must be a positive integer, got %q", smriti.Truncate(v, 32))
		}
	}
	ts, err := s.app.ReadyTasks(r.Context(), id, q)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, ReadyList{SpaceID: id, Tasks: nonnil.Convert(ts, readyOf)})
	return nil
}

// ttlOf reads an optional duration field.
func ttlOf(v *string) (*time.Duration, error) {
	if v == nil {
		return nil, nil
	}
	d, err := smriti.ParseDuration(*v)
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
	var req ReadyClaimRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	in := smriti.ClaimCreate{SpaceID: id, Agent: deref(req.Agent), Intent: deref(req.IntentType)}
	if in.SessionID, err = optID("session_id", req.SessionID); err != nil {
		return err
	}
	if in.WorktreeID, err = optID("worktree_id", req.WorktreeID); err != nil {
		return err
	}
	if in.TTL, err = ttlOf(req.TTL); err != nil {
		return err
	}
	c, t, err := s.app.ClaimReady(r.Context(), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, ReadyClaimed{Claim: claimOf(c), Task: readyOf(*t)})
	return nil
}

func (s *Server) heartbeatClaim(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "claim_id")
	if err != nil {
		return err
	}
	var req HeartbeatRequest
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
	writeJSON(w, http.StatusOK, claimOf(c))
	return nil
}

// ReadyTask turns the wire form back into the domain's.
func (o ReadyTaskOut) ReadyTask() smriti.ReadyTask {
	return smriti.ReadyTask{Key: o.Key, Task: smriti.Task{Text: o.Text, ID: o.ID, IntentHint: o.IntentHint, BlockedBy: o.BlockedBy, Structured: o.ID != ""},
		Branch: o.BranchName, CheckpointID: o.CheckpointID, Hash: o.CommitHash, Unblocks: o.Unblocks, Since: o.Since}
}
