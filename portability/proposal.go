package portability

import (
	"encoding/json"
	"smriti/internal/textutil"
	"smriti/proposal"

	"smriti"
)

// checkProposal checks a proposal record: it comes after the sessions and
// claims, and names only sessions and checkpoints of the bundle.
func (br *BundleReader) checkProposal(p *BundleProposal, bad func(string, ...any) error, fresh func(smriti.ID) error) error {
	if p == nil || br.stage == stageSpace || br.stage == stageEnd {
		return bad("proposals come after the sessions, their turns and the claims")
	}
	if err := fresh(p.ID); err != nil {
		return err
	}
	if p.SessionID != nil && !br.sessions[*p.SessionID] {
		return bad("proposal %s names session %s, which is not in this bundle", p.ID, *p.SessionID)
	}
	for _, c := range []*smriti.ID{p.BaseCheckpointID, p.CheckpointID} {
		if c != nil {
			if _, ok := br.hashes[*c]; !ok {
				return bad("proposal %s names checkpoint %s, which is not in this bundle", p.ID, *c)
			}
		}
	}
	if !proposal.ValidStatus(p.Status) {
		return bad("proposal %s has status %q", p.ID, textutil.Truncate(p.Status, 32))
	}
	ok := false
	for _, s := range proposal.Sources {
		ok = ok || s == p.Source
	}
	if !ok {
		return bad("proposal %s has source %q", p.ID, textutil.Truncate(p.Source, 32))
	}
	var obj map[string]any
	if p.BranchName == "" || p.Title == "" || json.Unmarshal(p.Draft, &obj) != nil || obj == nil {
		return bad("proposal %s needs a branch, a title and a draft object", p.ID)
	}
	br.stage = stageProposals
	br.curSession = nil
	br.counts.Proposals++
	return nil
}
