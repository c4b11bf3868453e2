package coord

import (
	"context"
	"smriti"
	"smriti/receipt"
	"smriti/remote"
	"time"
)

// StateBrief is what an agent reads before working in a space: main's head,
// the active branches and how their decisions differ from main's, the live
// claims, and — when the agent says which checkpoint it last saw — what
// changed on main since.
type StateBrief struct {
	Space *smriti.Space
	// Head is main's newest checkpoint (nil for a space without one).
	Head *smriti.Checkpoint
	// LatestSession is the space's most recently updated session.
	LatestSession *smriti.Session
	// Branches are the heads of active branches, newest first, at most
	// ActiveBranchesCap; MoreBranches counts the rest.
	Branches     []BranchHead
	MoreBranches int
	// Claims are the live claims, newest first, at most ActiveClaimsCap;
	// MoreClaims counts the rest.
	Claims     []ActiveClaim
	MoreClaims int
	// Divergence pairs main with each active branch whose decisions differ;
	// MoreDivergent counts the divergent branches beyond DivergenceCap.
	Divergence    []DivergencePair
	MoreDivergent int
	// Freshness is set when the caller named the checkpoint it last saw.
	Freshness *Freshness
	// Mount is the checkpoint the asking session has mounted, when a
	// session was named and has one.
	Mount *MountedCheckpoint
	// Compaction is the space's newest compaction receipt (nil when no
	// agent host has compacted yet).
	Compaction *receipt.Receipt
	// Proposals are the space's pending proposals, newest first.
	Proposals []ProposalWaiting
	// Remotes say how each branch tracked on another copy of the space
	// stands against it ("main is 2 ahead, 3 behind origin/main").
	Remotes []remote.Divergence
}

// ProposalWaiting is a pending proposal as the brief names it.
type ProposalWaiting struct {
	ID        smriti.ID
	Title     string
	Source    string
	Branch    string
	CreatedAt time.Time
}

// BranchHead is the newest checkpoint of an active branch.
type BranchHead struct {
	Branch       string
	CheckpointID smriti.ID
	Hash         string
	Message      string
	AuthorAgent  *string
	Summary      string
	Decisions    []string
	CreatedAt    time.Time
}

// ActiveClaim is a live claim as the brief shows it.
type ActiveClaim struct {
	Claim
	// BaseHash is the hash of the claim's base checkpoint ("" when none).
	BaseHash string
	// Worktree is the bound worktree when it is still active.
	Worktree *Worktree
	// Probe is the bound worktree's drift (nil when unbound, closed or the
	// probe failed).
	Probe *WorktreeProbe
}

// DivergencePair is where main's and a branch's decisions differ.
type DivergencePair struct {
	Branch     string
	BranchHash string
	MainOnly   []string
	BranchOnly []string
}

// Freshness tells an agent whether main moved since the checkpoint it saw.
type Freshness struct {
	Changed         bool
	SinceHash       string
	CurrentHeadHash string
	// NewCount is the exact number of main checkpoints written after the
	// one the caller saw; New lists the newest FreshnessListCap of them.
	NewCount int
	New      []FreshCheckpoint
}

// FreshCheckpoint is one checkpoint in a freshness list.
type FreshCheckpoint struct {
	ID          smriti.ID
	Hash        string
	AuthorAgent *string
	Message     string
	CreatedAt   time.Time
}

// MountedCheckpoint names the checkpoint a session works from.
type MountedCheckpoint struct {
	SessionID    smriti.ID
	CheckpointID smriti.ID
	Hash         string
	Message      string
}

// StateQuery asks for a space's state brief.
type StateQuery struct {
	// Since is the checkpoint the caller last saw (freshness); it must be
	// in the space.
	Since *smriti.ID
	// SessionID names the asking session (for its mount); it must be in the
	// space.
	SessionID *smriti.ID
}

// StateService answers the state brief.
type StateService interface {
	// SpaceState returns the brief of the space in one read. ENOTFOUND for
	// an unknown space, or a Since checkpoint or session not in the space.
	// Probes of bound worktrees are filled from the shared cache only.
	SpaceState(ctx context.Context, spaceID smriti.ID, q StateQuery) (*StateBrief, error)
}

// ComputeDivergence pairs main's decisions with each branch head's, in the
// branches' order, keeping the branches whose decisions differ: up to
// DivergenceCap pairs, each side cut to divergenceItemsCap items, and the
// number of further divergent branches. No main head means no divergence.
func ComputeDivergence(head *smriti.Checkpoint, branches []BranchHead) ([]DivergencePair, int) {
	pairs := []DivergencePair{}
	more := 0
	if head == nil {
		return pairs, 0
	}
	for _, b := range branches {
		d := smriti.DiffLists(head.Decisions, b.Decisions)
		if len(d.OnlyA) == 0 && len(d.OnlyB) == 0 {
			continue
		}
		if len(pairs) >= DivergenceCap {
			more++
			continue
		}
		pairs = append(pairs, DivergencePair{Branch: b.Branch, BranchHash: b.Hash,
			MainOnly: capList(d.OnlyA, divergenceItemsCap), BranchOnly: capList(d.OnlyB, divergenceItemsCap)})
	}
	return pairs, more
}

func capList(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
