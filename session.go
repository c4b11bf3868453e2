package smriti

import (
	"smriti/internal/textutil"
	"strings"
	"time"
	"unicode"
)

// Branch dispositions.
const (
	DispositionActive     = "active"
	DispositionIntegrated = "integrated"
	DispositionAbandoned  = "abandoned"
)

// ValidateBranchName accepts a branch name of at most maxBranchNameChars
// without control characters. "" passes: whether a name is required, and
// what it defaults to, is the caller's rule.
func ValidateBranchName(name string) error {
	switch {
	case textutil.RuneLen(name) > maxBranchNameChars:
		return TooLong("branch_name", maxBranchNameChars)
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return Errorf(EUNPROCESSABLE, "branch_name must not contain control characters")
	}
	return nil
}

// ValidateDisposition accepts the branch dispositions: abandoned, active,
// integrated. EINVALID otherwise.
func ValidateDisposition(d string) error {
	switch d {
	case DispositionAbandoned, DispositionActive, DispositionIntegrated:
		return nil
	}
	return Errorf(EINVALID, "Invalid disposition '%s'. Must be one of: abandoned, active, integrated", textutil.Truncate(d, 40))
}

// Turn roles.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleSystem    = "system"
)

// Session is the live chat runtime: an append-only stream of Turns, optionally
// attached to a Space and, when forked, to the Checkpoint it branched from.
type Session struct {
	ID                     ID
	SpaceID                *ID
	OwnerID                ID
	Title                  string
	ActiveProvider         string
	ActiveModel            string
	SeededCheckpointID     *ID
	ForkedFromCheckpointID *ID
	BranchName             string
	BranchDisposition      string
	// Mount is the checkpoint the session's context is anchored to, kept
	// between sends; nil when nothing is mounted.
	Mount    *Mount
	Metadata map[string]any
	// LastSeq is the sequence number of the newest turn, -1 when there is none.
	LastSeq   int64
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Mount anchors a session's context to a checkpoint: sends and drafts see
// that checkpoint and only the turns after BaseSeq.
type Mount struct {
	CheckpointID ID
	// BaseSeq is the last sequence number typed before the mount; -1 means
	// every turn of the session.
	BaseSeq int64
}

// MountAt is the mount of checkpoint in session s: BaseSeq is base when
// given, else the session's last sequence number, so only what is typed
// from now on reaches the model.
func (s *Session) MountAt(checkpoint ID, base *int64) Mount {
	m := Mount{CheckpointID: checkpoint, BaseSeq: s.LastSeq}
	if base != nil {
		m.BaseSeq = *base
	}
	return m
}

// Validate checks the mount's own fields: EUNPROCESSABLE for a BaseSeq
// below -1. That the checkpoint exists and is in the session's space is
// the service's check (the storage contract's SetMount).
func (m Mount) Validate() error {
	if m.BaseSeq < -1 {
		return Errorf(EUNPROCESSABLE, "history_base_seq must be -1 or more, not %d", m.BaseSeq)
	}
	return nil
}

// Turn is one event of a session's stream. Turns are never updated or deleted
// except together with their session or space.
type Turn struct {
	ID        ID
	SessionID ID
	SpaceID   *ID
	Role      string
	Content   string
	Provider  string
	Model     string
	// Seq is per session: starts at 0, increases by one, no gaps.
	Seq int64
	// LogPos is the turn's position in its space's log shared with the
	// space's checkpoints, so "after this checkpoint" is an exact
	// comparison. A turn of a session without a space has no checkpoints
	// to compare with; attaching the session gives its turns new positions.
	LogPos int64
	// Tokens is the estimated token count of Content, computed once at write.
	Tokens    int
	Metadata  map[string]any
	CreatedAt time.Time
}

// SessionCreate is what a caller may set when creating a session.
type SessionCreate struct {
	SpaceID  *ID
	Title    string
	Provider string
	Model    string
	// SeedFrom is "head" (default), "none", or a checkpoint id in the space.
	SeedFrom string
}

// ForkCreate describes a new session branching from a checkpoint.
type ForkCreate struct {
	SpaceID      ID
	CheckpointID ID
	// BranchName may be empty: a unique default is chosen.
	BranchName string
	Provider   string
	Model      string
}

// InSpace reports whether the session belongs to space (a session attached
// to no space belongs to none).
func (s *Session) InSpace(space ID) bool {
	return s != nil && s.SpaceID != nil && *s.SpaceID == space
}
