// Package mcp is Smriti's Model Context Protocol server: the agent tools
// (smriti_state, smriti_create_checkpoint, smriti_merge, …) built with the
// official Go SDK. The tools are defined over Ops, a small set of
// operations with two implementations: *app.App, the use-case layer
// itself, in-process (the server's own /mcp endpoint), and ClientOps,
// which speaks to a server through the Go client (`smriti mcp` over
// stdio). It imports the domain (smriti, coord, search), app,
// intelligence, client, wire, render, skills, tokenizer and the SDK — never
// the store, a provider or the HTTP server.
package mcp

import (
	"context"
	"smriti/app"
	"smriti/coord"
	"smriti/intelligence"

	"smriti"
)

// The server's own /mcp endpoint serves the tools over the App itself.
var _ Ops = (*app.App)(nil)

// Ops is what the tools need. Errors are *smriti.Error with the code the
// server would answer (ENOTFOUND for a missing or invisible thing).
type Ops interface {
	// AllSpaces lists every space the caller can see.
	AllSpaces(ctx context.Context) ([]*smriti.Space, error)
	Space(ctx context.Context, id smriti.ID) (*smriti.Space, error)
	CreateSpace(ctx context.Context, in smriti.SpaceCreate) (*smriti.Space, error)
	DeleteSpace(ctx context.Context, id smriti.ID) error

	Checkpoint(ctx context.Context, id smriti.ID) (*smriti.Checkpoint, error)
	// ResolveCheckpoint finds the checkpoint a reference names: a full UUID,
	// or a unique prefix (7+ characters) of its hash or id, of one space
	// when space is set.
	ResolveCheckpoint(ctx context.Context, space *smriti.ID, ref string) (*smriti.Checkpoint, error)
	// AllCheckpoints lists a space's checkpoints newest first; branch "" = all.
	AllCheckpoints(ctx context.Context, space smriti.ID, branch string) ([]*smriti.Checkpoint, error)
	// CommitBase is the checkpoint a checkpoint committed now in session
	// (smriti.NilID: none, onto main) builds on (smriti.CommitBase); nil
	// when it would be the first of its line.
	CommitBase(ctx context.Context, space, session smriti.ID) (*smriti.ID, error)
	// Save saves a checkpoint (app.App.Save): extracted from a document or
	// as given, committed, proposed, or with DryRun only settled. It fails
	// with ECONFLICT and a *smriti.CommitConflict when the base is behind
	// the head and the rebase conflicts.
	Save(ctx context.Context, in app.SaveRequest) (*app.Saved, error)
	// DeleteCheckpoint refuses with ECONFLICT and the dependents as data.
	DeleteCheckpoint(ctx context.Context, id smriti.ID, cascade bool) error
	AddNote(ctx context.Context, id smriti.ID, in smriti.NoteCreate) (*smriti.Note, error)
	VerifyCheckpoint(ctx context.Context, id smriti.ID) (*smriti.Verification, error)

	Review(ctx context.Context, id smriti.ID) (*intelligence.Review, error)

	// CheckpointItems are a checkpoint's items; Item an item's changes in
	// a space, oldest first, with the version ref picks (ref is an item id
	// or an item@version name; ENOTFOUND for an item the space never had
	// or a version it does not hold, EINVALID for a malformed name).
	CheckpointItems(ctx context.Context, id smriti.ID) ([]smriti.Item, error)
	Item(ctx context.Context, space smriti.ID, ref string) (*smriti.ItemAt, error)
	// ResolveItem is the item id ref names (app.App.ResolveItem): an id or
	// item@version as given, else the head's item whose text matches.
	ResolveItem(ctx context.Context, space smriti.ID, ref string) (string, error)

	// Compare diffs two checkpoints (app.App.Compare): of two spaces too,
	// with no common ancestor.
	Compare(ctx context.Context, a, b smriti.ID) (*app.Comparison, error)
	ForkSession(ctx context.Context, in smriti.ForkCreate) (*smriti.Session, error)
	SetBranchDisposition(ctx context.Context, space smriti.ID, branch, disposition string) (int, error)
	Merge(ctx context.Context, in app.MergeRequest) (*app.MergeOutcome, error)

	// SpaceState is the space's state brief.
	SpaceState(ctx context.Context, space smriti.ID, q coord.StateQuery) (*coord.StateBrief, error)
	// StateAsOf is the state of a line of work as of a checkpoint or a
	// time (app.App.StateAsOf).
	StateAsOf(ctx context.Context, space smriti.ID, ref, branch string) (*app.AsOfState, error)
	// CreateClaim stores a claim and returns the live claims it collides with.
	CreateClaim(ctx context.Context, in coord.ClaimCreate) (*coord.Claim, []*coord.Claim, error)
	FinishClaim(ctx context.Context, id smriti.ID, status string) (*coord.Claim, error)
	// AllClaims lists a space's claims, newest first; live ones only unless
	// includeExpired.
	AllClaims(ctx context.Context, space smriti.ID, includeExpired bool) ([]*coord.Claim, error)
	SpaceMetricsView(ctx context.Context, space smriti.ID) (coord.MetricsView, error)
	// ReadyTasks is the space's ready queue, best first; ClaimReady claims
	// its first task atomically (ENOTFOUND when nothing is ready).
	ReadyTasks(ctx context.Context, space smriti.ID, q coord.ReadyQuery) ([]coord.ReadyTask, error)
	ClaimReady(ctx context.Context, in coord.ClaimCreate) (*coord.Claim, *coord.ReadyTask, error)

	OpenWorktree(ctx context.Context, in coord.WorktreeOpen) (*coord.Worktree, error)
	Worktrees(ctx context.Context, space smriti.ID, includeClosed bool) ([]*coord.Worktree, map[smriti.ID]*coord.WorktreeProbe, error)
	// Worktree resolves a full id or a prefix of 4+ characters.
	Worktree(ctx context.Context, idOrPrefix string) (*coord.Worktree, error)
	CloseWorktree(ctx context.Context, idOrPrefix string, force bool) (*coord.Worktree, error)

	// PreviewContext is what the send req would give the model; with no
	// session (smriti.NilID), what a new session of space would.
	PreviewContext(ctx context.Context, space *smriti.ID, req app.SendRequest) (*ContextPreview, error)

	ProposalOps
	SyncOps
}

// ContextPreview is the whole of what a send would give the model.
type ContextPreview = app.ContextPreview
