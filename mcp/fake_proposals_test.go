package mcp

import (
	"context"

	"smriti"
	"smriti/app"
	"smriti/proposal"
)

// The proposal operations of fakeOps: no fake-based test expects them
// (the proposal tools are tested over a real server).

func (f *fakeOps) SaveProposal(context.Context, app.ProposalSave) (*proposal.Proposal, error) {
	panic("unexpected SaveProposal")
}
func (f *fakeOps) ListProposals(context.Context, smriti.ID, string) ([]*proposal.Proposal, error) {
	panic("unexpected ListProposals")
}
func (f *fakeOps) ShowProposal(context.Context, smriti.ID, smriti.ID) (*proposal.Proposal, error) {
	panic("unexpected ShowProposal")
}
func (f *fakeOps) EditProposal(context.Context, smriti.ID, smriti.ID, proposal.Edit) (*proposal.Proposal, error) {
	panic("unexpected EditProposal")
}
func (f *fakeOps) AcceptProposal(context.Context, smriti.ID, smriti.ID, []smriti.MergeResolution) (*proposal.Proposal, *smriti.Checkpoint, error) {
	panic("unexpected AcceptProposal")
}
func (f *fakeOps) RejectProposal(context.Context, smriti.ID, smriti.ID) (*proposal.Proposal, error) {
	panic("unexpected RejectProposal")
}

func (f *fakeOps) ResolveProposal(context.Context, smriti.ID, string) (*proposal.Proposal, error) {
	panic("unexpected ResolveProposal")
}

// The sync operations of fakeOps: the sync tools are tested over real
// servers too.

func (f *fakeOps) Fetch(context.Context, smriti.ID, string) (*app.FetchResult, error) {
	panic("unexpected Fetch")
}
func (f *fakeOps) Pull(context.Context, app.PullRequest) (*app.PullResult, error) {
	panic("unexpected Pull")
}
func (f *fakeOps) Push(context.Context, smriti.ID, string, string) (*app.PushResult, error) {
	panic("unexpected Push")
}
func (f *fakeOps) PushProposal(context.Context, smriti.ID, string, string) (*app.PushResult, error) {
	panic("unexpected PushProposal")
}
