package smriti

import (
	"context"
	"strings"
	"time"
)

// A Proposal is a checkpoint saved for later: drafted content that waits
// on the server — in the brief, the web inbox, `smriti proposals` and the
// MCP tools — until someone accepts it (it is then committed on its base,
// rebased onto a head that moved, or refused with the conflicts), edits it,
// or rejects it. Hooks, `checkpoint create --extract --propose`, MCP and
// the web's "save for later" write them.
type Proposal struct {
	ID      ID
	SpaceID ID
	// SessionID is the session the checkpoint is written from (its branch
	// is the checkpoint's branch); nil commits onto main with no session.
	SessionID *ID
	// BaseCheckpointID is the checkpoint the draft changes (its parent
	// when the branch head has not moved); nil for the first of its line.
	BaseCheckpointID *ID
	// BranchName is the branch the checkpoint goes on.
	BranchName string
	// Source says who saved it (ProposalSources).
	Source string
	// Status is pending, accepted, rejected or superseded (a newer draft
	// of the same agent session replaced it while it waited).
	Status string
	Draft  ProposalDraft
	// CheckpointID is the checkpoint accepting it wrote.
	CheckpointID *ID
	CreatedAt    time.Time
	UpdatedAt    time.Time
	// DecidedAt is when it was accepted, rejected or superseded.
	DecidedAt *time.Time
}

// ProposalDraft is what accepting a proposal commits.
type ProposalDraft struct {
	// Content holds the title (Content.Message) and the full proposed state.
	Content Content
	// Items propose the items' ids, supersedes and origins, as in
	// CheckpointCommit.
	Items       []Item
	Model       *string
	AuthorType  string
	AuthorAgent *string
	ProjectRoot *string
	SourceTurns *SourceTurns
	Git         *GitState
	// Conflicts, on a proposal a pull left, are the items both copies
	// changed: accepting the proposal takes the other copy's side of each.
	Conflicts []MergeConflict
}

// Proposal statuses.
const (
	ProposalPending    = "pending"
	ProposalAccepted   = "accepted"
	ProposalRejected   = "rejected"
	ProposalSuperseded = "superseded"
)

// ProposalFromHook is the source of an agent host's hook's drafts.
const ProposalFromHook = "hook"

// ProposalSources are who may save a proposal: an agent hook, the CLI, an
// MCP tool, the web UI, or a plain API call.
var ProposalSources = []string{ProposalFromHook, "cli", "mcp", "web", "api"}

// ProposalStatuses are a proposal's statuses, in order.
var ProposalStatuses = []string{ProposalPending, ProposalAccepted, ProposalRejected, ProposalSuperseded}

// Validate checks a proposal before it is stored: the content as a commit
// would (Content.Validate), the source, the author type, the project root
// and git state. EUNPROCESSABLE otherwise.
func (p *Proposal) Validate() error {
	if !oneOf(p.Source, ProposalSources) {
		return Errorf(EUNPROCESSABLE, "source must be one of %s", strings.Join(ProposalSources, ", "))
	}
	return p.Draft.Validate()
}

// Validate checks a draft as CheckpointCommit.Validate checks a commit.
func (d *ProposalDraft) Validate() error {
	in := CheckpointCommit{Content: d.Content, ProjectRoot: d.ProjectRoot, Git: d.Git, SourceTurns: d.SourceTurns}
	if err := in.Validate(); err != nil {
		return err
	}
	if d.AuthorType != "" {
		if err := validateAuthorType(d.AuthorType); err != nil {
			return err
		}
	}
	return nil
}

// ValidProposalStatus reports whether s is a proposal status ("" is not).
func ValidProposalStatus(s string) bool { return oneOf(s, ProposalStatuses) }

func oneOf(s string, set []string) bool {
	for _, v := range set {
		if s == v {
			return true
		}
	}
	return false
}

// ProposalEdit changes a pending proposal's content: each non-nil field
// replaces the draft's.
type ProposalEdit struct {
	Message       *string
	Objective     *string
	Summary       *string
	Decisions     *[]string
	Assumptions   *[]string
	Tasks         *[]Task
	OpenQuestions *[]string
	Entities      *[]string
}

// Apply returns c with the edit's fields replaced.
func (e *ProposalEdit) Apply(c Content) Content {
	set := func(dst *[]string, src *[]string) {
		if src != nil {
			*dst = append([]string{}, *src...)
		}
	}
	if e.Message != nil {
		c.Message = strings.TrimSpace(*e.Message)
	}
	if e.Objective != nil {
		c.Objective = *e.Objective
	}
	if e.Summary != nil {
		c.Summary = *e.Summary
	}
	set(&c.Decisions, e.Decisions)
	set(&c.Assumptions, e.Assumptions)
	set(&c.OpenQuestions, e.OpenQuestions)
	set(&c.Entities, e.Entities)
	if e.Tasks != nil {
		c.Tasks = append([]Task{}, *e.Tasks...)
	}
	return c
}

// ProposalService stores proposals. Every method sees only proposals of
// spaces the caller is a member of: ENOTFOUND otherwise, as for one that
// does not exist.
type ProposalService interface {
	// CreateProposal stores p (ID, timestamps and status pending are set
	// here) after checking its session and base belong to its space
	// (ENOTFOUND otherwise); EFORBIDDEN for a viewer.
	CreateProposal(ctx context.Context, p *Proposal) (*Proposal, error)
	// ReplaceProposals stores p as CreateProposal does and, in the same
	// transaction, marks superseded every pending proposal of p's session
	// (p.SessionID must be set) saved from p's source, returning p and
	// the ones it replaced.
	ReplaceProposals(ctx context.Context, p *Proposal) (*Proposal, []*Proposal, error)
	// Proposal returns one proposal; ENOTFOUND when missing or unseen.
	Proposal(ctx context.Context, id ID) (*Proposal, error)
	// Proposals lists a space's proposals, newest first, of one status
	// when status is set; ENOTFOUND for an unseen space.
	Proposals(ctx context.Context, space ID, status string) ([]*Proposal, error)
	// UpdateProposalDraft replaces a pending proposal's draft; ECONFLICT
	// when it is no longer pending.
	UpdateProposalDraft(ctx context.Context, id ID, d ProposalDraft) (*Proposal, error)
	// SetProposalStatus moves a proposal from status from to status to,
	// recording checkpoint (nil keeps none); ECONFLICT, naming the status
	// it has, when it is not in from.
	SetProposalStatus(ctx context.Context, id ID, from, to string, checkpoint *ID) (*Proposal, error)
}
