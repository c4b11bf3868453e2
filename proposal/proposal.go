// Package proposal holds proposals: checkpoints drafted and saved for
// later, waiting for someone to accept, edit or reject them.
package proposal

import (
	"context"
	"slices"
	"smriti"
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
	ID      smriti.ID
	SpaceID smriti.ID
	// SessionID is the session the checkpoint is written from (its branch
	// is the checkpoint's branch); nil commits onto main with no session.
	SessionID *smriti.ID
	// BaseCheckpointID is the checkpoint the draft changes (its parent
	// when the branch head has not moved); nil for the first of its line.
	BaseCheckpointID *smriti.ID
	// BranchName is the branch the checkpoint goes on.
	BranchName string
	// Source says who saved it (Sources).
	Source string
	// Status is pending, accepted, rejected or superseded (a newer draft
	// of the same agent session replaced it while it waited).
	Status string
	Draft  smriti.ProposalDraft
	// CheckpointID is the checkpoint accepting it wrote.
	CheckpointID *smriti.ID
	CreatedAt    time.Time
	UpdatedAt    time.Time
	// DecidedAt is when it was accepted, rejected or superseded.
	DecidedAt *time.Time
}

// Proposal statuses.
const (
	Pending    = "pending"
	Accepted   = "accepted"
	Rejected   = "rejected"
	Superseded = "superseded"
)

// FromHook is the source of an agent host's hook's drafts.
const FromHook = "hook"

// Sources are who may save a proposal: an agent hook, the CLI, an
// MCP tool, the web UI, or a plain API call.
var Sources = []string{FromHook, "cli", "mcp", "web", "api"}

// Statuses are a proposal's statuses, in order.
var Statuses = []string{Pending, Accepted, Rejected, Superseded}

// Validate checks a proposal before it is stored: the content as a commit
// would (smriti.Content.Validate), the source, the author type, the project root
// and git state. EUNPROCESSABLE otherwise.
func (p *Proposal) Validate() error {
	if !slices.Contains(Sources, p.Source) {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "source must be one of %s", strings.Join(Sources, ", "))
	}
	return p.Draft.Validate()
}

// ValidStatus reports whether s is a proposal status ("" is not).
func ValidStatus(s string) bool { return slices.Contains(Statuses, s) }

// Edit changes a pending proposal's content: each non-nil field
// replaces the draft's.
type Edit struct {
	Message       *string
	Objective     *string
	Summary       *string
	Decisions     *[]string
	Assumptions   *[]string
	Tasks         *[]smriti.Task
	OpenQuestions *[]string
	Entities      *[]string
}

// Apply returns c with the edit's fields replaced.
func (e *Edit) Apply(c smriti.Content) smriti.Content {
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
		c.Tasks = append([]smriti.Task{}, *e.Tasks...)
	}
	return c
}

// Service stores proposals. Every method sees only proposals of
// spaces the caller is a member of: ENOTFOUND otherwise, as for one that
// does not exist.
type Service interface {
	// CreateProposal stores p (smriti.ID, timestamps and status pending are set
	// here) after checking its session and base belong to its space
	// (ENOTFOUND otherwise); EFORBIDDEN for a viewer.
	CreateProposal(ctx context.Context, p *Proposal) (*Proposal, error)
	// ReplaceProposals stores p as CreateProposal does and, in the same
	// transaction, marks superseded every pending proposal of p's session
	// (p.SessionID must be set) saved from p's source, returning p and
	// the ones it replaced.
	ReplaceProposals(ctx context.Context, p *Proposal) (*Proposal, []*Proposal, error)
	// Proposal returns one proposal; ENOTFOUND when missing or unseen.
	Proposal(ctx context.Context, id smriti.ID) (*Proposal, error)
	// Proposals lists a space's proposals, newest first, of one status
	// when status is set; ENOTFOUND for an unseen space.
	Proposals(ctx context.Context, space smriti.ID, status string) ([]*Proposal, error)
	// UpdateProposalDraft replaces a pending proposal's draft; ECONFLICT
	// when it is no longer pending.
	UpdateProposalDraft(ctx context.Context, id smriti.ID, d smriti.ProposalDraft) (*Proposal, error)
	// SetProposalStatus moves a proposal from status from to status to,
	// recording checkpoint (nil keeps none); ECONFLICT, naming the status
	// it has, when it is not in from.
	SetProposalStatus(ctx context.Context, id smriti.ID, from, to string, checkpoint *smriti.ID) (*Proposal, error)
}
