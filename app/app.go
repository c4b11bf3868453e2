// Package app is Smriti's use-case layer: one App, built once by the
// program's main, that every entry point calls — the HTTP handlers, the MCP
// tools served in-process, and (through the HTTP API) the CLI and
// `smriti mcp`. Each rule of a use case lives here once: the model a new
// session or fork gets, the session-title limit, how a checkpoint is saved
// (Save: extraction, base, default title, author, commit or proposal),
// compare, merge, the LLM gate every provider-backed call passes, and
// reference resolution (the Resolve* methods). The App has a
// store (an unexported field), it does not embed one: every exported
// method is a use case, and *App is the in-process mcp.Ops.
//
// The files are laid out by use case: spaces, sessions, checkpoints,
// commit, send and preview, llmcalls (draft, extract, review, title),
// merge, claims, worktrees, events, search, imports, idempotency, the
// gate, and backups (Backups: a whole store to a file and back, beside the
// App, since a backup opens the databases it reads and writes). app
// imports the domain (smriti, coord, account, idempotency, search,
// records), intelligence and portability; never an adapter (store,
// provider, httpapi, mcp, cli) nor render (internal/layering checks it).
package app

import (
	"context"

	"smriti"
	"smriti/account"
	"smriti/contract"
	"smriti/coord"
	"smriti/idempotency"
	"smriti/intelligence"
	"smriti/internal/clock"
	"smriti/lineage"
	"smriti/portability"
	"smriti/proposal"
	"smriti/receipt"
	"smriti/remote"
	"smriti/search"
	"smriti/secretlog"
)

// Store is everything the use cases need from storage; the store package
// implements it on SQLite and PostgreSQL.
type Store interface {
	contract.SpaceService
	contract.SessionService
	contract.CheckpointService
	contract.ItemService
	lineage.Service
	proposal.Service
	search.Service
	portability.SpaceStore
	portability.TranscriptStore
	portability.AgentTranscriptStore
	coord.ClaimService
	coord.ReadyService
	coord.MetricsService
	coord.StateService
	coord.WorktreeStore
	contract.SpaceEventLog
	receipt.Service
	remote.Store
	secretlog.SecretService
	account.Service
	// SessionHead is Session with, for a session in a space, the head of
	// main there as CheckpointHeads(space, main, 1) reads it (nil when main
	// has no checkpoint), read in one go: what a HEAD send starts from.
	// ENOTFOUND as Session.
	SessionHead(ctx context.Context, id smriti.ID) (*smriti.Session, *smriti.Checkpoint, error)
	// SpaceRole is the caller's role in a space (ENOTFOUND when they are
	// no member).
	SpaceRole(ctx context.Context, id smriti.ID) (account.Role, error)
	// CheckpointsByPrefix returns up to limit checkpoints the caller can
	// see whose id or hash starts with prefix, of one space when space is
	// set.
	CheckpointsByPrefix(ctx context.Context, space *smriti.ID, prefix string, limit int) ([]*smriti.Checkpoint, error)
	// ProposalsByPrefix returns up to limit ids of space's proposals the
	// caller can see whose id starts with prefix; SessionsByPrefix the
	// same of the caller's sessions.
	ProposalsByPrefix(ctx context.Context, space smriti.ID, prefix string, limit int) ([]smriti.ID, error)
	SessionsByPrefix(ctx context.Context, prefix string, limit int) ([]smriti.ID, error)
	// ClaimsByPrefix returns up to limit claims the caller can see whose
	// id starts with prefix.
	ClaimsByPrefix(ctx context.Context, prefix string, limit int) ([]*coord.Claim, error)
	// ItemVersions returns up to limit versions of an item (the rows where
	// a checkpoint changed it) whose checkpoint hash starts with
	// hashPrefix, oldest first, among the spaces the caller can see (of
	// one space when space is set); [] when none.
	ItemVersions(ctx context.Context, space *smriti.ID, itemID, hashPrefix string, limit int) ([]smriti.ItemEvent, error)
	// SetItemVersions sets Version on items, the items checkpoint c holds.
	SetItemVersions(ctx context.Context, c *smriti.Checkpoint, items []smriti.Item) error
	idempotency.Store
	// CacheEpoch changes when what the store returned before may have
	// changed under it (a secret purged by another server on the same
	// database): caches of it drop their entries.
	CacheEpoch() int64
	// RunInTx runs fn in one transaction that every write fn makes with the
	// context it is given joins: they commit together or not at all. fn
	// may run again on a retryable conflict.
	RunInTx(ctx context.Context, fn func(ctx context.Context) error) error
}

// Config is what New needs.
type Config struct {
	Store     Store
	Providers intelligence.Providers
	// Tokens counts tokens for chat budgets (intelligence.EstimateCounter
	// when nil).
	Tokens intelligence.TokenCounter
	// Now is the clock (clock.Now when nil).
	Now clock.Clock
	// Coordinator serves the state brief and worktrees; nil builds one over
	// Store without git (worktree use cases then answer EUNAVAILABLE).
	Coordinator *Coordinator
	// Gate configures the LLM gate (the zero value admits every call).
	Gate GateConfig
	// Dialer reaches other servers for fetch, pull, push and clone (nil:
	// those use cases answer EUNAVAILABLE).
	Dialer remote.Dialer
	// GitDialer reaches git repositories used as remotes (remote.IsGitURL
	// tells them apart; nil: those remotes answer EUNAVAILABLE).
	GitDialer remote.Dialer
	// StateCacheBytes bounds the memory kept for rendered checkpoint state
	// (0 means DefaultStateCacheBytes; negative turns the cache off).
	StateCacheBytes int64
}

// App holds the use cases: every exported method is something a user
// does. It has a store; it does not embed one, so a table read an entry
// point needs is a named use case here.
type App struct {
	store       Store
	providers   intelligence.Providers
	chat        *Chat
	intel       *intelligence.Intelligence
	coordinator *Coordinator
	transcripts *portability.TranscriptImporter
	gate        *Gate
	now         clock.Clock
	dial        remote.Dialer
	gitDial     remote.Dialer
}

// New builds the App and the services it owns, once.
func New(cfg Config) *App {
	now := cfg.Now
	if now == nil {
		now = clock.Now
	}
	a := &App{store: cfg.Store, providers: cfg.Providers, now: now, gate: NewGate(cfg.Gate), dial: cfg.Dialer, gitDial: cfg.GitDialer}
	a.chat = &Chat{Sessions: cfg.Store, Checkpoints: cfg.Store, Providers: cfg.Providers, Now: now, Tokens: cfg.Tokens}
	if cfg.Store != nil {
		a.chat.sessionHead = cfg.Store.SessionHead
		a.chat.epoch = cfg.Store.CacheEpoch
	}
	a.chat.allow = func(ctx context.Context, session smriti.ID) func(rule, fingerprint string) bool {
		return a.allowlist(ctx, func() (smriti.ID, error) { return a.sessionSpace(ctx, session) })
	}
	switch {
	case cfg.StateCacheBytes == 0:
		a.chat.cache = newStateCache(DefaultStateCacheBytes)
	case cfg.StateCacheBytes > 0:
		a.chat.cache = newStateCache(cfg.StateCacheBytes)
	}
	var background intelligence.Providers
	if cfg.Providers != nil {
		background = secretFreeProviders{cfg.Providers}
	}
	a.intel = &intelligence.Intelligence{Sessions: titleRedacting{cfg.Store, a}, Checkpoints: cfg.Store, Items: cfg.Store, Providers: background}
	if a.coordinator = cfg.Coordinator; a.coordinator == nil {
		a.coordinator = &Coordinator{Briefs: cfg.Store, Store: cfg.Store, Now: now}
	}
	if a.coordinator.Receipts == nil {
		a.coordinator.Receipts = cfg.Store
	}
	if a.coordinator.Proposals == nil {
		a.coordinator.Proposals = cfg.Store
	}
	if a.coordinator.Remotes == nil {
		a.coordinator.Remotes = a.remoteDivergence
	}
	a.transcripts = &portability.TranscriptImporter{Store: cfg.Store, Draft: a.draftImported,
		Allowed: func(ctx context.Context, space smriti.ID) func(rule, fingerprint string) bool {
			return a.allowlist(ctx, func() (smriti.ID, error) { return space, nil })
		}}
	return a
}

// Accounts is the accounts service — users, API tokens, browser sessions
// and space members — that the HTTP API's sign-in and account routes use
// (each of its methods checks the caller's right to what it changes).
func (a *App) Accounts() account.Service { return a.store }
