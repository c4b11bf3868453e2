package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"smriti"
	"smriti/account"
	"smriti/internal/nonnil"
	"smriti/proposal"
	"smriti/store/internal/dbx"
)

var _ proposal.Service = (*Store)(nil)

const proposalCols = `p.id, p.space_id, p.session_id, p.base_checkpoint_id, p.branch_name, p.source, p.status, p.draft,
	p.checkpoint_id, p.created_at, p.updated_at, p.decided_at`

// visibleProposal scopes proposals to the caller through their space.
const visibleProposal = ` FROM proposals p WHERE p.space_id` + memberSpace

// proposalDraftJSON is how a proposal's draft is stored (the draft column):
// the content in the checkpoint's wire names, the items with their ids.
type proposalDraftJSON struct {
	Message       string              `json:"message"`
	Objective     string              `json:"objective"`
	Summary       string              `json:"summary"`
	Decisions     []string            `json:"decisions"`
	Assumptions   []string            `json:"assumptions"`
	Tasks         []smriti.Task       `json:"tasks"`
	OpenQuestions []string            `json:"open_questions"`
	Entities      []string            `json:"entities"`
	Artifacts     []smriti.Artifact   `json:"artifacts"`
	Items         []proposalItemJSON  `json:"items"`
	Model         *string             `json:"model"`
	AuthorType    string              `json:"author_type"`
	AuthorAgent   *string             `json:"author_agent"`
	ProjectRoot   *string             `json:"project_root"`
	SourceTurns   *smriti.SourceTurns `json:"source_turns"`
	Git           *smriti.GitState    `json:"git"`
	// Conflicts is absent from drafts that hold none.
	Conflicts []smriti.MergeConflict `json:"conflicts,omitempty"`
}

type proposalItemJSON struct {
	ID         string             `json:"id"`
	Kind       smriti.ItemKind    `json:"kind"`
	Text       string             `json:"text"`
	Status     string             `json:"status"`
	Supersedes []string           `json:"supersedes"`
	Origin     smriti.ItemOrigin  `json:"origin"`
	Change     *smriti.ItemChange `json:"change"`
	Refs       []smriti.ItemRef   `json:"refs,omitempty"`
}

// EncodeProposalDraft is a draft as the draft column holds it (bundles
// carry the same text).
func EncodeProposalDraft(d smriti.ProposalDraft) string {
	c := d.Content
	out := proposalDraftJSON{Message: c.Message, Objective: c.Objective, Summary: c.Summary, Decisions: nonnil.Slice(c.Decisions),
		Assumptions: nonnil.Slice(c.Assumptions), Tasks: nonnil.Slice(c.Tasks), OpenQuestions: nonnil.Slice(c.OpenQuestions),
		Entities: nonnil.Slice(c.Entities), Artifacts: nonnil.Slice(c.Artifacts), Items: []proposalItemJSON{},
		Model: d.Model, AuthorType: d.AuthorType, AuthorAgent: d.AuthorAgent, ProjectRoot: d.ProjectRoot, SourceTurns: d.SourceTurns, Git: d.Git,
		Conflicts: d.Conflicts}
	for _, it := range d.Items {
		out.Items = append(out.Items, proposalItemJSON{ID: it.ID, Kind: it.Kind, Text: it.Text, Status: it.Status,
			Supersedes: nonnil.Slice(it.Supersedes), Origin: it.Origin, Change: it.Change, Refs: it.Refs})
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// DecodeProposalDraft reads the draft column.
func DecodeProposalDraft(s string) (smriti.ProposalDraft, error) {
	var in proposalDraftJSON
	if err := json.Unmarshal([]byte(s), &in); err != nil {
		return smriti.ProposalDraft{}, fmt.Errorf("decode proposal draft: %w", err)
	}
	d := smriti.ProposalDraft{Content: smriti.Content{Message: in.Message, Objective: in.Objective, Summary: in.Summary,
		Decisions: nonnil.Slice(in.Decisions), Assumptions: nonnil.Slice(in.Assumptions), Tasks: nonnil.Slice(in.Tasks),
		OpenQuestions: nonnil.Slice(in.OpenQuestions), Entities: nonnil.Slice(in.Entities), Artifacts: nonnil.Slice(in.Artifacts)},
		Model: in.Model, AuthorType: in.AuthorType, AuthorAgent: in.AuthorAgent, ProjectRoot: in.ProjectRoot, SourceTurns: in.SourceTurns, Git: in.Git,
		Conflicts: in.Conflicts}
	for _, it := range in.Items {
		d.Items = append(d.Items, smriti.Item{ID: it.ID, Kind: it.Kind, Text: it.Text, Status: it.Status,
			Supersedes: it.Supersedes, Origin: it.Origin, Change: it.Change, Refs: it.Refs})
	}
	return d, nil
}

func scanProposal(row interface{ Scan(...any) error }) (*proposal.Proposal, error) {
	var p proposal.Proposal
	var session, base, cp uuid.NullUUID
	var draft string
	var created, updated, decided dbx.Time
	if err := row.Scan(&p.ID, &p.SpaceID, &session, &base, &p.BranchName, &p.Source, &p.Status, &draft,
		&cp, &created, &updated, &decided); err != nil {
		return nil, err
	}
	p.SessionID, p.BaseCheckpointID, p.CheckpointID = dbx.NullID(session), dbx.NullID(base), dbx.NullID(cp)
	p.CreatedAt, p.UpdatedAt, p.DecidedAt = created.Time, updated.Time, dbx.OptTime(decided)
	d, err := DecodeProposalDraft(draft)
	if err != nil {
		return nil, err
	}
	p.Draft = d
	return &p, nil
}

var errProposalNotFound = smriti.Errorf(smriti.ENOTFOUND, "Proposal not found")

func (s *Store) proposal(ctx context.Context, q dbx.Querier, id smriti.ID) (*proposal.Proposal, error) {
	p, err := scanProposal(q.QueryRowContext(ctx, s.d.Rebind(`SELECT `+proposalCols+visibleProposal+` AND p.id = ?`),
		smriti.UserFromContext(ctx), id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errProposalNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("get proposal: %w", err)
	}
	return p, nil
}

// CreateProposal implements proposal.Service.
func (s *Store) CreateProposal(ctx context.Context, p *proposal.Proposal) (*proposal.Proposal, error) {
	out, _, err := s.createProposal(ctx, p, false)
	return out, err
}

// ReplaceProposals implements proposal.Service.
func (s *Store) ReplaceProposals(ctx context.Context, p *proposal.Proposal) (*proposal.Proposal, []*proposal.Proposal, error) {
	if p.SessionID == nil {
		return nil, nil, smriti.Errorf(smriti.EINVALID, "only a session's proposal replaces others")
	}
	return s.createProposal(ctx, p, true)
}

func (s *Store) createProposal(ctx context.Context, p *proposal.Proposal, replace bool) (*proposal.Proposal, []*proposal.Proposal, error) {
	if err := p.Validate(); err != nil {
		return nil, nil, err
	}
	in := *p
	in.ID, in.Status, in.CheckpointID, in.DecidedAt = smriti.NewID(), proposal.Pending, nil, nil
	in.CreatedAt = s.Now().UTC()
	in.UpdatedAt = in.CreatedAt
	if in.BranchName == "" {
		in.BranchName = smriti.MainBranch
	}
	var out *proposal.Proposal
	var replaced []*proposal.Proposal
	err := s.tx(ctx, func(tx *sql.Tx) error {
		replaced = nil
		if err := s.requireRole(ctx, tx, in.SpaceID, account.NeedWrite); err != nil {
			return err
		}
		if err := s.checkProposalRefs(ctx, tx, &in); err != nil {
			return err
		}
		if replace {
			old, err := dbx.QueryAll(ctx, s.d, tx, "list replaced proposals", scanProposal, `SELECT `+proposalCols+visibleProposal+
				` AND p.space_id = ? AND p.session_id = ? AND p.source = ? AND p.status = ?`,
				smriti.UserFromContext(ctx), in.SpaceID, *in.SessionID, in.Source, proposal.Pending)
			if err != nil {
				return err
			}
			for _, o := range old {
				if _, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE proposals SET status = ?, updated_at = ?, decided_at = ? WHERE id = ? AND status = ?`),
					proposal.Superseded, s.d.T(in.CreatedAt), s.d.T(in.CreatedAt), o.ID, proposal.Pending); err != nil {
					return fmt.Errorf("supersede proposal: %w", err)
				}
				o, err := s.proposal(ctx, tx, o.ID)
				if err != nil {
					return err
				}
				replaced = append(replaced, o)
			}
		}
		if err := s.insertProposal(ctx, tx, &in); err != nil {
			return err
		}
		var err error
		out, err = s.proposal(ctx, tx, in.ID)
		return err
	})
	return out, replaced, err
}

func (s *Store) insertProposal(ctx context.Context, tx *sql.Tx, p *proposal.Proposal) error {
	_, err := tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO proposals (id, space_id, session_id, base_checkpoint_id, branch_name, title,
		source, status, draft, checkpoint_id, created_at, updated_at, decided_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		p.ID, p.SpaceID, dbx.IDArg(p.SessionID), dbx.IDArg(p.BaseCheckpointID), p.BranchName, p.Draft.Content.Message, p.Source, p.Status,
		EncodeProposalDraft(p.Draft), dbx.IDArg(p.CheckpointID), s.d.T(p.CreatedAt), s.d.T(p.UpdatedAt), s.d.OptT(p.DecidedAt))
	if err != nil {
		return fmt.Errorf("insert proposal: %w", err)
	}
	return nil
}

// checkProposalRefs: the session and the base must be the space's.
func (s *Store) checkProposalRefs(ctx context.Context, q dbx.Querier, p *proposal.Proposal) error {
	if p.BaseCheckpointID != nil {
		ref, err := s.refInSpace(ctx, q, p.SpaceID, *p.BaseCheckpointID)
		if err != nil {
			return err
		}
		if ref == nil {
			return smriti.Errorf(smriti.ENOTFOUND, "base_checkpoint_id: no such checkpoint in this space")
		}
	}
	if p.SessionID != nil {
		var space uuid.NullUUID
		err := q.QueryRowContext(ctx, s.d.Rebind(`SELECT space_id FROM sessions WHERE id = ? AND `+sessionVisible),
			*p.SessionID, smriti.UserFromContext(ctx), smriti.UserFromContext(ctx)).Scan(&space)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("look up session: %w", err)
		}
		if err != nil || !space.Valid || space.UUID != p.SpaceID {
			return smriti.Errorf(smriti.ENOTFOUND, "session_id: no such session in this space")
		}
	}
	return nil
}

// Proposal implements proposal.Service.
func (s *Store) Proposal(ctx context.Context, id smriti.ID) (*proposal.Proposal, error) {
	return s.proposal(ctx, s.read, id)
}

// Proposals implements proposal.Service.
func (s *Store) Proposals(ctx context.Context, space smriti.ID, status string) ([]*proposal.Proposal, error) {
	if status != "" && !proposal.ValidStatus(status) {
		return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "status must be pending, accepted, rejected or superseded")
	}
	if _, err := s.space(ctx, s.read, space); err != nil {
		return nil, err
	}
	q := `SELECT ` + proposalCols + visibleProposal + ` AND p.space_id = ?`
	args := []any{smriti.UserFromContext(ctx), space}
	if status != "" {
		q += ` AND p.status = ?`
		args = append(args, status)
	}
	args = append(args, smriti.ListCap)
	return dbx.QueryAll(ctx, s.d, s.read, "list proposals", scanProposal, q+` ORDER BY p.created_at DESC, p.id DESC LIMIT ?`, args...)
}

// UpdateProposalDraft implements proposal.Service.
func (s *Store) UpdateProposalDraft(ctx context.Context, id smriti.ID, d smriti.ProposalDraft) (*proposal.Proposal, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	var out *proposal.Proposal
	err := s.tx(ctx, func(tx *sql.Tx) error {
		p, err := s.writableProposal(ctx, tx, id)
		if err != nil {
			return err
		}
		if p.Status != proposal.Pending {
			return smriti.Errorf(smriti.ECONFLICT, "Proposal %s is %s; only a pending proposal can be edited", id, p.Status)
		}
		if _, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE proposals SET draft = ?, title = ?, updated_at = ? WHERE id = ?`),
			EncodeProposalDraft(d), d.Content.Message, s.d.T(s.Now()), id); err != nil {
			return fmt.Errorf("update proposal: %w", err)
		}
		out, err = s.proposal(ctx, tx, id)
		return err
	})
	return out, err
}

// writableProposal is the proposal, after checking the caller may write
// to its space.
func (s *Store) writableProposal(ctx context.Context, tx *sql.Tx, id smriti.ID) (*proposal.Proposal, error) {
	p, err := s.proposal(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	if err := s.requireRole(ctx, tx, p.SpaceID, account.NeedWrite); err != nil {
		return nil, err
	}
	return p, nil
}

// SetProposalStatus implements proposal.Service.
func (s *Store) SetProposalStatus(ctx context.Context, id smriti.ID, from, to string, checkpoint *smriti.ID) (*proposal.Proposal, error) {
	if !proposal.ValidStatus(from) || !proposal.ValidStatus(to) {
		return nil, smriti.Errorf(smriti.EINVALID, "a proposal's status is pending, accepted, rejected or superseded")
	}
	var out *proposal.Proposal
	err := s.tx(ctx, func(tx *sql.Tx) error {
		p, err := s.writableProposal(ctx, tx, id)
		if err != nil {
			return err
		}
		if p.Status != from {
			return smriti.Errorf(smriti.ECONFLICT, "Proposal %s is already %s", id, p.Status)
		}
		now := s.Now().UTC()
		decidedAt := &now
		if to == proposal.Pending {
			decidedAt = nil
		}
		res, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE proposals SET status = ?, checkpoint_id = ?, updated_at = ?, decided_at = ?
			WHERE id = ? AND status = ?`), to, dbx.IDArg(checkpoint), s.d.T(now), s.d.OptT(decidedAt), id, from)
		if err != nil {
			return fmt.Errorf("update proposal: %w", err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return smriti.Errorf(smriti.ECONFLICT, "Proposal %s changed meanwhile; read it again", id)
		}
		out, err = s.proposal(ctx, tx, id)
		return err
	})
	return out, err
}
