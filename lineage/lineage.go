// Package lineage holds the shape of a space's history: its branch tree
// and the questions asked of it (common ancestors, what a session can
// reach).
package lineage

import (
	"context"
	"smriti"
	"time"
)

// TreeCheckpoint is a checkpoint as the branch tree draws it: its place in
// the graph and a little text, without the full structured content.
type TreeCheckpoint struct {
	ID            smriti.ID
	Hash          string
	Message       string
	BranchName    string
	ParentID      *smriti.ID
	MergeParentID *smriti.ID
	Summary       string
	Objective     string
	AuthorAgent   *string
	NoteCount     int
	NoteKinds     []string
	LogPos        int64
	CreatedAt     time.Time
}

// Tree is a space's branch tree: its checkpoints and sessions, oldest first.
type Tree struct {
	SpaceID     smriti.ID
	Checkpoints []TreeCheckpoint
	Sessions    []*smriti.Session
}

// Service answers questions about the shape of a space's history.
// Every method is scoped to the caller in ctx.
type Service interface {
	// CommonAncestor returns the lowest common ancestor of two checkpoints
	// of one space, following both parent edges (nil when their histories
	// are unrelated). ENOTFOUND for an unknown checkpoint; EINVALID when
	// they belong to different spaces.
	CommonAncestor(ctx context.Context, a, b smriti.ID) (*smriti.Checkpoint, error)
	// ReachableCheckpoints returns the checkpoints a session can see,
	// newest first: for a main session every main checkpoint of its space;
	// for a fork its own branch's checkpoints plus the fork source and its
	// ancestors (never later main checkpoints or sibling branches).
	// ENOTFOUND for an unknown session; [] for an unattached one.
	ReachableCheckpoints(ctx context.Context, sessionID smriti.ID) ([]*smriti.Checkpoint, error)
	// SpaceTree returns the branch tree; ENOTFOUND for an unknown space.
	SpaceTree(ctx context.Context, spaceID smriti.ID) (*Tree, error)
}
