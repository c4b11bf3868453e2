package wire

import (
	"time"

	"smriti"
)

// SpaceEventOut is one live-update event on the wire (the data of an SSE
// message whose id is Position and whose event name is Kind).
type SpaceEventOut struct {
	Position   int64     `json:"position"`
	SpaceID    smriti.ID `json:"space_id"`
	Kind       string    `json:"kind"`
	SubjectID  smriti.ID `json:"subject_id"`
	BranchName string    `json:"branch_name"`
	CreatedAt  time.Time `json:"created_at"`
}
