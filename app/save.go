package app

import (
	"context"
	"strings"

	"smriti"
	"smriti/intelligence"
	"smriti/proposal"
)

// SaveRequest is a checkpoint to save. Its CheckpointCommit is the content
// and where it goes; Document, when set, replaces the content with what
// the background model extracts from it.
type SaveRequest struct {
	smriti.CheckpointCommit
	// Document is markdown to extract the content from (LLM-backed, through
	// the gate), as changes onto the base: the one named, else the
	// checkpoint the save builds on now (NextBase).
	Document *string
	UseMock  bool
	// Propose keeps the content as a pending proposal, with
	// ProposalSource as its source, instead of committing it.
	Propose        bool
	ProposalSource string
	// DryRun settles everything and saves nothing: Saved.Request is what
	// would be written.
	DryRun bool

	// drafted is a draft made here of the session's turns (an import's),
	// whose content, items, model and base the save takes.
	drafted *intelligence.DraftResult
}

// Saved is what Save did.
type Saved struct {
	// Request is the write as settled: the content (extracted, titled and
	// redacted), its base, items, model and author.
	Request smriti.CheckpointCommit
	// Extracted is the extraction's result when the request had a Document.
	Extracted *intelligence.DraftResult
	// Checkpoint is the checkpoint committed (nil for a proposal or a dry
	// run); Proposal the proposal kept (nil otherwise).
	Checkpoint *smriti.Checkpoint
	Proposal   *proposal.Proposal
	// Redactions are the secrets replaced in the content before it was
	// stored.
	Redactions []smriti.Redaction
}

// Save is the one way a checkpoint is saved, from every entry point:
// it extracts the content when given a document (onto the base the save
// builds on, decided once), titles untitled drafted content, settles the
// author (smriti.CommitAuthor: drafted content is the drafting model's),
// redacts secrets, and commits — or keeps a proposal, or with DryRun
// returns the settled request and saves nothing. Errors are the commit's
// (ECONFLICT with a *smriti.CommitConflict when the head moved and the
// rebase conflicts; ENOTFOUND for a session of another space), the
// extraction's, or the gate's.
func (a *App) Save(ctx context.Context, in SaveRequest) (*Saved, error) {
	out := &Saved{}
	if in.Document != nil {
		res, err := a.extractFor(ctx, &in)
		if err != nil {
			return nil, err
		}
		out.Extracted = res
	}
	if d := in.drafted; d != nil {
		in.TakeDraft(d, in.BaseCheckpointID)
	}
	if in.Propose {
		// A proposal is settled when it is accepted (AcceptProposal saves it).
		p, err := a.SaveProposal(ctx, in.Proposal())
		if err != nil {
			return nil, err
		}
		out.Request, out.Proposal = in.CheckpointCommit, p
		return out, nil
	}
	drafter := a.backgroundModel()
	if in.drafted != nil && in.drafted.Model != "" {
		drafter = in.drafted.Model
	}
	rs, err := a.settleWrite(ctx, in.SpaceID, &in.AuthorType, &in.AuthorAgent, in.SourceTurns != nil, drafter, &in.Content, in.Items)
	if err != nil {
		return nil, err
	}
	out.Request, out.Redactions = in.CheckpointCommit, rs.found
	if in.DryRun {
		return out, nil
	}
	if out.Checkpoint, err = a.store.CommitCheckpoint(ctx, in.CheckpointCommit); err != nil {
		return nil, err
	}
	out.Checkpoint.Redactions = rs.found
	return out, nil
}

// settleWrite settles the author of a write to space by
// smriti.CommitAuthor (drafted content is drafter's) and redacts its
// content and items in place (keeping what the space's allowlist keeps);
// the redactions it returns hold what it replaced, for the write's other
// fields to add to.
func (a *App) settleWrite(ctx context.Context, space smriti.ID, authorType *string, authorAgent **string, drafted bool, drafter string, c *smriti.Content, items []smriti.Item) (redactions, error) {
	author, err := smriti.CommitAuthor(*authorType, *authorAgent, drafted, drafter)
	if err != nil {
		return redactions{}, err
	}
	*authorType, *authorAgent = author.Type, author.Agent
	rs := a.redactor(ctx, space)
	rs.content(c)
	rs.items(items)
	return rs, nil
}

// extractFor extracts in.Document into in's content, as changes onto the
// base the save builds on, which it records as in's base.
func (a *App) extractFor(ctx context.Context, in *SaveRequest) (*intelligence.DraftResult, error) {
	onto := in.BaseCheckpointID
	if onto == nil {
		var err error
		if onto, err = a.CommitBase(ctx, in.SpaceID, in.SessionID); err != nil {
			return nil, err
		}
	}
	space := in.SpaceID
	res, err := a.Extract(ctx, ExtractRequest{Space: &space, Content: in.Document, UseMock: in.UseMock, Onto: onto})
	if err != nil {
		return nil, err
	}
	in.TakeDraft(res, onto)
	return res, nil
}

// TakeDraft puts a draft's (or an extraction's) content, items and model
// in the request, as changes onto the base it was made on (onto, when the
// draft names none); untitled content gets the one default title. Save
// calls it; a client that extracts over the API (mcp's ClientOps) calls it
// so its save is settled by the same rule.
func (in *SaveRequest) TakeDraft(d *intelligence.DraftResult, onto *smriti.ID) {
	in.Content = d.Draft.Content()
	titleUntitled(&in.Content, in.Document != nil)
	in.Items = d.Items
	if d.Model != "" {
		m := d.Model
		in.Model = &m
	}
	in.BaseCheckpointID = onto
	if d.Base != nil {
		in.BaseCheckpointID = &d.Base.ID
	}
	if d.SourceTurns != nil && in.Document == nil {
		in.SourceTurns = d.SourceTurns
	}
}

// titleUntitled gives content a model wrote with no title the one default
// title of its kind: extracted from a document, or drafted from an
// imported conversation's turns.
func titleUntitled(c *smriti.Content, extracted bool) {
	if strings.TrimSpace(c.Message) != "" {
		return
	}
	c.Message = "Imported conversation"
	if extracted {
		c.Message = "Extracted checkpoint"
	}
}

// Proposal is the request as a proposal to keep (what Save keeps when
// asked to propose).
func (in *SaveRequest) Proposal() ProposalSave {
	p := ProposalSave{SpaceID: in.SpaceID, BaseCheckpointID: in.BaseCheckpointID, Source: in.ProposalSource,
		Draft: smriti.ProposalDraft{Content: in.Content, Items: in.Items, Model: in.Model, AuthorType: in.AuthorType,
			AuthorAgent: in.AuthorAgent, ProjectRoot: in.ProjectRoot, SourceTurns: in.SourceTurns, Git: in.Git}}
	if in.SessionID != smriti.NilID {
		s := in.SessionID
		p.SessionID = &s
	}
	return p
}

// CommitCheckpoint saves content onto the head of a session's branch, or,
// with no session (in.SessionID is smriti.NilID), onto the head of main:
// Save with the content as given.
func (a *App) CommitCheckpoint(ctx context.Context, in smriti.CheckpointCommit) (*smriti.Checkpoint, error) {
	out, err := a.Save(ctx, SaveRequest{CheckpointCommit: in})
	if err != nil {
		return nil, err
	}
	return out.Checkpoint, nil
}
