package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"smriti/coord"
	"smriti/internal/textutil"

	"github.com/google/uuid"

	"smriti"
	"smriti/store/internal/dbx"
)

var _ coord.StateService = (*Store)(nil)

// maxBranchHeads bounds how many active branch heads one brief reads (the
// brief shows ActiveBranchesCap of them and counts the rest).
const maxBranchHeads = 1000

// readTx runs fn in a read-only transaction: one snapshot on SQLite (WAL),
// repeatable read on PostgreSQL, so every query of fn sees the same state.
func (s *Store) readTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	opts := &sql.TxOptions{ReadOnly: true}
	if s.d.Name == "postgres" {
		opts.Isolation = sql.LevelRepeatableRead
	}
	tx, err := s.read.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("begin read: %w", err)
	}
	defer tx.Rollback()
	return fn(tx)
}

// SpaceState implements coord.StateService. It reads in one transaction
// with a fixed number of queries whatever the number of branches, claims or
// checkpoints: space, main head, latest session, active branch heads, live
// claims (with base hash and worktree), and — when asked — the session, the
// since checkpoint and main's checkpoints after it, plus a count for each
// list that was cut (at most 10 queries).
func (s *Store) SpaceState(ctx context.Context, spaceID smriti.ID, q coord.StateQuery) (*coord.StateBrief, error) {
	var b *coord.StateBrief
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		var err error
		b, err = s.spaceState(ctx, tx, spaceID, q)
		return err
	})
	return b, err
}

func (s *Store) spaceState(ctx context.Context, tx *sql.Tx, spaceID smriti.ID, q coord.StateQuery) (*coord.StateBrief, error) {
	sp, err := s.space(ctx, tx, spaceID)
	if err != nil {
		return nil, err
	}
	b := &coord.StateBrief{Space: sp, Branches: []coord.BranchHead{}, Claims: []coord.ActiveClaim{}}
	heads, err := s.queryCheckpoints(ctx, tx, `SELECT `+checkpointCols+` FROM checkpoints c WHERE c.space_id = ? AND c.branch_name = ?
		ORDER BY c.log_pos DESC LIMIT 1`, spaceID, smriti.MainBranch)
	if err != nil {
		return nil, err
	}
	if len(heads) == 1 {
		b.Head = heads[0]
	}
	latest, err := s.querySessions(ctx, tx, `SELECT `+sessionCols+` FROM sessions WHERE space_id = ?
		ORDER BY updated_at DESC, id DESC LIMIT 1`, spaceID)
	if err != nil {
		return nil, err
	}
	if len(latest) == 1 {
		b.LatestSession = latest[0]
	}
	if q.SessionID != nil {
		se, err := s.session(ctx, tx, *q.SessionID, "")
		if err != nil {
			return nil, err
		}
		if !se.InSpace(spaceID) {
			return nil, smriti.Errorf(smriti.ENOTFOUND, "session_id: no such session in this space")
		}
		if se.Mount != nil {
			m := &coord.MountedCheckpoint{SessionID: se.ID, CheckpointID: se.Mount.CheckpointID}
			err := tx.QueryRowContext(ctx, s.d.Rebind(`SELECT commit_hash, message FROM checkpoints WHERE id = ?`), m.CheckpointID).
				Scan(&m.Hash, &m.Message)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return nil, fmt.Errorf("mounted checkpoint: %w", err)
			}
			if err == nil {
				b.Mount = m
			}
		}
	}
	branches, err := s.activeBranchHeads(ctx, tx, spaceID)
	if err != nil {
		return nil, err
	}
	b.Divergence, b.MoreDivergent = coord.ComputeDivergence(b.Head, branches)
	if len(branches) > coord.ActiveBranchesCap {
		b.MoreBranches = len(branches) - coord.ActiveBranchesCap
		branches = branches[:coord.ActiveBranchesCap]
	}
	b.Branches = branches
	if b.Claims, b.MoreClaims, err = s.liveClaims(ctx, tx, spaceID); err != nil {
		return nil, err
	}
	if q.Since != nil {
		if b.Freshness, err = s.freshness(ctx, tx, spaceID, *q.Since, b.Head); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// activeBranchHeads returns the newest checkpoint of every branch that has
// an active session, newest first. One query: each head is an index seek.
func (s *Store) activeBranchHeads(ctx context.Context, q dbx.Querier, spaceID smriti.ID) ([]coord.BranchHead, error) {
	rows, err := q.QueryContext(ctx, s.d.Rebind(`SELECT c.branch_name, c.id, c.commit_hash, c.message, c.author_agent, c.summary,
		c.decisions, c.created_at
		FROM (SELECT DISTINCT branch_name FROM sessions WHERE space_id = ? AND branch_name <> ? AND branch_disposition = ?) b
		JOIN checkpoints c ON c.id = (SELECT h.id FROM checkpoints h WHERE h.space_id = ? AND h.branch_name = b.branch_name
			ORDER BY h.log_pos DESC LIMIT 1)
		ORDER BY c.log_pos DESC LIMIT ?`),
		spaceID, smriti.MainBranch, smriti.DispositionActive, spaceID, maxBranchHeads)
	if err != nil {
		return nil, fmt.Errorf("active branches: %w", err)
	}
	defer rows.Close()
	out := []coord.BranchHead{}
	for rows.Next() {
		var h coord.BranchHead
		var agent sql.NullString
		var created dbx.Time
		if err := rows.Scan(&h.Branch, &h.CheckpointID, &h.Hash, &h.Message, &agent, &h.Summary, dbx.JSONCol{Dst: &h.Decisions}, &created); err != nil {
			return nil, fmt.Errorf("active branches: %w", err)
		}
		if agent.Valid {
			h.AuthorAgent = &agent.String
		}
		h.Summary = textutil.Truncate(h.Summary, coord.BranchSummaryCap)
		h.CreatedAt = created.Time
		out = append(out, h)
	}
	return out, rows.Err()
}

// liveClaims returns the newest live claims with their base checkpoint's
// hash and their worktree when it is still active, and how many more there
// are.
func (s *Store) liveClaims(ctx context.Context, q dbx.Querier, spaceID smriti.ID) ([]coord.ActiveClaim, int, error) {
	now := s.d.T(s.Now())
	rows, err := q.QueryContext(ctx, s.d.Rebind(`SELECT `+claimCols+`, b.commit_hash,
		w.id, w.agent, w.path, w.branch_name, w.base_commit_sha, w.status, w.created_at
		FROM claims cl LEFT JOIN checkpoints b ON b.id = cl.base_checkpoint_id
		LEFT JOIN worktrees w ON w.id = cl.worktree_id AND w.status = ?
		WHERE cl.space_id = ? AND cl.status = ? AND cl.expires_at > ?
		ORDER BY cl.claimed_at DESC, cl.id DESC LIMIT ?`),
		coord.WorktreeActive, spaceID, coord.ClaimActive, now, coord.ActiveClaimsCap+1)
	if err != nil {
		return nil, 0, fmt.Errorf("live claims: %w", err)
	}
	defer rows.Close()
	out := []coord.ActiveClaim{}
	for rows.Next() {
		var base, wAgent, wPath, wBranch, wBase, wStatus sql.NullString
		var wID uuid.NullUUID
		var wCreated dbx.Time
		c, err := scanClaim(rows, &base, &wID, &wAgent, &wPath, &wBranch, &wBase, &wStatus, &wCreated)
		if err != nil {
			return nil, 0, fmt.Errorf("live claims: %w", err)
		}
		ac := coord.ActiveClaim{Claim: *c, BaseHash: base.String}
		if wID.Valid {
			ac.Worktree = &coord.Worktree{ID: wID.UUID, SpaceID: spaceID, Agent: wAgent.String, Path: wPath.String,
				BranchName: wBranch.String, BaseCommitSHA: strPtr(nullStr(wBase)), Status: wStatus.String, CreatedAt: wCreated.Time}
		}
		out = append(out, ac)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("live claims: %w", err)
	}
	rows.Close()
	more := 0
	if len(out) > coord.ActiveClaimsCap {
		out = out[:coord.ActiveClaimsCap]
		var n int
		if err := q.QueryRowContext(ctx, s.d.Rebind(`SELECT COUNT(*) FROM claims WHERE space_id = ? AND status = ? AND expires_at > ?`),
			spaceID, coord.ClaimActive, now).Scan(&n); err != nil {
			return nil, 0, fmt.Errorf("count claims: %w", err)
		}
		more = n - coord.ActiveClaimsCap
	}
	return out, more, nil
}

func nullStr(n sql.NullString) *string {
	if !n.Valid {
		return nil
	}
	return &n.String
}

// freshness lists main's checkpoints written after the one the caller saw
// (by log position, so "after" is exact).
func (s *Store) freshness(ctx context.Context, q dbx.Querier, spaceID, since smriti.ID, head *smriti.Checkpoint) (*coord.Freshness, error) {
	var sinceHash string
	var sincePos int64
	err := q.QueryRowContext(ctx, s.d.Rebind(`SELECT commit_hash, log_pos FROM checkpoints WHERE id = ? AND space_id = ?`),
		since, spaceID).Scan(&sinceHash, &sincePos)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, smriti.Errorf(smriti.ENOTFOUND, "since_commit_id: no such checkpoint in this space")
	}
	if err != nil {
		return nil, fmt.Errorf("freshness: %w", err)
	}
	f := &coord.Freshness{SinceHash: sinceHash, New: []coord.FreshCheckpoint{}}
	if head == nil {
		return f, nil
	}
	f.CurrentHeadHash = head.Hash
	if head.LogPos <= sincePos {
		return f, nil
	}
	rows, err := q.QueryContext(ctx, s.d.Rebind(`SELECT id, commit_hash, author_agent, message, created_at FROM checkpoints
		WHERE space_id = ? AND branch_name = ? AND log_pos > ? ORDER BY log_pos DESC LIMIT ?`),
		spaceID, smriti.MainBranch, sincePos, coord.FreshnessListCap+1)
	if err != nil {
		return nil, fmt.Errorf("freshness: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var c coord.FreshCheckpoint
		var agent sql.NullString
		var created dbx.Time
		if err := rows.Scan(&c.ID, &c.Hash, &agent, &c.Message, &created); err != nil {
			return nil, fmt.Errorf("freshness: %w", err)
		}
		c.AuthorAgent, c.CreatedAt = nullStr(agent), created.Time
		f.New = append(f.New, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("freshness: %w", err)
	}
	rows.Close()
	f.NewCount = len(f.New)
	if len(f.New) > coord.FreshnessListCap {
		f.New = f.New[:coord.FreshnessListCap]
		if err := q.QueryRowContext(ctx, s.d.Rebind(`SELECT COUNT(*) FROM checkpoints WHERE space_id = ? AND branch_name = ? AND log_pos > ?`),
			spaceID, smriti.MainBranch, sincePos).Scan(&f.NewCount); err != nil {
			return nil, fmt.Errorf("freshness count: %w", err)
		}
	}
	f.Changed = f.NewCount > 0
	return f, nil
}
