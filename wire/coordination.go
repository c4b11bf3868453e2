package wire

// ClaimRequest claims work in a space.
type ClaimRequest struct {
	// ClientRequestID is the body form of the Idempotency-Key header.
	ClientRequestID string   `json:"client_request_id" required:"false" doc:"Idempotency key, when the Idempotency-Key header is not sent: a retry with the same key and request returns the first answer without writing again"`
	SpaceID         *string  `json:"space_id" required:"true" doc:"The space (UUID)"`
	Agent           *string  `json:"agent" doc:"Who claims, such as claude-code (default: \"\")"`
	Scope           *string  `json:"scope" required:"true" doc:"What the work covers, at most 500 characters"`
	BranchName      *string  `json:"branch_name" doc:"The branch the work is on (default main)"`
	BaseCommitID    *string  `json:"base_commit_id" doc:"The checkpoint of the space the work starts from (UUID; null for none)"`
	SessionID       *string  `json:"session_id" doc:"A session of the space that claims (UUID; null for none)"`
	TaskID          *string  `json:"task_id" doc:"The id of the task in the checkpoint's tasks, at most 200 characters"`
	WorktreeID      *string  `json:"worktree_id" doc:"An open worktree of the space to bind (UUID): 404 when unknown, 400 when of another space or closed"`
	IntentType      *string  `json:"intent_type" doc:"implement (default), review, investigate, docs or test; anything else is 400"`
	TTLHours        *float64 `json:"ttl_hours" doc:"Hours until the claim expires: default 4, from 0.0167 (one minute) to 168 (seven days)"`
	TTL             *string  `json:"ttl" doc:"Lease length as a duration (90m, 2h, 1h30m, 3d, or a number of hours); overrides ttl_hours"`
}

// ClaimPatchRequest finishes a claim.
type ClaimPatchRequest struct {
	Status *string `json:"status" required:"true" doc:"done or abandoned"`
}
