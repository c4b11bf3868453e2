package contract

import (
	"smriti"
	"time"
)

// The kinds of SpaceEvent.
const (
	EventCheckpointCreated  = "checkpoint.created"
	EventSessionCreated     = "session.created"
	EventSessionUpdated     = "session.updated"
	EventDispositionChanged = "disposition.changed"
	EventClaimChanged       = "claim.changed"
)

// SpaceEvent is one change in a Space that live views refresh on. Position is
// the Space's log position the change committed at: events of one Space are
// strictly increasing in it, so a subscriber resumes with "after N".
// Positions of different Spaces are not comparable.
type SpaceEvent struct {
	Position   int64
	SpaceID    smriti.ID
	Kind       string
	SubjectID  smriti.ID // the checkpoint, session or claim the event is about
	BranchName string
	CreatedAt  time.Time
}
