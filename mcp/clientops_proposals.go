package mcp

import (
	"context"

	"smriti"
	"smriti/app"
	"smriti/proposal"
	"smriti/wire"
)

func (o ClientOps) SaveProposal(ctx context.Context, in app.ProposalSave) (*proposal.Proposal, error) {
	p, err := o.c.SaveProposal(ctx, in.SpaceID, wire.ProposalRequestOf(in.SessionID, in.BaseCheckpointID, in.Source, in.Draft))
	if err != nil {
		return nil, err
	}
	return p.Proposal(), nil
}

func (o ClientOps) ListProposals(ctx context.Context, space smriti.ID, status string) ([]*proposal.Proposal, error) {
	ps, err := o.c.Proposals(ctx, space, status)
	if err != nil {
		return nil, err
	}
	out := make([]*proposal.Proposal, 0, len(ps))
	for i := range ps {
		out = append(out, ps[i].Proposal())
	}
	return out, nil
}

func (o ClientOps) ShowProposal(ctx context.Context, space, id smriti.ID) (*proposal.Proposal, error) {
	p, err := o.c.Proposal(ctx, space, id)
	if err != nil {
		return nil, err
	}
	return p.Proposal(), nil
}

func (o ClientOps) EditProposal(ctx context.Context, space, id smriti.ID, e proposal.Edit) (*proposal.Proposal, error) {
	p, err := o.c.EditProposal(ctx, space, id, wire.ProposalEditRequest{Message: e.Message, Objective: e.Objective, Summary: e.Summary,
		Decisions: e.Decisions, Assumptions: e.Assumptions, Tasks: e.Tasks, OpenQuestions: e.OpenQuestions, Entities: e.Entities})
	if err != nil {
		return nil, err
	}
	return p.Proposal(), nil
}

func (o ClientOps) AcceptProposal(ctx context.Context, space, id smriti.ID, res []smriti.MergeResolution) (*proposal.Proposal, *smriti.Checkpoint, error) {
	out, err := o.c.AcceptProposal(ctx, space, id, res)
	if err != nil {
		return nil, nil, err
	}
	return out.Proposal.Proposal(), out.Checkpoint.Checkpoint(), nil
}

func (o ClientOps) RejectProposal(ctx context.Context, space, id smriti.ID) (*proposal.Proposal, error) {
	p, err := o.c.RejectProposal(ctx, space, id)
	if err != nil {
		return nil, err
	}
	return p.Proposal(), nil
}

func (o ClientOps) ResolveProposal(ctx context.Context, space smriti.ID, ref string) (*proposal.Proposal, error) {
	p, err := o.c.ResolveProposal(ctx, space, ref)
	if err != nil {
		return nil, err
	}
	return p.Proposal(), nil
}
