package store

import (
	"context"
	"fmt"
	"strings"

	"smriti"
)

// CheckpointsByPrefix returns up to limit checkpoints the caller can see
// whose id or hash starts with prefix (lower-case hex and dashes; anything
// else matches nothing), in one query, of one space when space is set.
func (s *Store) CheckpointsByPrefix(ctx context.Context, space *smriti.ID, prefix string, limit int) ([]*smriti.Checkpoint, error) {
	prefix = strings.ToLower(prefix)
	if prefix == "" || strings.Trim(prefix, "0123456789abcdef-") != "" {
		return nil, nil
	}
	q := `SELECT ` + checkpointCols + visibleCheckpoint + ` AND (CAST(c.id AS TEXT) LIKE ? OR c.commit_hash LIKE ?)`
	args := []any{smriti.UserFromContext(ctx), prefix + "%", prefix + "%"}
	if space != nil {
		q += ` AND c.space_id = ?`
		args = append(args, *space)
	}
	q += ` ORDER BY c.id LIMIT ?`
	args = append(args, limit)
	rows, err := s.read.QueryContext(ctx, s.d.rebind(q), args...)
	if err != nil {
		return nil, fmt.Errorf("find checkpoints by prefix: %w", err)
	}
	defer rows.Close()
	var out []*smriti.Checkpoint
	for rows.Next() {
		c, err := scanCheckpoint(rows)
		if err != nil {
			return nil, fmt.Errorf("find checkpoints by prefix: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
