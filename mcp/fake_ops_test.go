package mcp

import (
	"context"
	"smriti"
	"smriti/app"
	"smriti/coord"
	"smriti/intelligence"
)

// fakeOps is a function-field fake of Ops: each method calls its Fn field,
// and panics when a test did not expect the call.
type fakeOps struct {
	SpacesFn               func(a0 context.Context) ([]*smriti.Space, error)
	SpaceFn                func(a0 context.Context, a1 smriti.ID) (*smriti.Space, error)
	CreateSpaceFn          func(a0 context.Context, a1 smriti.SpaceCreate) (*smriti.Space, error)
	DeleteSpaceFn          func(a0 context.Context, a1 smriti.ID) error
	CheckpointFn           func(a0 context.Context, a1 smriti.ID) (*smriti.Checkpoint, error)
	ResolveCheckpointFn    func(a0 context.Context, a1 string) (*smriti.Checkpoint, error)
	CheckpointsFn          func(a0 context.Context, a1 smriti.ID, a2 string) ([]*smriti.Checkpoint, error)
	CommitBaseFn           func(a0 context.Context, a1 smriti.ID, a2 smriti.ID) (*smriti.ID, error)
	CommitCheckpointFn     func(a0 context.Context, a1 smriti.CheckpointCommit) (*smriti.Checkpoint, error)
	DeleteCheckpointFn     func(a0 context.Context, a1 smriti.ID, a2 bool) error
	AddNoteFn              func(a0 context.Context, a1 smriti.ID, a2 smriti.NoteCreate) (*smriti.Note, error)
	VerifyFn               func(a0 context.Context, a1 smriti.ID) (*smriti.Verification, error)
	ExtractFn              func(a0 context.Context, a1 smriti.ID, a2 string, a3 *smriti.ID) (*intelligence.DraftResult, error)
	ReviewFn               func(a0 context.Context, a1 smriti.ID) (*intelligence.Review, error)
	CheckpointItemsFn      func(a0 context.Context, a1 smriti.ID) ([]smriti.Item, error)
	ItemFn                 func(a0 context.Context, a1 smriti.ID, a2 string) (*smriti.ItemAt, error)
	CompareFn              func(a0 context.Context, a1 smriti.ID, a2 smriti.ID) (*app.Comparison, error)
	ForkFn                 func(a0 context.Context, a1 smriti.ForkCreate) (*smriti.Session, error)
	SetBranchDispositionFn func(a0 context.Context, a1 smriti.ID, a2 string, a3 string) (int, error)
	MergeFn                func(a0 context.Context, a1 app.MergeRequest) (*app.MergeOutcome, error)
	StateFn                func(a0 context.Context, a1 smriti.ID, a2 coord.StateQuery) (*coord.StateBrief, error)
	StateAsOfFn            func(a0 context.Context, a1 smriti.ID, a2, a3 string) (*app.AsOfState, error)
	CreateClaimFn          func(a0 context.Context, a1 coord.ClaimCreate) (*coord.Claim, []*coord.Claim, error)
	FinishClaimFn          func(a0 context.Context, a1 smriti.ID, a2 string) (*coord.Claim, error)
	ClaimsFn               func(a0 context.Context, a1 smriti.ID, a2 bool) ([]*coord.Claim, error)
	MetricsFn              func(a0 context.Context, a1 smriti.ID) (coord.MetricsView, error)
	ReadyFn                func(a0 context.Context, a1 smriti.ID) ([]coord.ReadyTask, error)
	ClaimReadyFn           func(a0 context.Context, a1 coord.ClaimCreate) (*coord.Claim, *coord.ReadyTask, error)
	OpenWorktreeFn         func(a0 context.Context, a1 coord.WorktreeOpen) (*coord.Worktree, error)
	WorktreesFn            func(a0 context.Context, a1 smriti.ID, a2 bool) ([]*coord.Worktree, map[smriti.ID]*coord.WorktreeProbe, error)
	WorktreeFn             func(a0 context.Context, a1 string) (*coord.Worktree, error)
	CloseWorktreeFn        func(a0 context.Context, a1 string, a2 bool) (*coord.Worktree, error)
	PreviewContextFn       func(a0 context.Context, a1 *smriti.ID, a2 app.SendRequest) (*ContextPreview, error)
}

var _ Ops = (*fakeOps)(nil)

func (f *fakeOps) AllSpaces(a0 context.Context) ([]*smriti.Space, error) {
	if f.SpacesFn == nil {
		panic("fakeOps.Spaces called unexpectedly")
	}
	return f.SpacesFn(a0)
}

func (f *fakeOps) Space(a0 context.Context, a1 smriti.ID) (*smriti.Space, error) {
	if f.SpaceFn == nil {
		panic("fakeOps.Space called unexpectedly")
	}
	return f.SpaceFn(a0, a1)
}

func (f *fakeOps) CreateSpace(a0 context.Context, a1 smriti.SpaceCreate) (*smriti.Space, error) {
	if f.CreateSpaceFn == nil {
		panic("fakeOps.CreateSpace called unexpectedly")
	}
	return f.CreateSpaceFn(a0, a1)
}

func (f *fakeOps) DeleteSpace(a0 context.Context, a1 smriti.ID) error {
	if f.DeleteSpaceFn == nil {
		panic("fakeOps.DeleteSpace called unexpectedly")
	}
	return f.DeleteSpaceFn(a0, a1)
}

func (f *fakeOps) Checkpoint(a0 context.Context, a1 smriti.ID) (*smriti.Checkpoint, error) {
	if f.CheckpointFn == nil {
		panic("fakeOps.Checkpoint called unexpectedly")
	}
	return f.CheckpointFn(a0, a1)
}

func (f *fakeOps) ResolveCheckpoint(a0 context.Context, _ *smriti.ID, a1 string) (*smriti.Checkpoint, error) {
	if f.ResolveCheckpointFn == nil {
		panic("fakeOps.ResolveCheckpoint called unexpectedly")
	}
	return f.ResolveCheckpointFn(a0, a1)
}

func (f *fakeOps) AllCheckpoints(a0 context.Context, a1 smriti.ID, a2 string) ([]*smriti.Checkpoint, error) {
	if f.CheckpointsFn == nil {
		panic("fakeOps.Checkpoints called unexpectedly")
	}
	return f.CheckpointsFn(a0, a1, a2)
}

// Save extracts through ExtractFn (onto CommitBaseFn's base unless one is
// named), takes the draft by the App's rule, and commits through
// CommitCheckpointFn or proposes through SaveProposalFn.
func (f *fakeOps) Save(ctx context.Context, in app.SaveRequest) (*app.Saved, error) {
	out := &app.Saved{}
	if in.Document != nil {
		onto := in.BaseCheckpointID
		if onto == nil {
			var err error
			if onto, err = f.CommitBase(ctx, in.SpaceID, in.SessionID); err != nil {
				return nil, err
			}
		}
		res, err := f.Extract(ctx, app.ExtractRequest{Space: &in.SpaceID, Content: in.Document, Onto: onto})
		if err != nil {
			return nil, err
		}
		in.TakeDraft(res, onto)
		out.Extracted = res
	}
	out.Request = in.CheckpointCommit
	var err error
	switch {
	case in.DryRun:
	case in.Propose:
		out.Proposal, err = f.SaveProposal(ctx, in.Proposal())
	default:
		if f.CommitCheckpointFn == nil {
			panic("fakeOps.Save committed unexpectedly")
		}
		out.Checkpoint, err = f.CommitCheckpointFn(ctx, in.CheckpointCommit)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (f *fakeOps) DeleteCheckpoint(a0 context.Context, a1 smriti.ID, a2 bool) error {
	if f.DeleteCheckpointFn == nil {
		panic("fakeOps.DeleteCheckpoint called unexpectedly")
	}
	return f.DeleteCheckpointFn(a0, a1, a2)
}

func (f *fakeOps) AddNote(a0 context.Context, a1 smriti.ID, a2 smriti.NoteCreate) (*smriti.Note, error) {
	if f.AddNoteFn == nil {
		panic("fakeOps.AddNote called unexpectedly")
	}
	return f.AddNoteFn(a0, a1, a2)
}

func (f *fakeOps) VerifyCheckpoint(a0 context.Context, a1 smriti.ID) (*smriti.Verification, error) {
	if f.VerifyFn == nil {
		panic("fakeOps.Verify called unexpectedly")
	}
	return f.VerifyFn(a0, a1)
}

func (f *fakeOps) Extract(a0 context.Context, req app.ExtractRequest) (*intelligence.DraftResult, error) {
	if f.ExtractFn == nil {
		panic("fakeOps.Extract called unexpectedly")
	}
	return f.ExtractFn(a0, *req.Space, *req.Content, req.Onto)
}

func (f *fakeOps) Review(a0 context.Context, a1 smriti.ID) (*intelligence.Review, error) {
	if f.ReviewFn == nil {
		panic("fakeOps.Review called unexpectedly")
	}
	return f.ReviewFn(a0, a1)
}

func (f *fakeOps) CheckpointItems(a0 context.Context, a1 smriti.ID) ([]smriti.Item, error) {
	if f.CheckpointItemsFn == nil {
		panic("fakeOps.CheckpointItems called unexpectedly")
	}
	return f.CheckpointItemsFn(a0, a1)
}

func (f *fakeOps) Item(a0 context.Context, a1 smriti.ID, a2 string) (*smriti.ItemAt, error) {
	if f.ItemFn == nil {
		panic("fakeOps.Item called unexpectedly")
	}
	return f.ItemFn(a0, a1, a2)
}

func (f *fakeOps) Compare(a0 context.Context, a1 smriti.ID, a2 smriti.ID) (*app.Comparison, error) {
	if f.CompareFn == nil {
		panic("fakeOps.Compare called unexpectedly")
	}
	return f.CompareFn(a0, a1, a2)
}

func (f *fakeOps) ForkSession(a0 context.Context, a1 smriti.ForkCreate) (*smriti.Session, error) {
	if f.ForkFn == nil {
		panic("fakeOps.Fork called unexpectedly")
	}
	return f.ForkFn(a0, a1)
}

func (f *fakeOps) SetBranchDisposition(a0 context.Context, a1 smriti.ID, a2 string, a3 string) (int, error) {
	if f.SetBranchDispositionFn == nil {
		panic("fakeOps.SetBranchDisposition called unexpectedly")
	}
	return f.SetBranchDispositionFn(a0, a1, a2, a3)
}

func (f *fakeOps) Merge(a0 context.Context, a1 app.MergeRequest) (*app.MergeOutcome, error) {
	if f.MergeFn == nil {
		panic("fakeOps.Merge called unexpectedly")
	}
	return f.MergeFn(a0, a1)
}

func (f *fakeOps) SpaceState(a0 context.Context, a1 smriti.ID, a2 coord.StateQuery) (*coord.StateBrief, error) {
	if f.StateFn == nil {
		panic("fakeOps.State called unexpectedly")
	}
	return f.StateFn(a0, a1, a2)
}

func (f *fakeOps) StateAsOf(a0 context.Context, a1 smriti.ID, a2, a3 string) (*app.AsOfState, error) {
	if f.StateAsOfFn == nil {
		panic("fakeOps.StateAsOf called unexpectedly")
	}
	return f.StateAsOfFn(a0, a1, a2, a3)
}

func (f *fakeOps) CreateClaim(a0 context.Context, a1 coord.ClaimCreate) (*coord.Claim, []*coord.Claim, error) {
	if f.CreateClaimFn == nil {
		panic("fakeOps.CreateClaim called unexpectedly")
	}
	return f.CreateClaimFn(a0, a1)
}

func (f *fakeOps) FinishClaim(a0 context.Context, a1 smriti.ID, a2 string) (*coord.Claim, error) {
	if f.FinishClaimFn == nil {
		panic("fakeOps.FinishClaim called unexpectedly")
	}
	return f.FinishClaimFn(a0, a1, a2)
}

func (f *fakeOps) AllClaims(a0 context.Context, a1 smriti.ID, a2 bool) ([]*coord.Claim, error) {
	if f.ClaimsFn == nil {
		panic("fakeOps.Claims called unexpectedly")
	}
	return f.ClaimsFn(a0, a1, a2)
}

func (f *fakeOps) SpaceMetricsView(a0 context.Context, a1 smriti.ID) (coord.MetricsView, error) {
	if f.MetricsFn == nil {
		panic("fakeOps.Metrics called unexpectedly")
	}
	return f.MetricsFn(a0, a1)
}

func (f *fakeOps) ReadyTasks(a0 context.Context, a1 smriti.ID, _ coord.ReadyQuery) ([]coord.ReadyTask, error) {
	if f.ReadyFn == nil {
		panic("fakeOps.Ready called unexpectedly")
	}
	return f.ReadyFn(a0, a1)
}

func (f *fakeOps) ClaimReady(a0 context.Context, a1 coord.ClaimCreate) (*coord.Claim, *coord.ReadyTask, error) {
	if f.ClaimReadyFn == nil {
		panic("fakeOps.ClaimReady called unexpectedly")
	}
	return f.ClaimReadyFn(a0, a1)
}

func (f *fakeOps) OpenWorktree(a0 context.Context, a1 coord.WorktreeOpen) (*coord.Worktree, error) {
	if f.OpenWorktreeFn == nil {
		panic("fakeOps.OpenWorktree called unexpectedly")
	}
	return f.OpenWorktreeFn(a0, a1)
}

func (f *fakeOps) Worktrees(a0 context.Context, a1 smriti.ID, a2 bool) ([]*coord.Worktree, map[smriti.ID]*coord.WorktreeProbe, error) {
	if f.WorktreesFn == nil {
		panic("fakeOps.Worktrees called unexpectedly")
	}
	return f.WorktreesFn(a0, a1, a2)
}

func (f *fakeOps) Worktree(a0 context.Context, a1 string) (*coord.Worktree, error) {
	if f.WorktreeFn == nil {
		panic("fakeOps.Worktree called unexpectedly")
	}
	return f.WorktreeFn(a0, a1)
}

func (f *fakeOps) CloseWorktree(a0 context.Context, a1 string, a2 bool) (*coord.Worktree, error) {
	if f.CloseWorktreeFn == nil {
		panic("fakeOps.CloseWorktree called unexpectedly")
	}
	return f.CloseWorktreeFn(a0, a1, a2)
}

func (f *fakeOps) PreviewContext(a0 context.Context, a1 *smriti.ID, a2 app.SendRequest) (*ContextPreview, error) {
	if f.PreviewContextFn == nil {
		panic("fakeOps.PreviewContext called unexpectedly")
	}
	return f.PreviewContextFn(a0, a1, a2)
}

func (f *fakeOps) CommitBase(a0 context.Context, a1 smriti.ID, a2 smriti.ID) (*smriti.ID, error) {
	if f.CommitBaseFn == nil {
		panic("fakeOps.CommitBase called unexpectedly")
	}
	return f.CommitBaseFn(a0, a1, a2)
}

func (f *fakeOps) ResolveItem(_ context.Context, _ smriti.ID, ref string) (string, error) {
	return ref, nil
}
