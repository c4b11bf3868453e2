package wire

import (
	"time"

	"smriti"
	"smriti/coord"
	"smriti/internal/nonnil"
	"smriti/proposal"
)

// ProposalRequest saves a draft for later (POST /api/v5/spaces/{space_id}/proposals).
type ProposalRequest struct {
	ContentFields
	SessionID   *string        `json:"session_id" doc:"The session the checkpoint will be written from (UUID): its branch is the proposal's branch. Null: onto main, with no session"`
	Source      string         `json:"source" required:"false" enum:"hook,cli,mcp,web,api" doc:"Who saved it (default api)"`
	AuthorAgent *string        `json:"author_agent" doc:"The agent that wrote it, kept for the checkpoint"`
	AuthorType  string         `json:"author_type" required:"false" enum:"user,llm,agent,system" doc:"Who wrote the content, as for a commit"`
	ProjectRoot *string        `json:"project_root" doc:"Absolute path of the project"`
	SourceTurns *SourceTurnsIn `json:"source_turns" doc:"The turns a draft was made from"`
	Items       []ItemIn       `json:"items" required:"false" doc:"The draft's items with their ids (a draft's items view), so accepting it updates those items"`
	Model       *string        `json:"model" doc:"The model that drafted the content"`
	// BaseCheckpointID defaults to the checkpoint a commit would build on now.
	BaseCheckpointID *string     `json:"base_checkpoint_id" doc:"The checkpoint the draft changes (default: the head of the session's branch, or of main, now). Accepting it later rebases onto a head that moved, or answers 409"`
	Git              *GitStateIn `json:"git" doc:"Where the project's code stood"`
}

// ProposalEditRequest changes a pending proposal (PATCH): each field sent
// replaces the proposal's; fields left out stay.
type ProposalEditRequest struct {
	Message       *string        `json:"message" required:"false" doc:"The title (not blank)"`
	Objective     *string        `json:"objective" required:"false" doc:"What the work is for"`
	Summary       *string        `json:"summary" required:"false" doc:"Where things stand"`
	Decisions     *[]string      `json:"decisions" required:"false" doc:"The whole list of decisions"`
	Assumptions   *[]string      `json:"assumptions" required:"false" doc:"The whole list of assumptions"`
	Tasks         *[]smriti.Task `json:"tasks" required:"false" doc:"The whole list of tasks (strings or objects)"`
	OpenQuestions *[]string      `json:"open_questions" required:"false" doc:"The whole list of open questions"`
	Entities      *[]string      `json:"entities" required:"false" doc:"The whole list of entities"`
}

// Edit is the request as the domain's edit.
func (r *ProposalEditRequest) Edit() proposal.Edit {
	return proposal.Edit{Message: r.Message, Objective: r.Objective, Summary: r.Summary, Decisions: r.Decisions,
		Assumptions: r.Assumptions, Tasks: r.Tasks, OpenQuestions: r.OpenQuestions, Entities: r.Entities}
}

// ProposalAcceptRequest accepts a proposal; resolutions settle the
// conflicts an earlier accept answered with 409.
type ProposalAcceptRequest struct {
	Resolutions []smriti.MergeResolution `json:"resolutions" required:"false" doc:"Settle the conflicts of a 409: field and key as the 409 names them, choice ours (the branch head's value), theirs (the proposal's), base, or custom with value"`
}

// ProposalOut is a proposal.
type ProposalOut struct {
	ID               smriti.ID              `json:"id" doc:"The proposal"`
	RepoID           smriti.ID              `json:"repo_id" doc:"The space"`
	SessionID        *smriti.ID             `json:"session_id" doc:"The session it is written from (null: main, no session)"`
	BaseCheckpointID *smriti.ID             `json:"base_checkpoint_id" doc:"The checkpoint the draft changes (null: the first of its line)"`
	BranchName       string                 `json:"branch_name" doc:"The branch the checkpoint goes on"`
	Title            string                 `json:"title" doc:"The checkpoint's title"`
	Source           string                 `json:"source" doc:"hook, cli, mcp, web or api"`
	Status           string                 `json:"status" doc:"pending, accepted, rejected or superseded (a newer draft of the same agent session replaced it)"`
	Objective        string                 `json:"objective" doc:"What the work is for"`
	Summary          string                 `json:"summary" doc:"Where things stand"`
	Decisions        []string               `json:"decisions" doc:"Decisions"`
	Assumptions      []string               `json:"assumptions" doc:"Assumptions"`
	Tasks            []smriti.Task          `json:"tasks" doc:"Tasks"`
	OpenQuestions    []string               `json:"open_questions" doc:"Open questions"`
	Entities         []string               `json:"entities" doc:"Entities"`
	Artifacts        []smriti.Artifact      `json:"artifacts" doc:"Artifacts"`
	Items            []ItemIn               `json:"items" doc:"The draft's items with their ids"`
	Model            *string                `json:"model" doc:"The model that drafted it"`
	AuthorAgent      *string                `json:"author_agent" doc:"The agent that wrote it"`
	AuthorType       string                 `json:"author_type" doc:"Who wrote the content (empty: decided at accept, as for a commit)"`
	ProjectRoot      *string                `json:"project_root" doc:"The project directory"`
	SourceTurns      *smriti.SourceTurns    `json:"source_turns" doc:"The turns it was drafted from"`
	Git              *GitStateIn            `json:"git" doc:"Where the project's code stood"`
	CheckpointID     *smriti.ID             `json:"checkpoint_id" doc:"The checkpoint accepting it wrote (null until accepted)"`
	CreatedAt        time.Time              `json:"created_at" doc:"When it was saved"`
	UpdatedAt        time.Time              `json:"updated_at" doc:"When it last changed"`
	DecidedAt        *time.Time             `json:"decided_at" doc:"When it was accepted or rejected"`
	Conflicts        []smriti.MergeConflict `json:"conflicts" doc:"On a proposal a pull left: the items both copies changed (accepting takes the other copy's side of each); empty otherwise"`
}

// ProposalOf is p on the wire.
func ProposalOf(p *proposal.Proposal) ProposalOut {
	d, c := p.Draft, p.Draft.Content
	return ProposalOut{ID: p.ID, RepoID: p.SpaceID, SessionID: p.SessionID, BaseCheckpointID: p.BaseCheckpointID, BranchName: p.BranchName,
		Title: c.Message, Source: p.Source, Status: p.Status, Objective: c.Objective, Summary: c.Summary,
		Decisions: nonnil.Slice(c.Decisions), Assumptions: nonnil.Slice(c.Assumptions), Tasks: nonnil.Slice(c.Tasks),
		OpenQuestions: nonnil.Slice(c.OpenQuestions), Entities: nonnil.Slice(c.Entities), Artifacts: nonnil.Slice(c.Artifacts),
		Items: ItemsInOf(d.Items), Model: d.Model, AuthorAgent: d.AuthorAgent, AuthorType: d.AuthorType, ProjectRoot: d.ProjectRoot,
		SourceTurns: d.SourceTurns, Git: GitStateInOf(d.Git), CheckpointID: p.CheckpointID,
		CreatedAt: p.CreatedAt.UTC(), UpdatedAt: p.UpdatedAt.UTC(), DecidedAt: p.DecidedAt, Conflicts: nonnil.Slice(d.Conflicts)}
}

// ProposalAccepted is a proposal accepted and the checkpoint it became.
type ProposalAccepted struct {
	Proposal   ProposalOut `json:"proposal" doc:"The proposal, now accepted"`
	Checkpoint Commit      `json:"checkpoint" doc:"The checkpoint it became (rebased_from set when the head had moved past its base)"`
}

// ProposalWaitingOut is a pending proposal as the state brief lists it.
type ProposalWaitingOut struct {
	ID         smriti.ID `json:"id" doc:"The proposal"`
	Title      string    `json:"title" doc:"Its title"`
	Source     string    `json:"source" doc:"Who saved it: hook, cli, mcp, web or api"`
	BranchName string    `json:"branch_name" doc:"The branch it goes on"`
	CreatedAt  time.Time `json:"created_at" doc:"When it was saved"`
}

func proposalsWaitingOf(ps []coord.ProposalWaiting) []ProposalWaitingOut {
	out := make([]ProposalWaitingOut, 0, len(ps))
	for _, p := range ps {
		out = append(out, ProposalWaitingOut{ID: p.ID, Title: p.Title, Source: p.Source, BranchName: p.Branch, CreatedAt: p.CreatedAt})
	}
	return out
}

func (st *SpaceState) proposalsWaiting() []coord.ProposalWaiting {
	var out []coord.ProposalWaiting
	for _, p := range st.ProposalsWaiting {
		out = append(out, coord.ProposalWaiting{ID: p.ID, Title: p.Title, Source: p.Source, Branch: p.BranchName, CreatedAt: p.CreatedAt})
	}
	return out
}

// Proposal is the wire proposal as the domain's (a client reading it back).
func (p *ProposalOut) Proposal() *proposal.Proposal {
	items, _ := ItemsIn(p.Items)
	return &proposal.Proposal{ID: p.ID, SpaceID: p.RepoID, SessionID: p.SessionID, BaseCheckpointID: p.BaseCheckpointID, BranchName: p.BranchName,
		Source: p.Source, Status: p.Status, CheckpointID: p.CheckpointID, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt, DecidedAt: p.DecidedAt,
		Draft: smriti.ProposalDraft{Content: smriti.Content{Message: p.Title, Objective: p.Objective, Summary: p.Summary, Decisions: p.Decisions,
			Assumptions: p.Assumptions, Tasks: p.Tasks, OpenQuestions: p.OpenQuestions, Entities: p.Entities, Artifacts: p.Artifacts},
			Items: items, Model: p.Model, AuthorType: p.AuthorType, AuthorAgent: p.AuthorAgent, ProjectRoot: p.ProjectRoot,
			SourceTurns: p.SourceTurns, Git: p.Git.GitState()}}
}

// ProposalRequestOf is a save as the request that asks for it.
func ProposalRequestOf(session, base *smriti.ID, source string, d smriti.ProposalDraft) ProposalRequest {
	c := d.Content
	req := ProposalRequest{ContentFields: ContentFields{Message: &c.Message, Summary: c.Summary, Objective: c.Objective, Decisions: c.Decisions,
		Assumptions: c.Assumptions, Tasks: c.Tasks, OpenQuestions: c.OpenQuestions, Entities: c.Entities, Artifacts: c.Artifacts},
		Source: source, AuthorAgent: d.AuthorAgent, AuthorType: d.AuthorType, ProjectRoot: d.ProjectRoot, Items: ItemsInOf(d.Items),
		Model: d.Model, Git: GitStateInOf(d.Git)}
	if session != nil {
		s := session.String()
		req.SessionID = &s
	}
	if base != nil {
		b := base.String()
		req.BaseCheckpointID = &b
	}
	if st := d.SourceTurns; st != nil {
		s, from, to := st.SessionID.String(), st.FromSeq, st.ToSeq
		req.SourceTurns = &SourceTurnsIn{SessionID: &s, FromSeq: &from, ToSeq: &to}
	}
	return req
}
