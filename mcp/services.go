package mcp

import (
	"context"
	"smriti/app"
	"smriti/intelligence"

	"smriti"
)

// Backend is the storage the in-server tools use: the same services the
// HTTP handlers call.
type Backend interface {
	smriti.SpaceService
	smriti.CheckpointService
	smriti.ItemService
	smriti.SessionService
	smriti.LineageService
	smriti.ClaimService
	smriti.ReadyService
	smriti.MetricsService
}

// Services implements Ops by calling the domain services in-process.
type Services struct {
	Store     Backend
	Providers intelligence.Providers
	// Briefs answers the state brief and WorktreeManager opens and closes
	// worktrees (both the server's Coordinator).
	Briefs          smriti.StateService
	WorktreeManager smriti.WorktreeService
	// Chat and Intelligence are the services the HTTP handlers use too,
	// built once by the caller.
	Chat         *app.Chat
	Intelligence *intelligence.Intelligence
}

var _ Ops = (*Services)(nil)

func (s *Services) Spaces(ctx context.Context) ([]*smriti.Space, error) {
	var all []*smriti.Space
	page := smriti.Page{}
	for {
		got, next, err := s.Store.Spaces(ctx, page)
		if err != nil {
			return nil, err
		}
		all = append(all, got...)
		if next == "" {
			return all, nil
		}
		page.After = next
	}
}

func (s *Services) Space(ctx context.Context, id smriti.ID) (*smriti.Space, error) {
	return s.Store.Space(ctx, id)
}

func (s *Services) CreateSpace(ctx context.Context, in smriti.SpaceCreate) (*smriti.Space, error) {
	return s.Store.CreateSpace(ctx, in)
}

func (s *Services) DeleteSpace(ctx context.Context, id smriti.ID) error {
	return s.Store.DeleteSpace(ctx, id)
}

func (s *Services) Checkpoint(ctx context.Context, id smriti.ID) (*smriti.Checkpoint, error) {
	return s.Store.Checkpoint(ctx, id)
}

func (s *Services) Checkpoints(ctx context.Context, space smriti.ID, branch string) ([]*smriti.Checkpoint, error) {
	q := smriti.CheckpointQuery{}
	if branch != "" {
		q.Branch = &branch
	}
	var all []*smriti.Checkpoint
	for {
		got, next, err := s.Store.Checkpoints(ctx, space, q)
		if err != nil {
			return nil, err
		}
		all = append(all, got...)
		if next == "" {
			return all, nil
		}
		q.After = next
	}
}

func (s *Services) CreateSession(ctx context.Context, in smriti.SessionCreate) (*smriti.Session, error) {
	in.Provider, in.Model = app.ChooseModel(s.Providers, in.Provider, in.Model)
	return s.Store.CreateSession(ctx, in)
}

func (s *Services) CommitCheckpoint(ctx context.Context, in smriti.CheckpointCommit) (*smriti.Checkpoint, error) {
	return s.Store.CommitCheckpoint(ctx, in)
}

func (s *Services) DeleteCheckpoint(ctx context.Context, id smriti.ID, cascade bool) error {
	return s.Store.DeleteCheckpoint(ctx, id, cascade)
}

func (s *Services) AddNote(ctx context.Context, id smriti.ID, in smriti.NoteCreate) (*smriti.Note, error) {
	return s.Store.AddNote(ctx, id, in)
}

func (s *Services) Verify(ctx context.Context, id smriti.ID) (*smriti.Verification, error) {
	return s.Store.VerifyCheckpoint(ctx, id)
}

func (s *Services) Extract(ctx context.Context, markdown string, onto *smriti.ID) (*intelligence.DraftResult, error) {
	return s.Intelligence.Extract(ctx, intelligence.ExtractRequest{Markdown: markdown, Onto: onto})
}

func (s *Services) Review(ctx context.Context, id smriti.ID) (*intelligence.Review, error) {
	return s.Intelligence.Review(ctx, id)
}

func (s *Services) CommonAncestor(ctx context.Context, a, b smriti.ID) (*smriti.ID, error) {
	c, err := s.Store.CommonAncestor(ctx, a, b)
	if err != nil || c == nil {
		return nil, err
	}
	return &c.ID, nil
}

func (s *Services) Fork(ctx context.Context, in smriti.ForkCreate) (*smriti.Session, error) {
	in.Provider, in.Model = app.ChooseModel(s.Providers, in.Provider, in.Model)
	return s.Store.ForkSession(ctx, in)
}

func (s *Services) SetBranchDisposition(ctx context.Context, space smriti.ID, branch, disposition string) (int, error) {
	if _, err := s.Store.Space(ctx, space); err != nil {
		return 0, err
	}
	return s.Store.SetBranchDisposition(ctx, space, branch, disposition)
}

func (s *Services) Merge(ctx context.Context, in app.MergeRequest) (*app.MergeOutcome, error) {
	return app.MergeCheckpoints(ctx, s.Store, in)
}

func (s *Services) PreviewContext(ctx context.Context, session smriti.ID, message string) (*ContextPreview, error) {
	p, err := s.Chat.Prepare(ctx, app.SendRequest{SessionID: session, Message: message})
	if err != nil {
		return nil, err
	}
	return &ContextPreview{Mode: string(p.Context.Mode), Provider: p.Provider.Name(), Model: p.Model,
		Checkpoints: p.Context.Checkpoints, TurnCount: len(p.Context.Turns), DroppedTurns: p.Context.Dropped,
		TokenEstimate: p.Context.Tokens, Messages: p.Context.Messages}, nil
}

func (s *Services) State(ctx context.Context, space smriti.ID, q smriti.StateQuery) (*smriti.StateBrief, error) {
	return s.Briefs.SpaceState(ctx, space, q)
}

func (s *Services) CreateClaim(ctx context.Context, in smriti.ClaimCreate) (*smriti.Claim, []*smriti.Claim, error) {
	return s.Store.CreateClaim(ctx, in)
}

func (s *Services) FinishClaim(ctx context.Context, id smriti.ID, status string) (*smriti.Claim, error) {
	return s.Store.FinishClaim(ctx, id, status)
}

func (s *Services) Claims(ctx context.Context, space smriti.ID, includeExpired bool) ([]*smriti.Claim, error) {
	q := smriti.ClaimQuery{IncludeExpired: includeExpired}
	var all []*smriti.Claim
	for {
		got, next, err := s.Store.Claims(ctx, space, q)
		if err != nil {
			return nil, err
		}
		all = append(all, got...)
		if next == "" {
			return all, nil
		}
		q.After = next
	}
}

func (s *Services) Ready(ctx context.Context, space smriti.ID) ([]smriti.ReadyTask, error) {
	return s.Store.ReadyTasks(ctx, space, smriti.ReadyQuery{})
}

func (s *Services) ClaimReady(ctx context.Context, in smriti.ClaimCreate) (*smriti.Claim, *smriti.ReadyTask, error) {
	return s.Store.ClaimReady(ctx, in)
}

func (s *Services) Metrics(ctx context.Context, space smriti.ID) (smriti.MetricsView, error) {
	m, err := s.Store.SpaceMetrics(ctx, space)
	if err != nil {
		return smriti.MetricsView{}, err
	}
	return m.View(), nil
}

func (s *Services) OpenWorktree(ctx context.Context, in smriti.WorktreeOpen) (*smriti.Worktree, error) {
	return s.WorktreeManager.OpenWorktree(ctx, in)
}

func (s *Services) Worktree(ctx context.Context, idOrPrefix string) (*smriti.Worktree, error) {
	return s.WorktreeManager.Worktree(ctx, idOrPrefix)
}

func (s *Services) CloseWorktree(ctx context.Context, idOrPrefix string, force bool) (*smriti.Worktree, error) {
	return s.WorktreeManager.CloseWorktree(ctx, idOrPrefix, force)
}

func (s *Services) Worktrees(ctx context.Context, space smriti.ID, includeClosed bool) ([]*smriti.Worktree, map[smriti.ID]*smriti.WorktreeProbe, error) {
	return s.WorktreeManager.Worktrees(ctx, space, includeClosed)
}

func (s *Services) CheckpointItems(ctx context.Context, id smriti.ID) ([]smriti.Item, error) {
	return s.Store.CheckpointItems(ctx, id)
}

func (s *Services) ItemHistory(ctx context.Context, space smriti.ID, itemID string) ([]smriti.ItemEvent, error) {
	return s.Store.ItemHistory(ctx, space, itemID)
}
