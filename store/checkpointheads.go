package store

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"smriti"
	"smriti/store/internal/dbx"
)

// A send needs its checkpoints' identity on every call and their content
// only when it has not rendered them before (see app's state cache): the
// head queries read the identity columns alone, through statements prepared
// once, so a send's cost does not grow with the size of the state it
// carries.

const checkpointHeadCols = `c.id, c.space_id, c.commit_hash, c.parent_id, c.merge_parent_id, c.branch_name, c.message,
	c.log_pos, c.created_at, c.hash_version`

const sqlCheckpointHeads = `SELECT ` + checkpointHeadCols + visibleCheckpoint + ` AND c.space_id = ? AND c.branch_name = ?
	ORDER BY c.log_pos DESC LIMIT ?`

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

// CheckpointHeads implements smriti.CheckpointService.
func (s *Store) CheckpointHeads(ctx context.Context, spaceID smriti.ID, branch string, n int) ([]*smriti.Checkpoint, error) {
	return s.queryHeads(ctx, sqlCheckpointHeads, smriti.UserFromContext(ctx), spaceID, branch, max(1, n))
}

// AncestorHeads implements smriti.CheckpointService.
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
