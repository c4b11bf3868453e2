package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"

	"smriti"
	"smriti/internal/nonnil"
	"smriti/records"
	"smriti/store/internal/dbx"
)

// spaceImport is one bundle being written inside ImportSpace's
// transaction: the space it makes, the ids it remaps (asNew), each
// session's last sequence number and the mounts to set at the end.
type spaceImport struct {
	s       *Store
	ctx     context.Context
	tx      *sql.Tx
	asNew   bool
	remap   records.Remapper
	user    smriti.ID
	spaceID smriti.ID
	out     *smriti.Space
	lastSeq map[smriti.ID]int64
	logged  *importLog
	mounts  []importedMount
	rows    *importRows
	// triggers are the per-row triggers set aside for the import.
	triggers *suspendedTriggers
}

type importedMount struct {
	session, checkpoint smriti.ID
	base                int64
}

// run reads the bundle and writes each record, then the sessions' last
// sequence numbers, the mounts and the task holds.
func (im *spaceImport) run(br records.Reader) error {
	var err error
	if im.triggers, err = im.s.suspendRowTriggers(im.ctx, im.tx); err != nil {
		return err
	}
	for {
		rec, err := br.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if err := im.write(rec); err != nil {
			return err
		}
	}
	return im.finish()
}

func (im *spaceImport) write(rec *records.BundleRecord) error {
	if rec.Type != records.RecordCheckpoint && rec.Type != records.RecordTurn {
		// claims, receipts and proposals name checkpoints and sessions
		if err := im.rows.flush(); err != nil {
			return err
		}
	}
	switch rec.Type {
	case records.RecordSpace:
		return im.space(rec.Space)
	case records.RecordCheckpoint:
		return im.checkpoint(rec.Checkpoint)
	case records.RecordSession:
		return im.session(rec.Session)
	case records.RecordTurn:
		return im.turn(rec.Turn)
	case records.RecordClaim:
		return im.claim(rec.Claim)
	case records.RecordReceipt:
		return im.s.importReceipt(im.ctx, im.tx, im.spaceID, rec.Receipt, im.remap)
	case records.RecordProposal:
		return im.s.importProposal(im.ctx, im.tx, im.spaceID, rec.Proposal, im.remap)
	}
	return nil
}

func (im *spaceImport) position(order *int64) (int64, error) {
	return im.logged.position(im.ctx, im.s, im.tx, im.spaceID, order)
}

func (im *spaceImport) space(b *records.BundleSpace) error {
	s, ctx, tx := im.s, im.ctx, im.tx
	sp := &smriti.Space{ID: b.ID, Slug: b.Slug, Name: b.Name, Description: b.Description, ProjectRoot: b.ProjectRoot,
		OwnerID: im.user, Metadata: nonnil.Map(b.Metadata), CreatedAt: b.CreatedAt.UTC(), UpdatedAt: b.UpdatedAt.UTC()}
	if im.asNew {
		sp.ID, sp.Slug = im.remap.ID(b.ID), nil
		var err error
		if sp.Name, err = s.freeSpaceName(ctx, tx, im.user, b.Name); err != nil {
			return err
		}
	}
	if err := s.insertImportedSpace(ctx, tx, sp); err != nil {
		return err
	}
	if err := s.importAllowedSecrets(ctx, tx, sp.ID, b.AllowedSecrets); err != nil {
		return err
	}
	im.spaceID, im.out = sp.ID, sp
	return nil
}

func (im *spaceImport) checkpoint(b *records.BundleCheckpoint) error {
	s, ctx, tx := im.s, im.ctx, im.tx
	c := b.CheckpointOf(im.spaceID)
	if im.asNew {
		im.remap.Checkpoint(c)
	}
	var err error
	if c.LogPos, err = im.position(b.LogOrder); err != nil {
		return err
	}
	noteID := func(id smriti.ID) smriti.ID { return id }
	if im.asNew {
		noteID = im.remap.ID
	}
	if c.HashVersion >= 2 {
		return im.rows.checkpoint(c, b.Notes, noteID)
	}
	// A version 1 checkpoint's items are derived from its parent's rows.
	if err := im.rows.flush(); err != nil {
		return err
	}
	return s.writeArrived(ctx, tx, c, b.Notes, noteID)
}

// writeArrived stores a checkpoint that came from elsewhere (a bundle or
// a sync stream) with its hash and log position set: its row, its items
// (derived for a version 1 checkpoint) and its notes, each note's id
// mapped by noteID.
func (s *Store) writeArrived(ctx context.Context, tx *sql.Tx, c *smriti.Checkpoint, notes []records.BundleNote, noteID func(smriti.ID) smriti.ID) error {
	if err := s.writeCheckpointRow(ctx, tx, c); err != nil {
		return importConflict(err)
	}
	var err error
	if c.HashVersion >= 2 {
		err = s.writeItems(ctx, tx, c)
	} else {
		err = s.deriveItems(ctx, tx, c)
	}
	if err != nil {
		return importConflict(err)
	}
	for _, f := range c.Purged {
		if err := s.writePurgedField(ctx, tx, c.ID, f, nil); err != nil {
			return importConflict(err)
		}
	}
	for _, n := range notes {
		if _, err := tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO checkpoint_notes (id, checkpoint_id, author, text, kind, created_at) VALUES (?, ?, ?, ?, ?, ?)`),
			noteID(n.ID), c.ID, n.Author, n.Text, n.Kind, s.d.T(n.CreatedAt)); err != nil {
			return importConflict(fmt.Errorf("import note: %w", err))
		}
	}
	return nil
}

func (im *spaceImport) session(b *records.BundleSession) error {
	s, ctx, tx := im.s, im.ctx, im.tx
	se := &smriti.Session{ID: b.ID, SpaceID: &im.spaceID, OwnerID: im.user, Title: b.Title, ActiveProvider: b.ActiveProvider,
		ActiveModel: b.ActiveModel, SeededCheckpointID: b.SeededCheckpointID, ForkedFromCheckpointID: b.ForkedFromCheckpointID,
		BranchName: b.BranchName, BranchDisposition: b.BranchDisposition, Metadata: nonnil.Map(b.Metadata), LastSeq: -1,
		CreatedAt: b.CreatedAt.UTC(), UpdatedAt: b.UpdatedAt.UTC()}
	if im.asNew {
		se.ID, se.SeededCheckpointID, se.ForkedFromCheckpointID = im.remap.ID(b.ID), im.remap.Opt(b.SeededCheckpointID), im.remap.Opt(b.ForkedFromCheckpointID)
	}
	if err := s.insertSession(ctx, tx, se); err != nil {
		return importConflict(err)
	}
	im.lastSeq[se.ID] = -1
	if b.MountedCheckpointID != nil && b.MountBaseSeq != nil {
		cp := *b.MountedCheckpointID
		if im.asNew {
			cp = im.remap.ID(cp)
		}
		im.mounts = append(im.mounts, importedMount{se.ID, cp, *b.MountBaseSeq})
	}
	if b.Agent != nil {
		return s.importAgentSource(ctx, tx, im.spaceID, se.ID, b.Agent)
	}
	return nil
}

func (im *spaceImport) turn(b *records.BundleTurn) error {
	t := &smriti.Turn{ID: b.ID, SessionID: b.SessionID, SpaceID: &im.spaceID, Role: b.Role, Content: b.Content,
		Provider: b.Provider, Model: b.Model, Seq: b.Seq, Tokens: b.Tokens, Metadata: nonnil.Map(b.Metadata), CreatedAt: b.CreatedAt.UTC()}
	if im.asNew {
		t.ID, t.SessionID = im.remap.ID(b.ID), im.remap.ID(b.SessionID)
	}
	var err error
	if t.LogPos, err = im.position(b.LogOrder); err != nil {
		return err
	}
	im.lastSeq[t.SessionID] = t.Seq
	return im.rows.turn(t)
}

func (im *spaceImport) claim(b *records.BundleClaim) error {
	s := im.s
	id, session, base := b.ID, b.SessionID, b.BaseCheckpointID
	if im.asNew {
		id, session, base = im.remap.ID(b.ID), im.remap.Opt(b.SessionID), im.remap.Opt(b.BaseCheckpointID)
	}
	if _, err := im.tx.ExecContext(im.ctx, s.d.Rebind(`INSERT INTO claims (id, space_id, session_id, agent, branch_name,
		base_checkpoint_id, worktree_id, scope, task_id, intent, status, claimed_at, expires_at, finished_at, lease_seconds)
		VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?)`),
		id, im.spaceID, dbx.IDArg(session), b.Agent, b.BranchName, dbx.IDArg(base), b.Scope, b.TaskID, b.Intent, b.Status,
		s.d.T(b.ClaimedAt), s.d.T(b.ExpiresAt), s.d.OptT(b.FinishedAt), int64Arg(b.LeaseSeconds)); err != nil {
		return importConflict(fmt.Errorf("import claim: %w", err))
	}
	return nil
}

// finish writes the rows still pending, sets each session's last sequence
// number and token total, then the mounts (a session may mount a
// checkpoint written after it), then the task holds.
func (im *spaceImport) finish() error {
	s, ctx, tx := im.s, im.ctx, im.tx
	if err := im.rows.flush(); err != nil {
		return err
	}
	if err := im.logged.complete(); err != nil {
		return err
	}
	if err := im.rows.setSessionTotals(im.lastSeq); err != nil {
		return err
	}
	for _, m := range im.mounts {
		if _, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE sessions SET mounted_checkpoint_id = ?, mount_base_seq = ? WHERE id = ?
			AND EXISTS (SELECT 1 FROM checkpoints WHERE id = ? AND space_id = ?)`), m.checkpoint, m.base, m.session, m.checkpoint, im.spaceID); err != nil {
			return importConflict(fmt.Errorf("import mount: %w", err))
		}
	}
	if im.spaceID != (smriti.ID{}) {
		if err := s.restoreHolds(ctx, tx, im.spaceID); err != nil {
			return err
		}
	}
	return im.triggers.restore(ctx, tx, im.spaceID)
}
