package mcp

import (
	"context"

	"smriti"
	"smriti/app"
	"smriti/remote"
	"smriti/wire"
)

func countsOf(c wire.SyncCounts) remote.Counts {
	return remote.Counts{Checkpoints: c.Checkpoints, Sessions: c.Sessions, Turns: c.Turns, Skipped: c.Skipped}
}

func fetchResultOf(f *wire.FetchOut) *app.FetchResult {
	out := &app.FetchResult{Remote: f.Remote, Staged: countsOf(f.Staged)}
	for _, h := range f.Heads {
		out.Heads = append(out.Heads, remote.Head{Branch: h.Branch, CheckpointID: h.CheckpointID, Hash: h.CommitHash, UpdatedAt: h.UpdatedAt})
	}
	for _, d := range f.Divergence {
		out.Divergence = append(out.Divergence, remote.Divergence{Branch: d.Branch, Remote: d.Remote, Ahead: d.Ahead, Behind: d.Behind, FetchedAt: d.FetchedAt})
	}
	return out
}

func (o ClientOps) Fetch(ctx context.Context, space smriti.ID, name string) (*app.FetchResult, error) {
	f, err := o.c.Fetch(ctx, space, name)
	if err != nil {
		return nil, err
	}
	return fetchResultOf(f), nil
}

func (o ClientOps) Pull(ctx context.Context, in app.PullRequest) (*app.PullResult, error) {
	p, err := o.c.Pull(ctx, in.SpaceID, in.Remote, wire.PullRequest{Branch: in.Branch, OnConflict: string(in.Policy), NoFetch: in.NoFetch})
	if err != nil {
		return nil, err
	}
	out := &app.PullResult{Outcome: p.Outcome, Conflicts: p.Conflicts, Applied: countsOf(p.Applied)}
	if p.Fetch != nil {
		out.Fetch = fetchResultOf(p.Fetch)
	}
	if p.Head != nil {
		out.Head = p.Head.Checkpoint()
	}
	if p.Merge != nil {
		out.Merge = p.Merge.Checkpoint()
	}
	if p.Proposal != nil {
		out.Proposal = p.Proposal.Proposal()
	}
	return out, nil
}

func (o ClientOps) Push(ctx context.Context, space smriti.ID, name, branch string) (*app.PushResult, error) {
	return o.push(ctx, space, name, branch, false)
}

func (o ClientOps) PushProposal(ctx context.Context, space smriti.ID, name, branch string) (*app.PushResult, error) {
	return o.push(ctx, space, name, branch, true)
}

func (o ClientOps) push(ctx context.Context, space smriti.ID, name, branch string, propose bool) (*app.PushResult, error) {
	p, err := o.c.Push(ctx, space, name, wire.PushRequest{Branch: branch, Propose: propose})
	if err != nil {
		return nil, err
	}
	return &app.PushResult{Outcome: p.Outcome, Branch: p.Branch, OldHead: p.OldHead, NewHead: p.NewHead, Stored: countsOf(p.Stored), Proposal: p.ProposalID}, nil
}
