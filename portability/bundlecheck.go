package portability

import (
	"fmt"

	"smriti"
	"smriti/coord"
	"smriti/internal/textutil"
)

// Stages in the order records must come.
const (
	stageSpace = iota
	stageCheckpoints
	stageSessions
	stageClaims
	stageProposals
	stageEnd
)

// recordChecks checks each kind of record against what the bundle held
// before it, and records what it adds.
var recordChecks = map[string]func(recordCheck) error{
	RecordSpace:      recordCheck.checkSpace,
	RecordCheckpoint: recordCheck.checkCheckpoint,
	RecordSession:    recordCheck.checkSession,
	RecordTurn:       recordCheck.checkTurn,
	RecordClaim:      recordCheck.checkClaim,
	RecordReceipt:    recordCheck.checkReceipt,
	RecordProposal:   recordCheck.checkProposal,
	RecordEnd:        recordCheck.checkEnd,
}

func (br *BundleReader) check(rec *BundleRecord) error {
	k := recordCheck{br: br, rec: rec}
	check, ok := recordChecks[rec.Type]
	if !ok {
		return k.bad("unknown record type")
	}
	return check(k)
}

// recordCheck is one record being checked.
type recordCheck struct {
	br  *BundleReader
	rec *BundleRecord
}

func (k recordCheck) bad(format string, args ...any) error {
	return smriti.Errorf(smriti.EUNPROCESSABLE, "bundle record %d (%s): %s", k.br.line, k.rec.Type, fmt.Sprintf(format, args...))
}

// fresh refuses a missing id or one the bundle had already.
func (k recordCheck) fresh(id smriti.ID) error {
	if id == smriti.NilID {
		return k.bad("the id is missing")
	}
	if k.br.ids[id] {
		return k.bad("id %s appears twice", id)
	}
	k.br.ids[id] = true
	return nil
}

func (k recordCheck) checkSpace() error {
	if k.rec.Space == nil || k.br.stage != stageSpace {
		return k.bad("a bundle has exactly one space record, right after the header")
	}
	if err := k.fresh(k.rec.Space.ID); err != nil {
		return err
	}
	if k.rec.Space.Name == "" {
		return k.bad("the space has no name")
	}
	k.br.space, k.br.stage = k.rec.Space, stageCheckpoints
	return nil
}

func (k recordCheck) checkCheckpoint() error {
	c := k.rec.Checkpoint
	if c == nil || k.br.stage != stageCheckpoints {
		return k.bad("checkpoints come after the space and before the sessions")
	}
	if err := k.fresh(c.ID); err != nil {
		return err
	}
	for _, p := range []*smriti.ID{c.ParentID, c.MergeParentID} {
		if p != nil {
			if _, ok := k.br.hashes[*p]; !ok {
				return k.bad("checkpoint %s names parent %s, which is not an earlier checkpoint of this bundle", c.ID, *p)
			}
		}
	}
	if c.BranchName == "" || c.Message == "" {
		return k.bad("checkpoint %s has no branch or no message", c.ID)
	}
	switch c.AuthorType {
	case smriti.AuthorUser, smriti.AuthorLLM, smriti.AuthorAgent, smriti.AuthorSystem:
	default:
		return k.bad("checkpoint %s has author_type %q", c.ID, textutil.Truncate(c.AuthorType, 32))
	}
	var cp *smriti.Checkpoint
	if k.br.VerifyHashes {
		cp = c.CheckpointOf(k.br.space.ID)
	}
	if cp != nil && cp.HashProvable() {
		ph, mh := "", ""
		if c.ParentID != nil {
			ph = k.br.hashes[*c.ParentID]
		}
		if c.MergeParentID != nil {
			mh = k.br.hashes[*c.MergeParentID]
		}
		if got := cp.ComputeHash(ph, mh); got != c.CommitHash {
			return k.bad("checkpoint %s (%s, %q) does not verify: its content hashes to %s, not its commit_hash %s",
				c.ID, textutil.ShortHash(c.CommitHash), textutil.Truncate(c.Message, 60), textutil.ShortHash(got), textutil.ShortHash(c.CommitHash))
		}
	}
	for _, it := range c.Items {
		if err := smriti.ValidateRefs(it.Refs); err != nil {
			return k.bad("item %s of checkpoint %s: %s", textutil.Truncate(it.ID, 20), c.ID, smriti.ErrorMessage(err))
		}
	}
	for _, n := range c.Notes {
		if err := k.fresh(n.ID); err != nil {
			return err
		}
		if n.Kind != smriti.NoteKindNote && n.Kind != smriti.NoteKindMilestone && n.Kind != smriti.NoteKindNoise {
			return k.bad("note %s has kind %q", n.ID, textutil.Truncate(n.Kind, 32))
		}
	}
	k.br.hashes[c.ID] = c.CommitHash
	k.br.counts.Checkpoints++
	k.br.counts.Notes += len(c.Notes)
	return nil
}

func (k recordCheck) checkSession() error {
	se := k.rec.Session
	if se == nil || (k.br.stage != stageCheckpoints && k.br.stage != stageSessions) {
		return k.bad("sessions come after the checkpoints")
	}
	if err := k.fresh(se.ID); err != nil {
		return err
	}
	for _, p := range []*smriti.ID{se.SeededCheckpointID, se.ForkedFromCheckpointID} {
		if p != nil {
			if _, ok := k.br.hashes[*p]; !ok {
				return k.bad("session %s names checkpoint %s, which is not in this bundle", se.ID, *p)
			}
		}
	}
	switch se.BranchDisposition {
	case smriti.DispositionActive, smriti.DispositionIntegrated, smriti.DispositionAbandoned:
	default:
		return k.bad("session %s has branch_disposition %q", se.ID, textutil.Truncate(se.BranchDisposition, 32))
	}
	if se.BranchName == "" {
		return k.bad("session %s has no branch", se.ID)
	}
	k.br.stage = stageSessions
	k.br.sessions[se.ID] = true
	id := se.ID
	k.br.curSession, k.br.nextSeq = &id, 0
	k.br.counts.Sessions++
	return nil
}

func (k recordCheck) checkTurn() error {
	t := k.rec.Turn
	if t == nil || k.br.stage != stageSessions || k.br.curSession == nil || t.SessionID != *k.br.curSession {
		return k.bad("a turn must follow its session's record and that session's earlier turns")
	}
	if err := k.fresh(t.ID); err != nil {
		return err
	}
	if t.Seq != k.br.nextSeq {
		return k.bad("turn %s has sequence number %d, want %d", t.ID, t.Seq, k.br.nextSeq)
	}
	if t.Role != smriti.RoleUser && t.Role != smriti.RoleAssistant && t.Role != smriti.RoleSystem {
		return k.bad("turn %s has role %q", t.ID, textutil.Truncate(t.Role, 32))
	}
	k.br.nextSeq++
	k.br.counts.Turns++
	return nil
}

func (k recordCheck) checkClaim() error {
	cl := k.rec.Claim
	if cl == nil || k.br.stage == stageSpace || k.br.stage >= stageProposals {
		return k.bad("claims come after the sessions and their turns")
	}
	if err := k.fresh(cl.ID); err != nil {
		return err
	}
	if cl.SessionID != nil && !k.br.sessions[*cl.SessionID] {
		return k.bad("claim %s names session %s, which is not in this bundle", cl.ID, *cl.SessionID)
	}
	if cl.BaseCheckpointID != nil {
		if _, ok := k.br.hashes[*cl.BaseCheckpointID]; !ok {
			return k.bad("claim %s names checkpoint %s, which is not in this bundle", cl.ID, *cl.BaseCheckpointID)
		}
	}
	if !smriti.ValidIntent(cl.Intent) {
		return k.bad("claim %s has intent %q", cl.ID, textutil.Truncate(cl.Intent, 32))
	}
	if cl.Status != coord.ClaimActive && cl.Status != coord.ClaimDone && cl.Status != coord.ClaimAbandoned {
		return k.bad("claim %s has status %q", cl.ID, textutil.Truncate(cl.Status, 32))
	}
	if cl.Scope == "" || cl.BranchName == "" || !cl.ExpiresAt.After(cl.ClaimedAt) {
		return k.bad("claim %s needs a scope, a branch and an expiry after its claim time", cl.ID)
	}
	k.br.stage = stageClaims
	k.br.curSession = nil
	k.br.counts.Claims++
	return nil
}

func (k recordCheck) checkReceipt() error {
	rc := k.rec.Receipt
	if rc == nil || k.br.stage == stageSpace || k.br.stage >= stageProposals {
		return k.bad("receipts come after the sessions and their turns")
	}
	if err := k.fresh(rc.ID); err != nil {
		return err
	}
	if p := receiptProblem(rc); p != "" {
		return k.bad("receipt %s %s", rc.ID, p)
	}
	k.br.stage, k.br.curSession = stageClaims, nil
	k.br.counts.Receipts++
	return nil
}

func (k recordCheck) checkProposal() error {
	return k.br.checkProposal(k.rec.Proposal, k.bad, k.fresh)
}

func (k recordCheck) checkEnd() error {
	if k.rec.End == nil || k.br.stage == stageSpace {
		return k.bad("the end record comes last, after the space")
	}
	if *k.rec.End != k.br.counts {
		return k.bad("the bundle declares %+v but holds %+v", *k.rec.End, k.br.counts)
	}
	k.br.stage = stageEnd
	return nil
}
