// Package app is Smriti's use-case layer: one App, built once by the
// program's main, that every entry point calls — the HTTP handlers, the MCP
// tools served in-process, and (through the HTTP API) the CLI and
// `smriti mcp`. Each rule of a use case lives here once: the model a new
// session or fork gets, the session-title limit, who authored a
// checkpoint, commits with no session, merge, the LLM gate every
// provider-backed call passes, and reference resolution.
//
// app imports the domain (smriti), intelligence, portability and render;
// never an adapter (store, provider, httpapi, mcp, cli).
package app

import (
	"context"
	"io"
	"strings"

	"smriti"
	"smriti/coord"
	"smriti/idempotency"
	"smriti/intelligence"
	"smriti/portability"
	"smriti/search"
)

// Store is everything the use cases need from storage; the store package
// implements it on SQLite and PostgreSQL.
type Store interface {
	smriti.SpaceService
	smriti.SessionService
	smriti.CheckpointService
	smriti.ItemService
	smriti.LineageService
	smriti.ProposalService
	search.Service
	portability.SpaceExporter
	portability.TranscriptStore
	portability.AgentTranscriptStore
	coord.ClaimService
	coord.ReadyService
	coord.MetricsService
	coord.StateService
	coord.WorktreeStore
	smriti.SpaceEventLog
	// CheckpointsByPrefix returns up to limit checkpoints the caller can
	// see whose id or hash starts with prefix, of one space when space is
	// set.
	CheckpointsByPrefix(ctx context.Context, space *smriti.ID, prefix string, limit int) ([]*smriti.Checkpoint, error)
	idempotency.Store
}

// Config is what New needs.
type Config struct {
	Store     Store
	Providers intelligence.Providers
	// Tokens counts tokens for chat budgets (intelligence.EstimateCounter
	// when nil).
	Tokens intelligence.TokenCounter
	// Now is the clock (smriti.Now when nil).
	Now smriti.Clock
	// Coordinator serves the state brief and worktrees; nil builds one over
	// Store without git (worktree use cases then answer EUNAVAILABLE).
	Coordinator *Coordinator
	// Gate configures the LLM gate (the zero value admits every call).
	Gate GateConfig
}

// App holds the use cases. Plain reads and writes with no rule of their own
// pass straight through to the embedded Store; every method App defines
// itself is a use case with its rules.
type App struct {
	Store
	Providers    intelligence.Providers
	Chat         *Chat
	Intelligence *intelligence.Intelligence
	Coordinator  *Coordinator
	Transcripts  *portability.TranscriptImporter
	gate         *Gate
	now          smriti.Clock
}

// New builds the App and the services it owns, once.
func New(cfg Config) *App {
	now := cfg.Now
	if now == nil {
		now = smriti.Now
	}
	a := &App{Store: cfg.Store, Providers: cfg.Providers, now: now, gate: NewGate(cfg.Gate)}
	a.Chat = &Chat{Sessions: cfg.Store, Checkpoints: cfg.Store, Providers: cfg.Providers, Now: now, Tokens: cfg.Tokens}
	a.Intelligence = &intelligence.Intelligence{Sessions: cfg.Store, Checkpoints: cfg.Store, Items: cfg.Store, Providers: cfg.Providers}
	if a.Coordinator = cfg.Coordinator; a.Coordinator == nil {
		a.Coordinator = &Coordinator{Briefs: cfg.Store, Store: cfg.Store, Now: now}
	}
	if a.Coordinator.Proposals == nil {
		a.Coordinator.Proposals = cfg.Store
	}
	a.Transcripts = &portability.TranscriptImporter{Store: cfg.Store, Checkpoints: cfg.Store, Intelligence: a.Intelligence}
	return a
}

// Gate is the App's LLM gate.
func (a *App) Gate() *Gate { return a.gate }

// MaxSessionTitleChars bounds a session's title, in characters.
const MaxSessionTitleChars = 255

// CreateSession starts a session: the title trimmed and at most
// MaxSessionTitleChars characters (EUNPROCESSABLE), the provider and model
// chosen once (ChooseModel), seeded as in.SeedFrom says.
func (a *App) CreateSession(ctx context.Context, in smriti.SessionCreate) (*smriti.Session, error) {
	if smriti.RuneLen(in.Title) > MaxSessionTitleChars {
		return nil, smriti.TooLong("title", MaxSessionTitleChars)
	}
	in.Title = strings.TrimSpace(in.Title)
	in.Provider, in.Model = ChooseModel(a.Providers, in.Provider, in.Model)
	return a.Store.CreateSession(ctx, in)
}

// ForkSession forks a checkpoint into a new session on a new branch, with
// the provider and model chosen as for CreateSession.
func (a *App) ForkSession(ctx context.Context, in smriti.ForkCreate) (*smriti.Session, error) {
	in.Provider, in.Model = ChooseModel(a.Providers, in.Provider, in.Model)
	return a.Store.ForkSession(ctx, in)
}

// backgroundModel names the model that drafts and extracts ("" when none
// is configured), the author of drafted content.
func (a *App) backgroundModel() string {
	if a.Providers == nil {
		return ""
	}
	if _, model, err := a.Providers.Background(); err == nil {
		return model
	}
	return ""
}

// CommitCheckpoint saves content onto the head of a session's branch, or,
// with no session (in.SessionID is smriti.NilID), onto the head of main.
// The author is settled here (smriti.CommitAuthor): what the caller names,
// else the background model for content drafted from source turns.
func (a *App) CommitCheckpoint(ctx context.Context, in smriti.CheckpointCommit) (*smriti.Checkpoint, error) {
	author, err := smriti.CommitAuthor(in.AuthorType, in.AuthorAgent, in.SourceTurns != nil, a.backgroundModel())
	if err != nil {
		return nil, err
	}
	in.AuthorType, in.AuthorAgent = author.Type, author.Agent
	return a.Store.CommitCheckpoint(ctx, in)
}

// CommitBase is the checkpoint a checkpoint committed now in session
// (smriti.NilID: with no session, onto main) would build on, by
// smriti.CommitBase; nil when it would be the first of its line.
// ENOTFOUND for a session the caller cannot see or of another space.
func (a *App) CommitBase(ctx context.Context, space, session smriti.ID) (*smriti.ID, error) {
	var se *smriti.Session
	if session != smriti.NilID {
		var err error
		if se, err = a.Store.Session(ctx, session); err != nil {
			return nil, err
		}
		if se.SpaceID == nil || *se.SpaceID != space {
			return nil, smriti.Errorf(smriti.ENOTFOUND, "Session not found in this space")
		}
	}
	heads, err := a.Store.LatestCheckpoints(ctx, space, smriti.CommitBranch(se), 1)
	if err != nil {
		return nil, err
	}
	var head *smriti.ID
	if len(heads) > 0 {
		head = &heads[0].ID
	}
	return smriti.CommitBase(se, head), nil
}

// CreateCheckpoint saves a checkpoint with an explicit parent and branch
// (the older commit route), its author settled as for CommitCheckpoint.
func (a *App) CreateCheckpoint(ctx context.Context, in smriti.CheckpointCreate) (*smriti.Checkpoint, error) {
	author, err := smriti.CommitAuthor(in.AuthorType, in.AuthorAgent, false, a.backgroundModel())
	if err != nil {
		return nil, err
	}
	in.AuthorType, in.AuthorAgent = author.Type, author.Agent
	return a.Store.CreateCheckpoint(ctx, in)
}

// Merge previews or commits a merge (see MergeCheckpoints).
func (a *App) Merge(ctx context.Context, in MergeRequest) (*MergeOutcome, error) {
	return MergeCheckpoints(ctx, a.Store, in)
}

// Send sends a message in a session and stores the exchange, after the LLM
// gate admits it.
func (a *App) Send(ctx context.Context, req SendRequest) (*SendResult, error) {
	if err := a.gate.Admit(ctx, req.SessionID); err != nil {
		return nil, err
	}
	return a.Chat.Send(ctx, req)
}

// Stream is Send with the reply streamed (see Chat.Stream).
func (a *App) Stream(ctx context.Context, req SendRequest, onMeta func(*Prepared) error, onDelta func(string) error) (*SendResult, error) {
	if err := a.gate.Admit(ctx, req.SessionID); err != nil {
		return nil, err
	}
	return a.Chat.Stream(ctx, req, onMeta, onDelta)
}

// Preview is what a send would give the model, without calling it (no
// gate: nothing reaches a provider). With no session and a space it is
// what a new session of the space would start from; nothing is stored.
func (a *App) Preview(ctx context.Context, space *smriti.ID, req SendRequest) (*Prepared, error) {
	if req.SessionID == smriti.NilID && space != nil {
		if _, err := a.Store.Space(ctx, *space); err != nil {
			return nil, err
		}
		provider, model := ChooseModel(a.Providers, req.Provider, req.Model)
		fresh := &smriti.Session{SpaceID: space, BranchName: smriti.MainBranch, ActiveProvider: provider, ActiveModel: model,
			BranchDisposition: smriti.DispositionActive, LastSeq: -1, Metadata: map[string]any{}}
		return a.Chat.PrepareFor(ctx, fresh, req)
	}
	return a.Chat.Prepare(ctx, req)
}

// Draft proposes a checkpoint from a session's recent turns.
func (a *App) Draft(ctx context.Context, req intelligence.DraftRequest) (*intelligence.DraftResult, error) {
	if err := a.gate.Admit(ctx, req.SessionID); err != nil {
		return nil, err
	}
	return a.Intelligence.Draft(ctx, req)
}

// ExtractRequest asks for a checkpoint extracted from a document.
type ExtractRequest struct {
	// Space is the space the checkpoint is for, when known: the gate checks
	// the caller's role in it before any provider is called.
	Space *smriti.ID
	// Content is the document; nil is EUNPROCESSABLE ("content is
	// required"), answered after the gate like every other refusal of an
	// LLM-backed call.
	Content *string
	UseMock bool
	// Onto is the checkpoint the document changes (nil: every item new).
	Onto *smriti.ID
}

// Extract proposes a checkpoint from a document, as changes onto req.Onto.
func (a *App) Extract(ctx context.Context, req ExtractRequest) (*intelligence.DraftResult, error) {
	var ids []smriti.ID
	if req.Space != nil {
		ids = append(ids, *req.Space)
	}
	if req.Onto != nil {
		ids = append(ids, *req.Onto)
	}
	if err := a.gate.Admit(ctx, ids...); err != nil {
		return nil, err
	}
	if req.Content == nil {
		return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "content is required")
	}
	return a.Intelligence.Extract(ctx, intelligence.ExtractRequest{Markdown: *req.Content, UseMock: req.UseMock, Onto: req.Onto})
}

// Review checks a checkpoint for contradictions and suspicious content.
func (a *App) Review(ctx context.Context, id smriti.ID) (*intelligence.Review, error) {
	if err := a.gate.Admit(ctx, id); err != nil {
		return nil, err
	}
	return a.Intelligence.Review(ctx, id)
}

// Title names a session from its first exchange.
func (a *App) Title(ctx context.Context, session smriti.ID) (*smriti.Session, error) {
	if err := a.gate.Admit(ctx, session); err != nil {
		return nil, err
	}
	return a.Intelligence.Title(ctx, session)
}

// ImportTranscripts imports chat exports into a space; drafting a
// checkpoint for each conversation is LLM-backed and passes the gate.
func (a *App) ImportTranscripts(ctx context.Context, body io.Reader, in portability.TranscriptImport) ([]portability.ImportedConversation, error) {
	if in.Draft {
		if err := a.gate.Admit(ctx, in.SpaceID); err != nil {
			return nil, err
		}
	}
	return a.Transcripts.Import(ctx, body, in)
}

// ImportAgentTranscript imports a coding agent's transcript into a space.
func (a *App) ImportAgentTranscript(ctx context.Context, body io.Reader, in portability.AgentImport) (*portability.AgentImportResult, error) {
	return portability.ImportAgentTranscript(ctx, a.Store, body, in)
}

// Now is the App's clock.
func (a *App) Now() smriti.Clock { return a.now }
