package records

import (
	"encoding/json"
	"time"

	"smriti"
)

// BundleProposal is a proposal record: a drafted checkpoint waiting to be
// accepted, or the record of one accepted or rejected. Draft is the
// proposed content and items, as the store keeps them.
type BundleProposal struct {
	ID               smriti.ID       `json:"id"`
	SessionID        *smriti.ID      `json:"session_id"`
	BaseCheckpointID *smriti.ID      `json:"base_checkpoint_id"`
	BranchName       string          `json:"branch_name"`
	Title            string          `json:"title"`
	Source           string          `json:"source"`
	Status           string          `json:"status"`
	Draft            json.RawMessage `json:"draft"`
	CheckpointID     *smriti.ID      `json:"checkpoint_id"`
	CreatedAt        time.Time       `json:"created_at"`
	UpdatedAt        time.Time       `json:"updated_at"`
	DecidedAt        *time.Time      `json:"decided_at"`
}
