package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"smriti"
	"smriti/proposal"
	"smriti/records"
	"smriti/store/internal/dbx"
)

// exportProposals writes the space's proposals, oldest first.
func (s *Store) exportProposals(ctx context.Context, tx *sql.Tx, space smriti.ID, w records.Writer, counts *records.BundleCounts, private map[smriti.ID]bool) error {
	ps, err := dbx.QueryAll(ctx, s.d, tx, "export proposals", scanProposal,
		`SELECT `+proposalCols+` FROM proposals p WHERE p.space_id = ? ORDER BY p.created_at, p.id`, space)
	if err != nil {
		return err
	}
	for _, p := range ps {
		if p.SessionID != nil && private[*p.SessionID] {
			continue
		}
		counts.Proposals++
		b := &records.BundleProposal{ID: p.ID, SessionID: p.SessionID, BaseCheckpointID: p.BaseCheckpointID,
			BranchName: p.BranchName, Title: p.Draft.Content.Message, Source: p.Source, Status: p.Status,
			Draft: json.RawMessage(EncodeProposalDraft(p.Draft)), CheckpointID: p.CheckpointID,
			CreatedAt: p.CreatedAt.UTC(), UpdatedAt: p.UpdatedAt.UTC(), DecidedAt: p.DecidedAt}
		if err := w.Write(records.BundleRecord{Type: records.RecordProposal, Proposal: b}); err != nil {
			return err
		}
	}
	return nil
}

// importProposal writes a proposal record; remap (an import as new) gives
// it, and the sessions and checkpoints it names, their new ids.
func (s *Store) importProposal(ctx context.Context, tx *sql.Tx, space smriti.ID, b *records.BundleProposal, remap records.Remapper) error {
	d, err := DecodeProposalDraft(string(b.Draft))
	if err != nil {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "proposal %s: the draft is not a proposal's draft", b.ID)
	}
	p := &proposal.Proposal{ID: b.ID, SpaceID: space, SessionID: b.SessionID, BaseCheckpointID: b.BaseCheckpointID,
		BranchName: b.BranchName, Source: b.Source, Status: b.Status, Draft: d, CheckpointID: b.CheckpointID,
		CreatedAt: b.CreatedAt.UTC(), UpdatedAt: b.UpdatedAt.UTC(), DecidedAt: b.DecidedAt}
	if remap != nil {
		p.ID, p.SessionID, p.BaseCheckpointID, p.CheckpointID = remap.ID(b.ID), remap.Opt(b.SessionID), remap.Opt(b.BaseCheckpointID), remap.Opt(b.CheckpointID)
		if st := p.Draft.SourceTurns; st != nil {
			cp := *st
			cp.SessionID = remap.ID(st.SessionID)
			p.Draft.SourceTurns = &cp
		}
		for i := range p.Draft.Items {
			o := &p.Draft.Items[i].Origin
			o.SessionID, o.CheckpointID = remap.Opt(o.SessionID), remap.Opt(o.CheckpointID)
		}
	}
	if err := s.insertProposal(ctx, tx, p); err != nil {
		return importConflict(fmt.Errorf("import proposal: %w", err))
	}
	return nil
}
