package mcp

import (
	"context"
	"smriti/app"
	"smriti/coord"
	"smriti/intelligence"

	"smriti"
)

// Services implements Ops in-process, over the use-case layer the HTTP
// handlers call too.
type Services struct {
	App *app.App
}

var _ Ops = (*Services)(nil)

// drainPages reads every page of a listing: fetch gets the cursor ("" for
// the first page) and returns a page and the next cursor ("" after the
// last).
func drainPages[T any](fetch func(after string) ([]T, string, error)) ([]T, error) {
	var all []T
	after := ""
	for {
		got, next, err := fetch(after)
		if err != nil {
			return nil, err
		}
		all = append(all, got...)
		if next == "" {
			return all, nil
		}
		after = next
	}
}

func (s *Services) Spaces(ctx context.Context) ([]*smriti.Space, error) {
	return drainPages(func(after string) ([]*smriti.Space, string, error) {
		return s.App.Spaces(ctx, smriti.Page{After: after})
	})
}

func (s *Services) Space(ctx context.Context, id smriti.ID) (*smriti.Space, error) {
	return s.App.Space(ctx, id)
}

func (s *Services) CreateSpace(ctx context.Context, in smriti.SpaceCreate) (*smriti.Space, error) {
	return s.App.CreateSpace(ctx, in)
}

func (s *Services) DeleteSpace(ctx context.Context, id smriti.ID) error {
	return s.App.DeleteSpace(ctx, id)
}

func (s *Services) Checkpoint(ctx context.Context, id smriti.ID) (*smriti.Checkpoint, error) {
	return s.App.Checkpoint(ctx, id)
}

func (s *Services) ResolveCheckpoint(ctx context.Context, ref string) (*smriti.Checkpoint, error) {
	return s.App.ResolveCheckpoint(ctx, nil, ref)
}

func (s *Services) Checkpoints(ctx context.Context, space smriti.ID, branch string) ([]*smriti.Checkpoint, error) {
	q := smriti.CheckpointQuery{}
	if branch != "" {
		q.Branch = &branch
	}
	return drainPages(func(after string) ([]*smriti.Checkpoint, string, error) {
		q.After = after
		return s.App.Checkpoints(ctx, space, q)
	})
}

func (s *Services) CommitBase(ctx context.Context, space, session smriti.ID) (*smriti.ID, error) {
	return s.App.CommitBase(ctx, space, session)
}

func (s *Services) CommitCheckpoint(ctx context.Context, in smriti.CheckpointCommit) (*smriti.Checkpoint, error) {
	return s.App.CommitCheckpoint(ctx, in)
}

func (s *Services) DeleteCheckpoint(ctx context.Context, id smriti.ID, cascade bool) error {
	return s.App.DeleteCheckpoint(ctx, id, cascade)
}

func (s *Services) AddNote(ctx context.Context, id smriti.ID, in smriti.NoteCreate) (*smriti.Note, error) {
	return s.App.AddNote(ctx, id, in)
}

func (s *Services) Verify(ctx context.Context, id smriti.ID) (*smriti.Verification, error) {
	return s.App.VerifyCheckpoint(ctx, id)
}

func (s *Services) Extract(ctx context.Context, space smriti.ID, markdown string, onto *smriti.ID) (*intelligence.DraftResult, error) {
	return s.App.Extract(ctx, app.ExtractRequest{Space: &space, Content: &markdown, Onto: onto})
}

func (s *Services) Review(ctx context.Context, id smriti.ID) (*intelligence.Review, error) {
	return s.App.Review(ctx, id)
}

func (s *Services) CommonAncestor(ctx context.Context, a, b smriti.ID) (*smriti.Checkpoint, error) {
	return s.App.CommonAncestor(ctx, a, b)
}

func (s *Services) Fork(ctx context.Context, in smriti.ForkCreate) (*smriti.Session, error) {
	return s.App.ForkSession(ctx, in)
}

func (s *Services) SetBranchDisposition(ctx context.Context, space smriti.ID, branch, disposition string) (int, error) {
	if _, err := s.App.Space(ctx, space); err != nil {
		return 0, err
	}
	return s.App.SetBranchDisposition(ctx, space, branch, disposition)
}

func (s *Services) Merge(ctx context.Context, in app.MergeRequest) (*app.MergeOutcome, error) {
	return s.App.Merge(ctx, in)
}

func (s *Services) PreviewContext(ctx context.Context, space *smriti.ID, session smriti.ID, message string) (*ContextPreview, error) {
	p, err := s.App.Preview(ctx, space, app.SendRequest{SessionID: session, Message: message})
	if err != nil {
		return nil, err
	}
	return &ContextPreview{Mode: string(p.Context.Mode), Provider: p.Provider.Name(), Model: p.Model,
		Checkpoints: p.Context.Checkpoints, TurnCount: len(p.Context.Turns), DroppedTurns: p.Context.Dropped,
		TokenEstimate: p.Context.Tokens, Messages: p.Context.Messages}, nil
}

func (s *Services) StateAsOf(ctx context.Context, space smriti.ID, ref, branch string) (*app.AsOfState, error) {
	return s.App.StateAsOf(ctx, space, ref, branch)
}

func (s *Services) State(ctx context.Context, space smriti.ID, q coord.StateQuery) (*coord.StateBrief, error) {
	return s.App.Coordinator.SpaceState(ctx, space, q)
}

func (s *Services) CreateClaim(ctx context.Context, in coord.ClaimCreate) (*coord.Claim, []*coord.Claim, error) {
	return s.App.CreateClaim(ctx, in)
}

func (s *Services) FinishClaim(ctx context.Context, id smriti.ID, status string) (*coord.Claim, error) {
	return s.App.FinishClaim(ctx, id, status)
}

func (s *Services) Claims(ctx context.Context, space smriti.ID, includeExpired bool) ([]*coord.Claim, error) {
	q := coord.ClaimQuery{IncludeExpired: includeExpired}
	return drainPages(func(after string) ([]*coord.Claim, string, error) {
		q.After = after
		return s.App.Claims(ctx, space, q)
	})
}

func (s *Services) Ready(ctx context.Context, space smriti.ID) ([]coord.ReadyTask, error) {
	return s.App.ReadyTasks(ctx, space, coord.ReadyQuery{})
}

func (s *Services) ClaimReady(ctx context.Context, in coord.ClaimCreate) (*coord.Claim, *coord.ReadyTask, error) {
	return s.App.ClaimReady(ctx, in)
}

func (s *Services) Metrics(ctx context.Context, space smriti.ID) (coord.MetricsView, error) {
	m, err := s.App.SpaceMetrics(ctx, space)
	if err != nil {
		return coord.MetricsView{}, err
	}
	return m.View(), nil
}

func (s *Services) OpenWorktree(ctx context.Context, in coord.WorktreeOpen) (*coord.Worktree, error) {
	return s.App.Coordinator.OpenWorktree(ctx, in)
}

func (s *Services) Worktree(ctx context.Context, idOrPrefix string) (*coord.Worktree, error) {
	return s.App.Coordinator.Worktree(ctx, idOrPrefix)
}

func (s *Services) CloseWorktree(ctx context.Context, idOrPrefix string, force bool) (*coord.Worktree, error) {
	return s.App.Coordinator.CloseWorktree(ctx, idOrPrefix, force)
}

func (s *Services) Worktrees(ctx context.Context, space smriti.ID, includeClosed bool) ([]*coord.Worktree, map[smriti.ID]*coord.WorktreeProbe, error) {
	return s.App.Coordinator.Worktrees(ctx, space, includeClosed)
}

func (s *Services) CheckpointItems(ctx context.Context, id smriti.ID) ([]smriti.Item, error) {
	return s.App.CheckpointItems(ctx, id)
}

func (s *Services) ItemHistory(ctx context.Context, space smriti.ID, itemID string) ([]smriti.ItemEvent, error) {
	return s.App.ItemHistory(ctx, space, itemID)
}

func (s *Services) SaveProposal(ctx context.Context, in app.ProposalSave) (*smriti.Proposal, error) {
	return s.App.SaveProposal(ctx, in)
}
func (s *Services) ListProposals(ctx context.Context, space smriti.ID, status string) ([]*smriti.Proposal, error) {
	return s.App.ListProposals(ctx, space, status)
}
func (s *Services) ShowProposal(ctx context.Context, space, id smriti.ID) (*smriti.Proposal, error) {
	return s.App.ShowProposal(ctx, space, id)
}
func (s *Services) EditProposal(ctx context.Context, space, id smriti.ID, e smriti.ProposalEdit) (*smriti.Proposal, error) {
	return s.App.EditProposal(ctx, space, id, e)
}
func (s *Services) AcceptProposal(ctx context.Context, space, id smriti.ID, res []smriti.MergeResolution) (*smriti.Proposal, *smriti.Checkpoint, error) {
	return s.App.AcceptProposal(ctx, space, id, res)
}
func (s *Services) RejectProposal(ctx context.Context, space, id smriti.ID) (*smriti.Proposal, error) {
	return s.App.RejectProposal(ctx, space, id)
}
