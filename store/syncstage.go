package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"smriti"
	"smriti/internal/textutil"
	"smriti/records"
	"smriti/remote"
	"smriti/store/internal/dbx"
)

// verifySyncCheckpoint recomputes a received checkpoint's hash from its
// content and its parents' hashes (found by hashOf), and refuses a record
// whose hash does not recompute or whose parent is missing, naming it.
func verifySyncCheckpoint(c *smriti.Checkpoint, hashOf func(smriti.ID) (string, bool, error)) error {
	ph, mh := "", ""
	for i, p := range []*smriti.ID{c.ParentID, c.MergeParentID} {
		if p == nil {
			continue
		}
		h, ok, err := hashOf(*p)
		if err != nil {
			return err
		}
		if !ok {
			return smriti.Errorf(smriti.EUNPROCESSABLE, "checkpoint %s (%s) arrived before its parent %s; nothing after it was stored", c.ID, textutil.ShortHash(c.Hash), *p)
		}
		if i == 0 {
			ph = h
		} else {
			mh = h
		}
	}
	if c.HashVersion >= 2 && c.Items == nil {
		c.Items = []smriti.Item{}
	}
	if !c.HashProvable() {
		return nil // an older version's purged checkpoint: its hash is taken as sent
	}
	if got := c.ComputeHash(ph, mh); got != c.Hash {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "checkpoint %s does not verify: its content hashes to %s, not %s as it claims; it was refused and nothing after it was stored",
			c.ID, textutil.ShortHash(got), textutil.ShortHash(c.Hash))
	}
	return nil
}

// localHash looks a checkpoint of the space up in the checkpoints table.
func (s *Store) localHash(ctx context.Context, q dbx.Querier, space, id smriti.ID) (string, bool, error) {
	ref, err := s.refInSpace(ctx, q, space, id)
	if err != nil || ref == nil {
		return "", false, err
	}
	return ref.hash, true, nil
}

// stagedHash looks a checkpoint up among the space's staged records.
func (s *Store) stagedHash(ctx context.Context, q dbx.Querier, space, id smriti.ID) (string, bool, error) {
	var h sql.NullString
	err := q.QueryRowContext(ctx, s.d.Rebind(`SELECT commit_hash FROM sync_staged WHERE space_id = ? AND kind = 'checkpoint' AND record_id = ?`),
		space, id.String()).Scan(&h)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("look up staged checkpoint: %w", err)
	}
	return h.String, true, nil
}

// stageChunk is how many records a fetch stages per transaction: a fetch
// cut off keeps what it verified, parents always before children.
const stageChunk = 256

// StageRecords keeps the records of a fetch answer from a remote, verified
// as they arrive — a checkpoint's parents must be stored or staged and its
// hash must recompute, else the fetch stops with an error naming it and
// nothing after it is written — without touching any local branch. What
// is stored or staged already is skipped, so a fetch run again writes
// nothing and one cut off resumes. It returns what it staged.
func (s *Store) StageRecords(ctx context.Context, space smriti.ID, name string, rd records.Reader) (remote.Counts, error) {
	var total remote.Counts
	done := false
	for !done {
		var chunk remote.Counts
		err := s.tx(ctx, func(tx *sql.Tx) error {
			chunk = remote.Counts{}
			if err := s.lockSpace(ctx, tx, space, s.Now()); err != nil {
				return err
			}
			var seq int64
			if err := tx.QueryRowContext(ctx, s.d.Rebind(`SELECT COALESCE(MAX(seq), 0) FROM sync_staged WHERE space_id = ?`), space).Scan(&seq); err != nil {
				return fmt.Errorf("stage: %w", err)
			}
			for n := 0; n < stageChunk; n++ {
				rec, err := rd.Next()
				if errors.Is(err, io.EOF) {
					done = true
					return nil
				}
				if err != nil {
					return err
				}
				staged, err := s.stageOne(ctx, tx, space, name, seq+1, rec)
				if err != nil {
					return err
				}
				if staged {
					seq++
					switch rec.Type {
					case records.RecordCheckpoint:
						chunk.Checkpoints++
					case records.RecordSession:
						chunk.Sessions++
					case records.RecordTurn:
						chunk.Turns++
					}
				}
			}
			return nil
		})
		if err != nil {
			return total, err
		}
		total.Checkpoints += chunk.Checkpoints
		total.Sessions += chunk.Sessions
		total.Turns += chunk.Turns
	}
	return total, nil
}

func (s *Store) stageOne(ctx context.Context, tx *sql.Tx, space smriti.ID, name string, seq int64, rec *records.BundleRecord) (bool, error) {
	var kind, id string
	var hash, branch any
	switch rec.Type {
	case records.RecordCheckpoint:
		c := rec.Checkpoint.CheckpointOf(space)
		kind, id, hash, branch = records.RecordCheckpoint, c.ID.String(), c.Hash, c.BranchName
		if h, ok, err := s.localHash(ctx, tx, space, c.ID); err != nil {
			return false, err
		} else if ok {
			return false, sameHash(c, h)
		}
		if h, ok, err := s.stagedHash(ctx, tx, space, c.ID); err != nil {
			return false, err
		} else if ok {
			return false, sameHash(c, h)
		}
		err := verifySyncCheckpoint(c, func(p smriti.ID) (string, bool, error) {
			if h, ok, err := s.localHash(ctx, tx, space, p); err != nil || ok {
				return h, ok, err
			}
			return s.stagedHash(ctx, tx, space, p)
		})
		if err != nil {
			return false, err
		}
	case records.RecordSession:
		kind, id = records.RecordSession, rec.Session.ID.String()
		if ok, err := s.exists(ctx, tx, "sessions", rec.Session.ID); err != nil || ok {
			return false, err
		}
	case records.RecordTurn:
		kind, id = records.RecordTurn, rec.Turn.ID.String()
		if ok, err := s.exists(ctx, tx, "turns", rec.Turn.ID); err != nil || ok {
			return false, err
		}
	default:
		return false, nil
	}
	var n int
	if err := tx.QueryRowContext(ctx, s.d.Rebind(`SELECT COUNT(*) FROM sync_staged WHERE space_id = ? AND kind = ? AND record_id = ?`),
		space, kind, id).Scan(&n); err != nil {
		return false, fmt.Errorf("stage: %w", err)
	}
	if n > 0 {
		return false, nil
	}
	body, err := json.Marshal(rec)
	if err != nil {
		return false, fmt.Errorf("stage: %w", err)
	}
	if _, err := tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO sync_staged (space_id, seq, remote, kind, record_id, commit_hash, branch_name, record)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`), space, seq, name, kind, id, hash, branch, string(body)); err != nil {
		return false, fmt.Errorf("stage: %w", err)
	}
	return true, nil
}

func sameHash(c *smriti.Checkpoint, stored string) error {
	if stored != c.Hash {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "checkpoint %s arrived with hash %s but this copy holds it with hash %s; history is never rewritten, so it was refused",
			c.ID, textutil.ShortHash(c.Hash), textutil.ShortHash(stored))
	}
	return nil
}

func (s *Store) exists(ctx context.Context, q dbx.Querier, table string, id smriti.ID) (bool, error) {
	var n int
	if err := q.QueryRowContext(ctx, s.d.Rebind(`SELECT COUNT(*) FROM `+table+` WHERE id = ?`), id).Scan(&n); err != nil {
		return false, fmt.Errorf("look up %s: %w", strings.TrimSuffix(table, "s"), err)
	}
	return n > 0, nil
}

// StagedCheckpoint returns a checkpoint fetched and not yet applied, with
// its items. ENOTFOUND when no such checkpoint is staged.
func (s *Store) StagedCheckpoint(ctx context.Context, space, id smriti.ID) (*smriti.Checkpoint, error) {
	if _, err := s.Space(ctx, space); err != nil {
		return nil, err
	}
	var body string
	err := s.read.QueryRowContext(ctx, s.d.Rebind(`SELECT record FROM sync_staged WHERE space_id = ? AND kind = 'checkpoint' AND record_id = ?`),
		space, id.String()).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, smriti.Errorf(smriti.ENOTFOUND, "checkpoint %s is not among the fetched checkpoints", id)
	}
	if err != nil {
		return nil, fmt.Errorf("staged checkpoint: %w", err)
	}
	var rec records.BundleRecord
	if err := json.Unmarshal([]byte(body), &rec); err != nil || rec.Checkpoint == nil {
		return nil, fmt.Errorf("staged checkpoint %s: unreadable record", id)
	}
	return rec.Checkpoint.CheckpointOf(space), nil
}

// StagedFrontier walks a staged checkpoint's ancestry through the staged
// records and returns the stored checkpoints it reaches (the newest common
// history with this copy) and how many staged checkpoints the walk passed.
func (s *Store) StagedFrontier(ctx context.Context, space, head smriti.ID) ([]smriti.ID, int, error) {
	seen := map[smriti.ID]bool{}
	var frontier []smriti.ID
	queue := []smriti.ID{head}
	passed := 0
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		if seen[id] {
			continue
		}
		seen[id] = true
		c, err := s.StagedCheckpoint(ctx, space, id)
		if smriti.ErrorCode(err) == smriti.ENOTFOUND {
			if ok, lerr := s.exists(ctx, s.read, "checkpoints", id); lerr != nil {
				return nil, 0, lerr
			} else if ok {
				frontier = append(frontier, id)
			}
			continue
		}
		if err != nil {
			return nil, 0, err
		}
		passed++
		for _, p := range []*smriti.ID{c.ParentID, c.MergeParentID} {
			if p != nil {
				queue = append(queue, *p)
			}
		}
	}
	return frontier, passed, nil
}

// StagedCount counts the checkpoints fetched from a remote on a branch and
// not yet applied.
func (s *Store) StagedCount(ctx context.Context, space smriti.ID, name, branch string) (int, error) {
	var n int
	err := s.read.QueryRowContext(ctx, s.d.Rebind(`SELECT COUNT(*) FROM sync_staged WHERE space_id = ? AND remote = ? AND kind = 'checkpoint' AND branch_name = ?`),
		space, name, branch).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count staged: %w", err)
	}
	return n, nil
}
