package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/google/uuid"

	"smriti"
	"smriti/internal/nonnil"
	"smriti/internal/textutil"
	"smriti/records"
	"smriti/remote"
	"smriti/store/internal/dbx"
)

// syncApply writes received records into the space's tables inside one
// transaction: what is stored already is skipped (a checkpoint only when
// its hash is the same), the rest verified and logged in arrival order.
type syncApply struct {
	s       *Store
	ctx     context.Context
	tx      *sql.Tx
	space   smriti.ID
	lastSeq map[smriti.ID]int64
	counts  remote.Counts
}

func (a *syncApply) record(rec *records.BundleRecord) error {
	switch rec.Type {
	case records.RecordCheckpoint:
		return a.checkpoint(rec.Checkpoint)
	case records.RecordSession:
		return a.session(rec.Session)
	case records.RecordTurn:
		return a.turn(rec.Turn)
	}
	return nil
}

func (a *syncApply) checkpoint(b *records.BundleCheckpoint) error {
	s, ctx, tx := a.s, a.ctx, a.tx
	c := b.CheckpointOf(a.space)
	var stored string
	var space smriti.ID
	err := tx.QueryRowContext(ctx, s.d.Rebind(`SELECT commit_hash, space_id FROM checkpoints WHERE id = ?`), c.ID).Scan(&stored, &space)
	if err == nil {
		if space != a.space {
			return smriti.Errorf(smriti.ECONFLICT, "checkpoint %s belongs to another space on this server", c.ID)
		}
		return sameHash(c, stored)
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("apply checkpoint: %w", err)
	}
	if err := verifySyncCheckpoint(c, func(p smriti.ID) (string, bool, error) { return s.localHash(ctx, tx, a.space, p) }); err != nil {
		return err
	}
	if c.LogPos, err = s.nextLogPositions(ctx, tx, a.space, 1); err != nil {
		return err
	}
	if err := s.writeArrived(ctx, tx, c, b.Notes, func(id smriti.ID) smriti.ID { return id }); err != nil {
		return err
	}
	a.counts.Checkpoints++
	return nil
}

func (a *syncApply) session(b *records.BundleSession) error {
	s, ctx, tx := a.s, a.ctx, a.tx
	if ok, err := s.exists(ctx, tx, "sessions", b.ID); err != nil || ok {
		return err
	}
	for _, ref := range []*smriti.ID{b.SeededCheckpointID, b.ForkedFromCheckpointID} {
		if ref == nil {
			continue
		}
		if _, ok, err := s.localHash(ctx, tx, a.space, *ref); err != nil {
			return err
		} else if !ok {
			return smriti.Errorf(smriti.EUNPROCESSABLE, "session %s starts from checkpoint %s, which has not arrived", b.ID, *ref)
		}
	}
	se := &smriti.Session{ID: b.ID, SpaceID: &a.space, OwnerID: smriti.UserFromContext(ctx), Title: b.Title, ActiveProvider: b.ActiveProvider,
		ActiveModel: b.ActiveModel, SeededCheckpointID: b.SeededCheckpointID, ForkedFromCheckpointID: b.ForkedFromCheckpointID,
		BranchName: b.BranchName, BranchDisposition: b.BranchDisposition, Metadata: nonnil.Map(b.Metadata), LastSeq: -1,
		CreatedAt: b.CreatedAt.UTC(), UpdatedAt: b.UpdatedAt.UTC()}
	if err := s.insertSession(ctx, tx, se); err != nil {
		return importConflict(err)
	}
	a.lastSeq[se.ID] = -1
	a.counts.Sessions++
	return nil
}

func (a *syncApply) turn(b *records.BundleTurn) error {
	s, ctx, tx := a.s, a.ctx, a.tx
	if ok, err := s.exists(ctx, tx, "turns", b.ID); err != nil || ok {
		return err
	}
	last, ok := a.lastSeq[b.SessionID]
	if !ok {
		var space uuid.NullUUID
		err := tx.QueryRowContext(ctx, s.d.Rebind(`SELECT last_seq, space_id FROM sessions WHERE id = ?`), b.SessionID).Scan(&last, &space)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && (!space.Valid || space.UUID != a.space)) {
			return smriti.Errorf(smriti.EUNPROCESSABLE, "turn %s arrived before its session %s", b.ID, b.SessionID)
		}
		if err != nil {
			return fmt.Errorf("apply turn: %w", err)
		}
		a.lastSeq[b.SessionID] = last
	}
	switch {
	case b.Seq <= last:
		// Both copies added a turn at this place in the session: the
		// session's line is not one any more. Keep ours, say so.
		a.counts.Skipped = append(a.counts.Skipped, fmt.Sprintf("turn %d of session %s (this copy has another turn there)", b.Seq, b.SessionID))
		return nil
	case b.Seq > last+1:
		if last >= 0 && len(a.counts.Skipped) > 0 {
			a.counts.Skipped = append(a.counts.Skipped, fmt.Sprintf("turn %d of session %s (follows a skipped turn)", b.Seq, b.SessionID))
			return nil
		}
		return smriti.Errorf(smriti.EUNPROCESSABLE, "turn %d of session %s arrived before turn %d", b.Seq, b.SessionID, last+1)
	}
	t := &smriti.Turn{ID: b.ID, SessionID: b.SessionID, SpaceID: &a.space, Role: b.Role, Content: b.Content,
		Provider: b.Provider, Model: b.Model, Seq: b.Seq, Tokens: b.Tokens, Metadata: nonnil.Map(b.Metadata), CreatedAt: b.CreatedAt.UTC()}
	var err error
	if t.LogPos, err = s.nextLogPositions(ctx, tx, a.space, 1); err != nil {
		return err
	}
	if err := s.insertTurn(ctx, tx, t); err != nil {
		return importConflict(err)
	}
	if _, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE sessions SET last_seq = ?, updated_at = ? WHERE id = ?`), t.Seq, s.d.T(s.Now()), t.SessionID); err != nil {
		return fmt.Errorf("apply turn: %w", err)
	}
	a.lastSeq[b.SessionID] = t.Seq
	a.counts.Turns++
	return nil
}

func (a *syncApply) dropCached() {
	for id := range a.lastSeq {
		a.s.cache.Drop(id)
	}
}

// ApplyPush stores a pushed stream and moves the branch by fast-forward
// only, in one transaction: the branch's head must be the one the pusher
// saw (push.Expect), and after the records it must be push.Head, a
// descendant of it; else ECONFLICT naming both heads (remote.MovedError)
// and nothing is stored. A push whose head is already the branch's head is
// answered as done, so a retried push stores nothing twice.
func (s *Store) ApplyPush(ctx context.Context, space smriti.ID, push remote.Push, rd records.Reader) (remote.Counts, error) {
	var a *syncApply
	err := s.tx(ctx, func(tx *sql.Tx) error {
		a = &syncApply{s: s, ctx: ctx, tx: tx, space: space, lastSeq: map[smriti.ID]int64{}}
		if err := s.lockSpace(ctx, tx, space, s.Now()); err != nil {
			return err
		}
		head, err := s.branchHead(ctx, tx, space, push.Branch)
		if err != nil {
			return err
		}
		var have *string
		if head != nil {
			have = &head.hash
		}
		already := head != nil && head.hash == push.Head
		if !already && !(head == nil && push.Expect == nil) && !(head != nil && push.Expect != nil && head.hash == *push.Expect) {
			return remote.MovedError(push.Branch, have, push.Expect, "")
		}
		for {
			rec, err := rd.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return err
			}
			if err := a.record(rec); err != nil {
				return err
			}
		}
		after, err := s.branchHead(ctx, tx, space, push.Branch)
		if err != nil {
			return err
		}
		if after == nil || after.hash != push.Head {
			return smriti.Errorf(smriti.EUNPROCESSABLE, "the push names %s as the new head of %s, but its records do not end there", textutil.ShortHash(push.Head), push.Branch)
		}
		if head != nil && !already {
			ok, err := s.descends(ctx, tx, after.id, head.id)
			if err != nil {
				return err
			}
			if !ok {
				return remote.MovedError(push.Branch, have, push.Expect, "")
			}
		}
		return nil
	})
	if a != nil {
		a.dropCached()
	}
	if err != nil {
		return remote.Counts{}, err
	}
	return a.counts, nil
}

// descends reports whether ancestor is in id's history. The walk stops at
// checkpoints logged before the ancestor (log order is parent order), so
// its cost follows what was added since.
func (s *Store) descends(ctx context.Context, q dbx.Querier, id, ancestor smriti.ID) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, s.d.Rebind(`WITH RECURSIVE floor (pos) AS (SELECT log_pos FROM checkpoints WHERE id = ?),
		walk (id) AS (
			SELECT id FROM checkpoints WHERE id = ?
			UNION SELECT p.id FROM walk w JOIN checkpoints c ON c.id = w.id JOIN checkpoints p ON p.id IN (c.parent_id, c.merge_parent_id)
			WHERE p.log_pos >= (SELECT pos FROM floor)
		)
		SELECT COUNT(*) FROM walk WHERE id = ?`), ancestor, id, ancestor).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("ancestry: %w", err)
	}
	return n > 0, nil
}

// IntegrateStaged applies what was fetched from a remote — checkpoints,
// sessions and turns, in the order they arrived — and writes the plan's
// merge checkpoint, all in one transaction. It returns the merge
// checkpoint (nil for a fast-forward) and what was applied.
func (s *Store) IntegrateStaged(ctx context.Context, space smriti.ID, name string, plan remote.Integration) (*smriti.Checkpoint, remote.Counts, error) {
	var a *syncApply
	var out *smriti.Checkpoint
	err := s.tx(ctx, func(tx *sql.Tx) error {
		out = nil
		a = &syncApply{s: s, ctx: ctx, tx: tx, space: space, lastSeq: map[smriti.ID]int64{}}
		now := s.Now()
		if err := s.lockSpace(ctx, tx, space, now); err != nil {
			return err
		}
		head, err := s.branchHead(ctx, tx, space, plan.Branch)
		if err != nil {
			return err
		}
		if (head == nil) != (plan.ExpectHead == nil) || (head != nil && head.id != *plan.ExpectHead) {
			return smriti.Errorf(smriti.ECONFLICT, "Branch '%s' moved while the pull was being prepared; run the pull again", plan.Branch)
		}
		after := int64(0)
		for {
			rows, err := tx.QueryContext(ctx, s.d.Rebind(`SELECT seq, record FROM sync_staged WHERE space_id = ? AND remote = ? AND seq > ?
				ORDER BY seq LIMIT ?`), space, name, after, syncPage)
			if err != nil {
				return fmt.Errorf("read staged: %w", err)
			}
			var page []string
			for rows.Next() {
				var body string
				if err := rows.Scan(&after, &body); err != nil {
					rows.Close()
					return fmt.Errorf("read staged: %w", err)
				}
				page = append(page, body)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return fmt.Errorf("read staged: %w", err)
			}
			for _, body := range page {
				var rec records.BundleRecord
				if err := json.Unmarshal([]byte(body), &rec); err != nil {
					return fmt.Errorf("read staged: %w", err)
				}
				if err := a.record(&rec); err != nil {
					return err
				}
			}
			if len(page) < syncPage {
				break
			}
		}
		if _, err := tx.ExecContext(ctx, s.d.Rebind(`DELETE FROM sync_staged WHERE space_id = ? AND remote = ?`), space, name); err != nil {
			return fmt.Errorf("clear staged: %w", err)
		}
		if plan.Merge == nil {
			return nil
		}
		in := *plan.Merge
		parent, err := s.refInSpace(ctx, tx, space, *in.ParentID)
		if err != nil {
			return err
		}
		merge, err := s.refInSpace(ctx, tx, space, *in.MergeParentID)
		if err != nil {
			return err
		}
		if parent == nil || merge == nil {
			return smriti.Errorf(smriti.EUNPROCESSABLE, "the merge's parents are not both stored after the fetched records were applied")
		}
		in.Content.Normalize()
		c := &smriti.Checkpoint{ID: smriti.NewID(), SpaceID: space, BranchName: plan.Branch, AuthorAgent: in.AuthorAgent, AuthorType: in.AuthorType,
			ProjectRoot: in.ProjectRoot, Content: in.Content, Metadata: in.Metadata, CreatedAt: now}
		out, err = s.insertCheckpoint(ctx, tx, c, parent, merge, in.Items, in.Model)
		return err
	})
	if a != nil {
		a.dropCached()
	}
	if err != nil {
		return nil, remote.Counts{}, err
	}
	return out, a.counts, nil
}
