package wire

import "smriti"

// NextBaseOut answers what the next checkpoint of a space builds on.
type NextBaseOut struct {
	SpaceID          smriti.ID  `json:"space_id" doc:"The space"`
	SessionID        *smriti.ID `json:"session_id" doc:"The session asked about (null: a checkpoint with no session, onto main)"`
	BranchName       string     `json:"branch_name" doc:"The branch the checkpoint goes on: the session's branch, or main with no session"`
	BaseCheckpointID *smriti.ID `json:"base_checkpoint_id" doc:"Its parent: the branch's newest checkpoint, else (a fork before its first checkpoint) the checkpoint the fork was made from; null when it would be the first of its line"`
	BaseCommitHash   *string    `json:"base_commit_hash" doc:"The parent's hash (null when there is no parent)"`
}
