package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"github.com/google/uuid"

	"smriti"
	"smriti/store/internal/dbx"
)

// A send needs its checkpoints' identity on every call and their content
// only when it has not rendered them before (see app's state cache): the
// head queries read the identity columns alone, through statements prepared
// once, so a send's cost does not grow with the size of the state it
// carries.
//
// Most of that identity never changes once a checkpoint is written, and some
// of it (the creation time, the hash version) is stored after the content in
// the row: on SQLite reading it walks the content's overflow pages, which
// every write elsewhere evicts from the readers' page caches. So the send
// path reads only a head's id, hash and log position (the first columns of
// the row and the index) and its message (which a secret purge may
// rewrite in place), and takes the rest from heads, kept by those three.

const checkpointHeadCols = `c.id, c.space_id, c.commit_hash, c.parent_id, c.merge_parent_id, c.branch_name, c.message,
	c.log_pos, c.created_at, c.hash_version`

const sqlCheckpointHeads = `SELECT ` + checkpointHeadCols + visibleCheckpoint + ` AND c.space_id = ? AND c.branch_name = ?
	ORDER BY c.log_pos DESC LIMIT ?`

// sqlHeadKeys is sqlCheckpointHeads reading only what names a head.
const sqlHeadKeys = `SELECT c.id, c.commit_hash, c.log_pos, c.message` + visibleCheckpoint + ` AND c.space_id = ? AND c.branch_name = ?
	ORDER BY c.log_pos DESC LIMIT ?`

// sqlHeadByID reads one head the caller may see.
const sqlHeadByID = `SELECT ` + checkpointHeadCols + visibleCheckpoint + ` AND c.id = ?`

const sqlAncestorHeads = `WITH RECURSIVE chain (id, depth) AS (
		SELECT id, 0 FROM checkpoints WHERE id = ?
		UNION ALL
		SELECT p.parent_id, chain.depth + 1 FROM chain JOIN checkpoints p ON p.id = chain.id
		WHERE p.parent_id IS NOT NULL AND chain.depth + 1 < ?
	)
	SELECT ` + checkpointHeadCols + ` FROM chain JOIN checkpoints c ON c.id = chain.id JOIN spaces sp ON sp.id = c.space_id
	WHERE sp.id` + memberSpace + ` ORDER BY chain.depth DESC`

func scanCheckpointHead(row interface{ Scan(...any) error }) (*smriti.Checkpoint, error) {
	var c smriti.Checkpoint
	var parent, merge uuid.NullUUID
	var created dbx.Time
	if err := row.Scan(&c.ID, &c.SpaceID, &c.Hash, &parent, &merge, &c.BranchName, &c.Message,
		&c.LogPos, &created, &c.HashVersion); err != nil {
		return nil, err
	}
	c.ParentID, c.MergeParentID = dbx.NullID(parent), dbx.NullID(merge)
	c.CreatedAt = created.Time
	return &c, nil
}

func (s *Store) queryHeads(ctx context.Context, query string, args ...any) ([]*smriti.Checkpoint, error) {
	st, err := s.stmts.Prepared(ctx, s.read, query)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("list checkpoint heads: %w", err)
	}
	defer rows.Close()
	out := []*smriti.Checkpoint{}
	for rows.Next() {
		c, err := scanCheckpointHead(rows)
		if err != nil {
			return nil, fmt.Errorf("list checkpoint heads: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list checkpoint heads: %w", err)
	}
	return out, nil
}

// CheckpointHeads implements contract.CheckpointService.
func (s *Store) CheckpointHeads(ctx context.Context, spaceID smriti.ID, branch string, n int) ([]*smriti.Checkpoint, error) {
	keys, err := s.headKeys(ctx, spaceID, branch, max(1, n))
	if err != nil {
		return nil, err
	}
	out := make([]*smriti.Checkpoint, 0, len(keys))
	for _, k := range keys {
		h, err := s.head(ctx, k)
		if err != nil {
			return nil, err
		}
		if h == nil {
			// Deleted since the keys were read: read them all at once.
			return s.queryHeads(ctx, sqlCheckpointHeads, smriti.UserFromContext(ctx), spaceID, branch, max(1, n))
		}
		out = append(out, h)
	}
	return out, nil
}

// headKeys reads what names the n newest heads of a branch, newest first.
func (s *Store) headKeys(ctx context.Context, spaceID smriti.ID, branch string, n int) ([]headRead, error) {
	st, err := s.stmts.Prepared(ctx, s.read, sqlHeadKeys)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, smriti.UserFromContext(ctx), spaceID, branch, n)
	if err != nil {
		return nil, fmt.Errorf("list checkpoint heads: %w", err)
	}
	defer rows.Close()
	var out []headRead
	for rows.Next() {
		var k headRead
		if err := rows.Scan(&k.id, &k.hash, &k.pos, &k.message); err != nil {
			return nil, fmt.Errorf("list checkpoint heads: %w", err)
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list checkpoint heads: %w", err)
	}
	return out, nil
}

// head is the head k names, kept or read, with k's message; nil when the
// caller can no longer see it (deleted since k was read).
func (s *Store) head(ctx context.Context, k headRead) (*smriti.Checkpoint, error) {
	if h := s.heads.get(k.headKey); h != nil {
		h.Message = k.message
		return h, nil
	}
	st, err := s.stmts.Prepared(ctx, s.read, sqlHeadByID)
	if err != nil {
		return nil, err
	}
	h, err := scanCheckpointHead(st.QueryRowContext(ctx, smriti.UserFromContext(ctx), k.id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read checkpoint head: %w", err)
	}
	if h.Hash != k.hash || h.LogPos != k.pos {
		return nil, nil
	}
	s.heads.put(k.headKey, h)
	h.Message = k.message
	return h, nil
}

// AncestorHeads implements contract.CheckpointService.
func (s *Store) AncestorHeads(ctx context.Context, id smriti.ID, n int) ([]*smriti.Checkpoint, error) {
	out, err := s.queryHeads(ctx, sqlAncestorHeads, id, max(1, n), smriti.UserFromContext(ctx))
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errCheckpointNotFound
	}
	return out, nil
}

// headKey names a checkpoint head as written: a row with this id, hash
// and log position is never changed (a checkpoint written again, as a
// pull does after a delete, takes a new position).
type headKey struct {
	id   smriti.ID
	hash string
	pos  int64
}

// headRead is a head's key and its message as just read.
type headRead struct {
	headKey
	message string
}

// headCache keeps heads by their keys, at most maxHeads of them; each get
// hands out a copy. The zero value is ready.
type headCache struct {
	mu sync.Mutex
	m  map[headKey]*smriti.Checkpoint
}

// maxHeads bounds the heads kept: a few hundred bytes each.
const maxHeads = 4096

func (c *headCache) get(k headKey) *smriti.Checkpoint {
	c.mu.Lock()
	h := c.m[k]
	c.mu.Unlock()
	if h == nil {
		return nil
	}
	cp := *h
	return &cp
}

func (c *headCache) put(k headKey, h *smriti.Checkpoint) {
	cp := *h
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[headKey]*smriti.Checkpoint{}
	}
	if len(c.m) >= maxHeads {
		for old := range c.m {
			delete(c.m, old)
			break
		}
	}
	c.m[k] = &cp
}
