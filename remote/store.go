package remote

import (
	"context"

	"smriti"
	"smriti/records"
)

// Store keeps a space's remotes and what was fetched from them, and answers
// the other side of a fetch or a push. Every method answers ENOTFOUND for a
// space the caller may not see, and writes need write access (EFORBIDDEN).
type Store interface {
	// AddRemote records a remote (ECONFLICT when the name is taken).
	AddRemote(ctx context.Context, in Create) (*Remote, error)
	// Remotes lists a space's remotes by name, with their tracking heads.
	Remotes(ctx context.Context, space smriti.ID) ([]*Remote, error)
	// Remote returns one remote (ENOTFOUND when it has no such remote).
	Remote(ctx context.Context, space smriti.ID, name string) (*Remote, error)
	// RemoveRemote forgets a remote, its heads and what was fetched from it
	// and not pulled (ENOTFOUND when it has no such remote).
	RemoveRemote(ctx context.Context, space smriti.ID, name string) error
	// SetRemoteHeads records the remote's branch heads after a fetch or a
	// push and moves the fetch cursor or the push cursor when given.
	SetRemoteHeads(ctx context.Context, space smriti.ID, name string, heads []Head, fetchCursor, pushCursor *int64) error
	// SetSessionPrivate marks a session private or shared (ENOTFOUND for a
	// session the caller may not see).
	SetSessionPrivate(ctx context.Context, id smriti.ID, private bool) error
	// SessionPrivate reports whether a session is private.
	SessionPrivate(ctx context.Context, id smriti.ID) (bool, error)

	// SyncHeads returns the space's branch heads and its turn cursor.
	SyncHeads(ctx context.Context, space smriti.ID) ([]Head, int64, error)
	// SyncExport writes what a fetch asks for (see Want) as sync records.
	SyncExport(ctx context.Context, space smriti.ID, want Want, w records.Writer) error
	// ApplyPush stores a pushed stream, moving the branch by fast-forward
	// only (ECONFLICT, from MovedError, when its head is not the one the
	// pusher saw).
	ApplyPush(ctx context.Context, space smriti.ID, push Push, rd records.Reader) (Counts, error)

	// StageRecords keeps a fetch answer, verified record by record,
	// without moving any local branch.
	StageRecords(ctx context.Context, space smriti.ID, name string, rd records.Reader) (Counts, error)
	// StagedCheckpoint returns a fetched checkpoint not yet applied
	// (ENOTFOUND when there is none).
	StagedCheckpoint(ctx context.Context, space, id smriti.ID) (*smriti.Checkpoint, error)
	// StagedFrontier returns the stored checkpoints a staged checkpoint's
	// ancestry reaches, and how many staged checkpoints the walk passed.
	StagedFrontier(ctx context.Context, space, head smriti.ID) ([]smriti.ID, int, error)
	// StagedCount counts the fetched, unapplied checkpoints of a branch.
	StagedCount(ctx context.Context, space smriti.ID, name, branch string) (int, error)
	// AheadOf counts the checkpoints of head's history not in base's.
	AheadOf(ctx context.Context, head smriti.ID, base *smriti.ID) (int, error)
	// IntegrateStaged applies what was fetched and the plan's merge in one
	// transaction (ECONFLICT when the branch moved since the plan).
	IntegrateStaged(ctx context.Context, space smriti.ID, name string, plan Integration) (*smriti.Checkpoint, Counts, error)
}

// Peer is another server holding a copy of a space, as seen from this one.
// Its errors are *smriti.Error with the other server's code and detail.
type Peer interface {
	// Refs returns the other copy's branch heads and turn cursor.
	Refs(ctx context.Context, space smriti.ID) ([]Head, int64, error)
	// Fetch asks for what want names and returns the sync stream.
	Fetch(ctx context.Context, space smriti.ID, want Want) (ReadCloser, error)
	// Push sends a sync stream (body) claiming push; ECONFLICT when the
	// other copy's branch moved.
	Push(ctx context.Context, space smriti.ID, push Push, body Reader) (Counts, error)
	// Export returns the whole space as a bundle (a clone reads it).
	Export(ctx context.Context, space smriti.ID) (ReadCloser, error)
	// Propose saves draft as a pending proposal on the other copy, written
	// against base (a checkpoint both copies hold), and returns its id.
	Propose(ctx context.Context, space smriti.ID, base *smriti.ID, draft smriti.ProposalDraft) (smriti.ID, error)
}

// Reader and ReadCloser are the byte streams a Peer moves (io's, named here
// so the interface reads whole).
type (
	Reader     = interface{ Read(p []byte) (int, error) }
	ReadCloser = interface {
		Reader
		Close() error
	}
)

// Dialer reaches the server at url with token ("" for none).
type Dialer func(url, token string) Peer
