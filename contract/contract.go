// Package contract declares what Smriti's storage promises: the services
// the store implements and the App and the intelligence layer call, with
// the queries, writes and answers that are theirs alone (the domain's own
// types stay in package smriti). Every method is scoped to the caller in
// ctx. The conformance suite in
// store/storetest holds both engines to these promises.
package contract

import (
	"context"
	"smriti"
)

// CheckpointService manages checkpoints. Every method is scoped to the caller
// in ctx: a checkpoint in a space the caller may not see is ENOTFOUND.
type CheckpointService interface {
	// CommitCheckpoint writes a checkpoint onto the head of the session's
	// branch (a fork's first one onto the fork's source), or of main when
	// in.SessionID is NilID. ENOTFOUND for an unknown space, or a session
	// that is missing or not in that space.
	CommitCheckpoint(ctx context.Context, in smriti.CheckpointCommit) (*smriti.Checkpoint, error)
	// CreateCheckpoint writes a checkpoint with an explicit parent.
	// ENOTFOUND for an unknown space; EINVALID for a parent that is missing
	// or in another space.
	CreateCheckpoint(ctx context.Context, in smriti.CheckpointCreate) (*smriti.Checkpoint, error)
	// Checkpoint returns the checkpoint with its notes, or ENOTFOUND.
	Checkpoint(ctx context.Context, id smriti.ID) (*smriti.Checkpoint, error)
	// Checkpoints lists a space's checkpoints newest first; ENOTFOUND for an
	// unknown space.
	Checkpoints(ctx context.Context, spaceID smriti.ID, q CheckpointQuery) ([]*smriti.Checkpoint, string, error)
	// LatestCheckpoints returns up to n newest checkpoints of the branch,
	// newest first ([] when there are none); ENOTFOUND for an unknown space.
	LatestCheckpoints(ctx context.Context, spaceID smriti.ID, branch string, n int) ([]*smriti.Checkpoint, error)
	// Ancestors returns the checkpoint and up to n-1 of its ancestors along
	// the parent chain, oldest first; ENOTFOUND for an unknown checkpoint.
	Ancestors(ctx context.Context, id smriti.ID, n int) ([]*smriti.Checkpoint, error)
	// CheckpointHeads is LatestCheckpoints without the content: each
	// checkpoint's id, space, hash, parents, branch, title (Message), log
	// position, creation time and hash version, everything else zero. A
	// send reads its state this way and renders the content once per
	// checkpoint, not once per send. Unlike LatestCheckpoints, a space the
	// caller may not see is [] (a send has read its session, which proves
	// the space visible, and pays for no second query).
	CheckpointHeads(ctx context.Context, spaceID smriti.ID, branch string, n int) ([]*smriti.Checkpoint, error)
	// AncestorHeads is Ancestors without the content, as CheckpointHeads.
	AncestorHeads(ctx context.Context, id smriti.ID, n int) ([]*smriti.Checkpoint, error)
	// DeleteCheckpoint removes the checkpoint. Without cascade, a checkpoint
	// with children or forked sessions is ECONFLICT with what depends on it as the
	// error data; with cascade the subtree and sessions forked from it go
	// too. ENOTFOUND as Checkpoint.
	DeleteCheckpoint(ctx context.Context, id smriti.ID, cascade bool) error
	// AddNote stores a note beside the checkpoint; ENOTFOUND as Checkpoint.
	AddNote(ctx context.Context, checkpointID smriti.ID, in smriti.NoteCreate) (*smriti.Note, error)
	// TurnsConsumed is the last sequence number of the session that a
	// checkpoint accounts for: the greatest to_seq of a checkpoint drafted
	// from its turns, or its last turn before a checkpoint it committed
	// without source turns; -1 when none does. ENOTFOUND for an unknown
	// session.
	TurnsConsumed(ctx context.Context, sessionID smriti.ID) (int64, error)
	// VerifyCheckpoint recomputes the hash chain from the checkpoint to its
	// root(s); ENOTFOUND as Checkpoint.
	VerifyCheckpoint(ctx context.Context, id smriti.ID) (*smriti.Verification, error)
}

// ItemService reads items with identity. Scoped to the caller like
// CheckpointService.
type ItemService interface {
	// CheckpointItems returns the checkpoint's items in order, tombstones
	// last; ENOTFOUND as Checkpoint.
	CheckpointItems(ctx context.Context, id smriti.ID) ([]smriti.Item, error)
	// ItemHistory returns the changes to the item in the space, oldest
	// first; ENOTFOUND for an unknown space or an item the space never had.
	ItemHistory(ctx context.Context, spaceID smriti.ID, itemID string) ([]smriti.ItemEvent, error)
}

// SessionService manages sessions and their turns. Every method is scoped to
// the caller in ctx: a session of a space the caller may not see is ENOTFOUND.
type SessionService interface {
	// CreateSession stores a new session on main; ENOTFOUND for an unknown space.
	CreateSession(ctx context.Context, in smriti.SessionCreate) (*smriti.Session, error)
	// Session returns the session or ENOTFOUND.
	Session(ctx context.Context, id smriti.ID) (*smriti.Session, error)
	// Sessions lists the caller's sessions, most recently updated first;
	// spaceID narrows it to one space (ENOTFOUND for an unknown space).
	Sessions(ctx context.Context, spaceID *smriti.ID, page smriti.Page) ([]*smriti.Session, string, error)
	// DeleteSession removes the session and its turns; checkpoints it wrote
	// remain. ENOTFOUND as Session.
	DeleteSession(ctx context.Context, id smriti.ID) error
	// AttachSession attaches the session (and its turns) to a space;
	// ENOTFOUND for an unknown session or space.
	AttachSession(ctx context.Context, id, spaceID smriti.ID) (*smriti.Session, error)
	// SetSessionTitle replaces the title; ENOTFOUND as Session.
	SetSessionTitle(ctx context.Context, id smriti.ID, title string) (*smriti.Session, error)
	// Turn returns one turn; ENOTFOUND for an unknown turn or one whose
	// session the caller may not see.
	Turn(ctx context.Context, id smriti.ID) (*smriti.Turn, error)
	// Turns returns the session's turns selected by q; ENOTFOUND as Session.
	Turns(ctx context.Context, sessionID smriti.ID, q TurnQuery) ([]*smriti.Turn, error)
	// History returns the history a send may fit into a token budget, as of
	// the session se read (Session): see HistoryQuery. The returned turns
	// are shared and must not be modified.
	History(ctx context.Context, se *smriti.Session, q HistoryQuery) (HistoryWindow, error)
	// AppendExchange writes the user and assistant turns with the next two
	// sequence numbers in one transaction and records the provider and model
	// as the session's active ones. ENOTFOUND as Session.
	AppendExchange(ctx context.Context, ex Exchange) (*ExchangeResult, error)
	// ReplayExchange returns the exchange stored under an idempotency key,
	// or nil when there is none or it is older than the key retention.
	// ENOTFOUND as Session.
	ReplayExchange(ctx context.Context, sessionID smriti.ID, key string) (*ExchangeResult, error)
	// SetMount records m as the session's mount, or ends the mount when m
	// is nil. ENOTFOUND as Session or for an unknown checkpoint; EINVALID
	// for a checkpoint outside the session's space (or a session without
	// one); EUNPROCESSABLE as Mount.Validate.
	SetMount(ctx context.Context, sessionID smriti.ID, m *smriti.Mount) (*smriti.Session, error)
	// ForkSession creates a session on a new branch starting at the
	// checkpoint. ENOTFOUND for an unknown space or checkpoint, EINVALID when
	// the checkpoint is in another space, ECONFLICT for a branch name that is
	// main or already in use.
	ForkSession(ctx context.Context, in smriti.ForkCreate) (*smriti.Session, error)
	// SetBranchDisposition sets the disposition of every session on the
	// branch and returns how many changed; ENOTFOUND for an unknown space or
	// a branch without sessions.
	SetBranchDisposition(ctx context.Context, spaceID smriti.ID, branch, disposition string) (int, error)
}

// SpaceService manages Spaces. Every method is scoped to the caller in ctx.
type SpaceService interface {
	// CreateSpace stores a new Space owned by the caller; the error
	// SpaceCreate.Validate gives for input it refuses, ECONFLICT when the
	// caller has a Space of that name.
	CreateSpace(ctx context.Context, in smriti.SpaceCreate) (*smriti.Space, error)
	// Space returns the Space, or ENOTFOUND when it does not exist or the
	// caller may not see it.
	Space(ctx context.Context, id smriti.ID) (*smriti.Space, error)
	// Spaces lists the caller's Spaces, most recently updated first.
	Spaces(ctx context.Context, page smriti.Page) ([]*smriti.Space, string, error)
	// SetProjectRoot replaces the Space's project root; ENOTFOUND as Space.
	SetProjectRoot(ctx context.Context, id smriti.ID, root string) (*smriti.Space, error)
	// DeleteSpace removes the Space and everything in it; ENOTFOUND as Space.
	DeleteSpace(ctx context.Context, id smriti.ID) error
}

// SpaceEventLog reads the per-space event log.
type SpaceEventLog interface {
	// SpaceEvents returns up to limit events of the Space with a position
	// greater than after, oldest first; ENOTFOUND as SpaceService.Space.
	SpaceEvents(ctx context.Context, space smriti.ID, after int64, limit int) ([]SpaceEvent, error)
	// LogPosition is the position in the Space's log every committed write
	// has reached: a subscriber starting now asks for events after it.
	LogPosition(ctx context.Context, space smriti.ID) (int64, error)
}
