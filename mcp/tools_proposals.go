package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"smriti"
	"smriti/app"
	"smriti/proposal"
	"smriti/wire"
)

// ProposalOps are the proposal use cases (app.App's, with its signatures):
// drafts saved for later, waiting on the server until accepted, edited or
// rejected.
type ProposalOps interface {
	SaveProposal(ctx context.Context, in app.ProposalSave) (*proposal.Proposal, error)
	ListProposals(ctx context.Context, space smriti.ID, status string) ([]*proposal.Proposal, error)
	// ResolveProposal is space's proposal a UUID or a unique prefix (4+
	// characters) of its id names (app.App.ResolveProposal).
	ResolveProposal(ctx context.Context, space smriti.ID, ref string) (*proposal.Proposal, error)
	// ShowProposal, EditProposal, AcceptProposal and RejectProposal answer
	// ENOTFOUND for a proposal of another space.
	ShowProposal(ctx context.Context, space, id smriti.ID) (*proposal.Proposal, error)
	EditProposal(ctx context.Context, space, id smriti.ID, e proposal.Edit) (*proposal.Proposal, error)
	// AcceptProposal fails with ECONFLICT and a *smriti.CommitConflict
	// when the head moved and the rebase conflicts; the proposal stays
	// pending.
	AcceptProposal(ctx context.Context, space, id smriti.ID, res []smriti.MergeResolution) (*proposal.Proposal, *smriti.Checkpoint, error)
	RejectProposal(ctx context.Context, space, id smriti.ID) (*proposal.Proposal, error)
}

type proposeIn struct {
	Space            string `json:"space" jsonschema:"space name or UUID"`
	Content          any    `json:"content" jsonschema:"markdown handoff (extracted as changes to the base), or an object: {message, summary, objective, decisions, assumptions, tasks, open_questions, entities, artifacts}"`
	Session          string `json:"session,omitempty" jsonschema:"session UUID; its branch is the proposal's"`
	BaseCheckpointID string `json:"base_checkpoint_id,omitempty" jsonschema:"checkpoint the content changes (default: the branch head now)"`
	AuthorAgent      string `json:"author_agent,omitempty" jsonschema:"who wrote it (default: you)"`
	ProjectRoot      string `json:"project_root,omitempty" jsonschema:"absolute path; its git state is recorded"`
}

func (proposeIn) tweakSchema(s *jsonschema.Schema) {
	s.Properties["content"].Types = []string{"string", "object"}
}

type listProposalsIn struct {
	Space  string `json:"space" jsonschema:"space name or UUID"`
	Status string `json:"status,omitempty" jsonschema:"pending (default), accepted, rejected, superseded or all"`
}

type proposalIn struct {
	Space      string `json:"space" jsonschema:"space name or UUID"`
	ProposalID string `json:"proposal_id" jsonschema:"proposal UUID or 4+ char prefix"`
}

type acceptProposalIn struct {
	Space       string         `json:"space" jsonschema:"space name or UUID"`
	ProposalID  string         `json:"proposal_id" jsonschema:"proposal UUID or 4+ char prefix"`
	Resolutions []resolutionIn `json:"resolutions,omitempty" jsonschema:"settle the conflicts a refused accept listed"`
}

type editProposalIn struct {
	Space         string   `json:"space" jsonschema:"space name or UUID"`
	ProposalID    string   `json:"proposal_id" jsonschema:"proposal UUID or 4+ char prefix"`
	Message       *string  `json:"message,omitempty" jsonschema:"new title"`
	Summary       *string  `json:"summary,omitempty" jsonschema:"new summary"`
	Objective     *string  `json:"objective,omitempty" jsonschema:"new objective"`
	Decisions     []string `json:"decisions,omitempty" jsonschema:"replaces the decisions"`
	Assumptions   []string `json:"assumptions,omitempty" jsonschema:"replaces the assumptions"`
	OpenQuestions []string `json:"open_questions,omitempty" jsonschema:"replaces the open questions"`
	Entities      []string `json:"entities,omitempty" jsonschema:"replaces the entities"`
}

// proposalAnswer is the structured content of a proposal tool's answer.
type proposalAnswer struct {
	ProposalID   smriti.ID  `json:"proposal_id"`
	Status       string     `json:"status"`
	Title        string     `json:"title"`
	CheckpointID *smriti.ID `json:"checkpoint_id,omitempty"`
}

func answerOf(p *proposal.Proposal) proposalAnswer {
	return proposalAnswer{ProposalID: p.ID, Status: p.Status, Title: p.Draft.Content.Message, CheckpointID: p.CheckpointID}
}

// registerProposals adds the proposal tools (the all toolset).
func (t *tools) registerProposals(s *sdk.Server) {
	addReply(t, s, "smriti_propose", "Save state for later as a proposal (not a checkpoint): it waits for review in the brief, the web inbox and smriti proposals.", additive, t.propose)
	add(t, s, "smriti_list_proposals", "List a space's proposals (drafts saved for later), newest first.", readOnly,
		func(ctx context.Context, in listProposalsIn) (string, error) {
			sp, err := t.space(ctx, in.Space)
			if err != nil {
				return "", err
			}
			status := in.Status
			switch status {
			case "":
				status = proposal.Pending
			case "all":
				status = ""
			}
			ps, err := t.ops.ListProposals(ctx, sp.ID, status)
			if err != nil {
				return "", err
			}
			return formatProposalList(sp.Name, status, ps), nil
		})
	add(t, s, "smriti_show_proposal", "Show a proposal: what accepting it would save, and on which base.", readOnly,
		func(ctx context.Context, in proposalIn) (string, error) {
			sp, id, err := t.proposalRef(ctx, in.Space, in.ProposalID)
			if err != nil {
				return "", err
			}
			p, err := t.ops.ShowProposal(ctx, sp, id)
			if err != nil {
				return "", err
			}
			return formatProposal(p), nil
		})
	addReply(t, s, "smriti_accept_proposal", "Accept a proposal: saved as a checkpoint on its base; a head that moved is rebased onto, or the conflicts are listed and it stays pending.", additive, t.acceptProposal)
	addReply(t, s, "smriti_edit_proposal", "Change a pending proposal's title, summary, objective or lists before accepting it.", idempotent,
		func(ctx context.Context, in editProposalIn) (reply, error) {
			sp, id, err := t.proposalRef(ctx, in.Space, in.ProposalID)
			if err != nil {
				return reply{}, err
			}
			e := proposal.Edit{Message: in.Message, Summary: in.Summary, Objective: in.Objective}
			for _, l := range []struct {
				dst **[]string
				src []string
			}{{&e.Decisions, in.Decisions}, {&e.Assumptions, in.Assumptions}, {&e.OpenQuestions, in.OpenQuestions}, {&e.Entities, in.Entities}} {
				if l.src != nil {
					v := l.src
					*l.dst = &v
				}
			}
			p, err := t.ops.EditProposal(ctx, sp, id, e)
			if err != nil {
				return reply{}, err
			}
			return reply{Text: fmt.Sprintf("Edited proposal `%s`: %s\n", p.ID.String()[:8], p.Draft.Content.Message), Data: answerOf(p)}, nil
		})
	addReply(t, s, "smriti_reject_proposal", "Reject a pending proposal (kept, marked rejected, out of the brief).", idempotent,
		func(ctx context.Context, in proposalIn) (reply, error) {
			sp, id, err := t.proposalRef(ctx, in.Space, in.ProposalID)
			if err != nil {
				return reply{}, err
			}
			p, err := t.ops.RejectProposal(ctx, sp, id)
			if err != nil {
				return reply{}, err
			}
			return reply{Text: fmt.Sprintf("Rejected proposal `%s`: %s\n", p.ID.String()[:8], p.Draft.Content.Message), Data: answerOf(p)}, nil
		})
}

// proposalRef resolves the space and a proposal id or 4+ character prefix
// of one of its proposals (app.App.ResolveProposal).
func (t *tools) proposalRef(ctx context.Context, space, ref string) (smriti.ID, smriti.ID, error) {
	sp, err := t.space(ctx, space)
	if err != nil {
		return smriti.NilID, smriti.NilID, err
	}
	p, err := t.ops.ResolveProposal(ctx, sp.ID, ref)
	if err != nil {
		return smriti.NilID, smriti.NilID, err
	}
	return sp.ID, p.ID, nil
}

func (t *tools) propose(ctx context.Context, in proposeIn) (reply, error) {
	sp, err := t.space(ctx, in.Space)
	if err != nil {
		return reply{}, err
	}
	// The write a create_checkpoint with these arguments would make, kept
	// instead of committed.
	req, err := t.commitRequest(ctx, createCheckpointIn{Space: in.Space, Session: in.Session, BaseCheckpointID: in.BaseCheckpointID,
		AuthorAgent: in.AuthorAgent, ProjectRoot: in.ProjectRoot}, sp.ID)
	if err != nil {
		return reply{}, err
	}
	save := app.SaveRequest{CheckpointCommit: req, Propose: true, ProposalSource: "mcp"}
	switch c := in.Content.(type) {
	case map[string]any:
		if save.Content, err = structuredContent(c); err != nil {
			return reply{}, err
		}
	case string:
		if strings.TrimSpace(c) == "" {
			return reply{}, smriti.Errorf(smriti.EUNPROCESSABLE, "content must be a non-empty markdown string or a checkpoint object")
		}
		save.Document = &c
	default:
		return reply{}, smriti.Errorf(smriti.EUNPROCESSABLE, "content must be a non-empty markdown string or a checkpoint object")
	}
	saved, err := t.ops.Save(ctx, save)
	if err != nil {
		return reply{}, err
	}
	p := saved.Proposal
	id := p.ID.String()[:8]
	return reply{Text: fmt.Sprintf("Saved proposal `%s` on `%s`: %s\nIt waits for review; smriti_accept_proposal with proposal_id=%q saves it.\n",
		id, p.BranchName, p.Draft.Content.Message, id), Data: answerOf(p)}, nil
}

// structuredContent reads a checkpoint object as create_checkpoint does.
func structuredContent(obj map[string]any) (smriti.Content, error) {
	raw, _ := json.Marshal(obj)
	f, err := decodeContentFields(raw)
	if err != nil {
		return smriti.Content{}, err
	}
	c := f.Content()
	if c.Message == "" {
		return smriti.Content{}, smriti.Errorf(smriti.EUNPROCESSABLE, "content.message must be a non-empty string (the checkpoint's title)")
	}
	return c, nil
}

func (t *tools) acceptProposal(ctx context.Context, in acceptProposalIn) (reply, error) {
	sp, id, err := t.proposalRef(ctx, in.Space, in.ProposalID)
	if err != nil {
		return reply{}, err
	}
	var res []smriti.MergeResolution
	for _, r := range in.Resolutions {
		res = append(res, smriti.MergeResolution(r))
	}
	p, c, err := t.ops.AcceptProposal(ctx, sp, id, res)
	if cc, ok := smriti.ErrorData(err).(*smriti.CommitConflict); ok {
		return reply{}, acceptConflict(cc, id)
	}
	if err != nil {
		return reply{}, err
	}
	text := fmt.Sprintf("Accepted proposal `%s`: saved checkpoint `%s` on branch `%s`: %s\n", id.String()[:8], short(c.Hash), c.BranchName, c.Message)
	if c.RebasedFrom != nil && c.ParentID != nil {
		text += fmt.Sprintf("Rebased: the branch head moved past its base %s; its change was applied onto the head %s.\n", *c.RebasedFrom, *c.ParentID)
	}
	return reply{Text: text, Data: answerOf(p)}, nil
}

// acceptConflict is a refused accept: the conflicts, and the call that
// settles them (not create_checkpoint's retry: the proposal keeps its base).
func acceptConflict(cc *smriti.CommitConflict, id smriti.ID) error {
	var b strings.Builder
	var retry []resolutionIn
	fmt.Fprintf(&b, "%s\nNothing was saved; the proposal stays pending. %d conflict(s) (ours = the branch head %s, theirs = the proposal):\n",
		cc.Message, len(cc.Conflicts), cc.HeadCheckpointID)
	for i, c := range cc.Conflicts {
		fmt.Fprintf(&b, "%d. %s %s (%s)\n   base:   %s\n   ours:   %s\n   theirs: %s\n", i+1, c.Field, c.Key, c.Kind, c.Base, c.Ours, c.Theirs)
		retry = append(retry, resolutionIn{Field: c.Field, Key: c.Key, Choice: "theirs"})
	}
	j, _ := json.Marshal(retry)
	fmt.Fprintf(&b, "Retry: call smriti_accept_proposal again with proposal_id=%q and resolutions=%s (choose ours, theirs or base for each).", id.String()[:8], j)
	return &smriti.Error{Code: smriti.ECONFLICT, Message: b.String(), Data: cc.Conflicts}
}

func formatProposalList(space, status string, ps []*proposal.Proposal) string {
	if len(ps) == 0 {
		return fmt.Sprintf("No %sproposals in %s.\n", map[bool]string{true: status + " ", false: ""}[status != ""], space)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d proposal(s) in %s:\n", len(ps), space)
	for _, p := range ps {
		fmt.Fprintf(&b, "- `%s` [%s] %s — from %s on `%s`, %s\n", p.ID.String()[:8], p.Status, p.Draft.Content.Message, p.Source, p.BranchName,
			p.CreatedAt.UTC().Format("2006-01-02 15:04 UTC"))
	}
	return b.String()
}

func formatProposal(p *proposal.Proposal) string {
	var b strings.Builder
	c := p.Draft.Content
	fmt.Fprintf(&b, "# Proposal `%s`: %s\n%s · from %s · on `%s`", p.ID.String()[:8], c.Message, p.Status, p.Source, p.BranchName)
	if p.BaseCheckpointID != nil {
		fmt.Fprintf(&b, " · base %s", p.BaseCheckpointID)
	}
	b.WriteString("\n")
	if c.Summary != "" {
		fmt.Fprintf(&b, "\n## Summary\n%s\n", c.Summary)
	}
	for _, sec := range []struct {
		title string
		items []string
	}{{"Decisions", c.Decisions}, {"Assumptions", c.Assumptions}, {"Open questions", c.OpenQuestions}, {"Entities", c.Entities}} {
		if len(sec.items) > 0 {
			fmt.Fprintf(&b, "\n## %s\n- %s\n", sec.title, strings.Join(sec.items, "\n- "))
		}
	}
	if len(c.Tasks) > 0 {
		b.WriteString("\n## Tasks\n")
		for _, tk := range c.Tasks {
			fmt.Fprintf(&b, "- %s\n", tk.Text)
		}
	}
	return b.String()
}

// decodeContentFields reads a checkpoint object strictly (unknown keys are
// refused), as create_checkpoint does.
func decodeContentFields(raw []byte) (*wire.ContentFields, error) {
	var f wire.ContentFields
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "content: %v", err)
	}
	return &f, nil
}
