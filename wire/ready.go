package wire

import (
	"smriti/coord"
	"time"

	"smriti"
)

// ReadyTaskOut is a task of the ready queue.
type ReadyTaskOut struct {
	Key          string          `json:"key" doc:"What claim create takes as task_id: the task's id, or h- and 8 hex digits of its text's hash for a task without one"`
	Text         string          `json:"text" doc:"The task"`
	ID           string          `json:"id" doc:"The task's own id (empty when it has none)"`
	IntentHint   string          `json:"intent_hint" doc:"implement, review, investigate, docs or test; empty when unset"`
	BlockedBy    smriti.Blockers `json:"blocked_by" doc:"The tasks it waited for (all done, or it would not be ready)"`
	BranchName   string          `json:"branch_name" doc:"The branch whose head holds the task (main first)"`
	CheckpointID smriti.ID       `json:"checkpoint_id" doc:"That head checkpoint"`
	CommitHash   string          `json:"commit_hash" doc:"Its hash prefix, as every view shows it"`
	Unblocks     int             `json:"unblocks" doc:"How many open tasks name this one in blocked_by: the queue puts the most first"`
	Since        time.Time       `json:"since" doc:"When the head checkpoint was written: older first among equals"`
}

// ReadyList is a space's ready queue, best first.
type ReadyList struct {
	SpaceID smriti.ID      `json:"space_id" doc:"The space"`
	Tasks   []ReadyTaskOut `json:"tasks" doc:"Open tasks of main's head and the active branches' heads whose blockers are all done and that no live claim holds, ranked"`
}

// ReadyClaimRequest takes the first ready task.
type ReadyClaimRequest struct {
	// ClientRequestID is the body form of the Idempotency-Key header.
	ClientRequestID string  `json:"client_request_id" required:"false" doc:"Idempotency key, when the Idempotency-Key header is not sent: a retry with the same key and request returns the first answer without writing again"`
	Agent           *string `json:"agent" doc:"Who claims (the agent's name)"`
	SessionID       *string `json:"session_id" doc:"The claimer's session in the space"`
	WorktreeID      *string `json:"worktree_id" doc:"The worktree the work happens in"`
	IntentType      *string `json:"intent_type" doc:"implement, review, investigate, docs or test (default: the task's hint, else implement)"`
	TTL             *string `json:"ttl" doc:"Lease length: 90m, 2h, 1h30m, 3d, or a number of hours (default 4h)"`
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

// ReadyTask turns the wire form back into the domain's.
func (o ReadyTaskOut) ReadyTask() coord.ReadyTask {
	return coord.ReadyTask{Key: o.Key, Task: smriti.Task{Text: o.Text, ID: o.ID, IntentHint: o.IntentHint, BlockedBy: o.BlockedBy, Structured: o.ID != ""},
		Branch: o.BranchName, CheckpointID: o.CheckpointID, Hash: o.CommitHash, Unblocks: o.Unblocks, Since: o.Since}
}
