package app

import (
	"context"

	"smriti"
	"smriti/coord"
	"smriti/proposal"
)

// ProposalSave is a draft to keep for later as a proposal.
type ProposalSave struct {
	SpaceID smriti.ID
	// SessionID is the session the checkpoint will be written from (nil:
	// onto main, with no session).
	SessionID *smriti.ID
	// BaseCheckpointID is what the draft changes; nil takes the checkpoint
	// a commit from the session would build on now (App.CommitBase).
	BaseCheckpointID *smriti.ID
	Source           string
	Draft            smriti.ProposalDraft
}

// SaveProposal keeps a draft on the server as a pending proposal: on the
// session's branch, against the base it names or the one a commit would
// build on now. A hook's draft of a session holds everything since its
// base, so it replaces the session's pending hook drafts: they are marked
// superseded (kept, out of the brief), and a reviewer sees one proposal per
// line of work. ENOTFOUND for a session or base of another space,
// EUNPROCESSABLE for content a commit would refuse.
func (a *App) SaveProposal(ctx context.Context, in ProposalSave) (*proposal.Proposal, error) {
	session := smriti.NilID
	if in.SessionID != nil {
		session = *in.SessionID
	}
	branch := smriti.MainBranch
	if session != smriti.NilID {
		se, err := a.store.Session(ctx, session)
		if err != nil {
			return nil, err
		}
		if !se.InSpace(in.SpaceID) {
			return nil, smriti.Errorf(smriti.ENOTFOUND, "session_id: no such session in this space")
		}
		branch = se.CommitBranch()
	}
	base := in.BaseCheckpointID
	if base == nil {
		var err error
		if base, err = a.CommitBase(ctx, in.SpaceID, session); err != nil {
			return nil, err
		}
	}
	// A proposal is stored state too: its texts are redacted as a commit's.
	rs := a.redactor(ctx, in.SpaceID)
	rs.content(&in.Draft.Content)
	rs.items(in.Draft.Items)
	p := &proposal.Proposal{SpaceID: in.SpaceID, SessionID: in.SessionID, BaseCheckpointID: base, BranchName: branch, Source: in.Source, Draft: in.Draft}
	if in.Source == proposal.FromHook && session != smriti.NilID {
		p, _, err := a.store.ReplaceProposals(ctx, p)
		return p, err
	}
	return a.store.CreateProposal(ctx, p)
}

// ShowProposal returns a proposal of space (ENOTFOUND when missing,
// unseen or of another space).
func (a *App) ShowProposal(ctx context.Context, space, id smriti.ID) (*proposal.Proposal, error) {
	p, err := a.store.Proposal(ctx, id)
	if err != nil {
		return nil, err
	}
	if p.SpaceID != space {
		return nil, smriti.Errorf(smriti.ENOTFOUND, "Proposal not found")
	}
	return p, nil
}

// ListProposals lists a space's proposals, newest first, of one status
// when status is set (EUNPROCESSABLE for another word).
func (a *App) ListProposals(ctx context.Context, space smriti.ID, status string) ([]*proposal.Proposal, error) {
	return a.store.Proposals(ctx, space, status)
}

// EditProposal changes a pending proposal of space (ECONFLICT once it is
// accepted or rejected; EUNPROCESSABLE for content a commit would refuse).
func (a *App) EditProposal(ctx context.Context, space, id smriti.ID, e proposal.Edit) (*proposal.Proposal, error) {
	p, err := a.ShowProposal(ctx, space, id)
	if err != nil {
		return nil, err
	}
	if p.Status != proposal.Pending {
		return nil, smriti.Errorf(smriti.ECONFLICT, "Proposal %s is %s; only a pending proposal can be edited", id, p.Status)
	}
	d := p.Draft
	d.Content = e.Apply(d.Content)
	rs := a.redactor(ctx, space)
	rs.content(&d.Content)
	return a.store.UpdateProposalDraft(ctx, id, d)
}

// RejectProposal marks a pending proposal rejected (ECONFLICT when it was
// decided already).
func (a *App) RejectProposal(ctx context.Context, space, id smriti.ID) (*proposal.Proposal, error) {
	if _, err := a.ShowProposal(ctx, space, id); err != nil {
		return nil, err
	}
	return a.store.SetProposalStatus(ctx, id, proposal.Pending, proposal.Rejected, nil)
}

// AcceptProposal commits a pending proposal as Save does, on its branch
// with its base: a head that moved since is rebased onto by item id, or the
// answer is the ECONFLICT of a *smriti.CommitConflict (which resolutions
// settle on a second accept) and the proposal stays pending. Taking the
// proposal, committing it and recording the checkpoint on it are one
// transaction: a failure anywhere leaves the proposal pending and nothing
// committed, and two accepts never commit twice (the second is ECONFLICT).
func (a *App) AcceptProposal(ctx context.Context, space, id smriti.ID, resolutions []smriti.MergeResolution) (*proposal.Proposal, *smriti.Checkpoint, error) {
	if _, err := a.ShowProposal(ctx, space, id); err != nil {
		return nil, nil, err
	}
	var p *proposal.Proposal
	var cp *smriti.Checkpoint
	err := a.store.RunInTx(ctx, func(ctx context.Context) error {
		taken, err := a.store.SetProposalStatus(ctx, id, proposal.Pending, proposal.Accepted, nil)
		if err != nil {
			return err
		}
		d := taken.Draft
		in := smriti.CheckpointCommit{SpaceID: taken.SpaceID, Content: d.Content, AuthorType: d.AuthorType, AuthorAgent: d.AuthorAgent,
			ProjectRoot: d.ProjectRoot, SourceTurns: d.SourceTurns, Items: d.Items, Model: d.Model, Git: d.Git,
			BaseCheckpointID: taken.BaseCheckpointID, Resolutions: resolutions}
		if taken.SessionID != nil {
			in.SessionID = *taken.SessionID
		}
		saved, err := a.Save(ctx, SaveRequest{CheckpointCommit: in})
		if err != nil {
			return err
		}
		cp = saved.Checkpoint
		p, err = a.store.SetProposalStatus(ctx, id, proposal.Accepted, proposal.Accepted, &cp.ID)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return p, cp, nil
}

// attachProposals lists the space's pending proposals in the brief.
func (c *Coordinator) attachProposals(ctx context.Context, b *coord.StateBrief) error {
	if c.Proposals == nil || b.Space == nil {
		return nil
	}
	ps, err := c.Proposals.Proposals(ctx, b.Space.ID, proposal.Pending)
	if err != nil {
		return err
	}
	for _, p := range ps {
		b.Proposals = append(b.Proposals, coord.ProposalWaiting{ID: p.ID, Title: p.Draft.Content.Message, Source: p.Source,
			Branch: p.BranchName, CreatedAt: p.CreatedAt})
	}
	return nil
}
