package store

import (
	"context"
	"fmt"
	"strings"

	"smriti"
	"smriti/coord"
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
	rows, err := s.read.QueryContext(ctx, s.d.Rebind(q), args...)
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

// idsByPrefix runs query (whose last two arguments are the id pattern and
// the limit) for the ids that start with prefix; none for a prefix that
// is not hex.
func (s *Store) idsByPrefix(ctx context.Context, what, query string, prefix string, limit int, args ...any) ([]smriti.ID, error) {
	prefix = strings.ToLower(prefix)
	if prefix == "" || strings.Trim(prefix, "0123456789abcdef-") != "" {
		return nil, nil
	}
	args = append(args, prefix+"%", limit)
	rows, err := s.read.QueryContext(ctx, s.d.Rebind(query), args...)
	if err != nil {
		return nil, fmt.Errorf("find %s by prefix: %w", what, err)
	}
	defer rows.Close()
	var out []smriti.ID
	for rows.Next() {
		var id smriti.ID
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("find %s by prefix: %w", what, err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// ProposalsByPrefix returns up to limit ids of the proposals of space the
// caller can see whose id starts with prefix.
func (s *Store) ProposalsByPrefix(ctx context.Context, space smriti.ID, prefix string, limit int) ([]smriti.ID, error) {
	return s.idsByPrefix(ctx, "proposals", `SELECT p.id`+visibleProposal+` AND p.space_id = ? AND CAST(p.id AS TEXT) LIKE ? ORDER BY p.id LIMIT ?`,
		prefix, limit, smriti.UserFromContext(ctx), space)
}

// SessionsByPrefix returns up to limit ids of the sessions the caller can
// see whose id starts with prefix.
func (s *Store) SessionsByPrefix(ctx context.Context, prefix string, limit int) ([]smriti.ID, error) {
	return s.idsByPrefix(ctx, "sessions", `SELECT id FROM sessions WHERE `+sessionVisible+` AND CAST(id AS TEXT) LIKE ? ORDER BY id LIMIT ?`,
		prefix, limit, smriti.UserFromContext(ctx), smriti.UserFromContext(ctx))
}

// ClaimsByPrefix returns up to limit claims the caller can see (of every
// space of theirs) whose id starts with prefix.
func (s *Store) ClaimsByPrefix(ctx context.Context, prefix string, limit int) ([]*coord.Claim, error) {
	prefix = strings.ToLower(prefix)
	if prefix == "" || strings.Trim(prefix, "0123456789abcdef-") != "" {
		return nil, nil
	}
	return s.queryClaims(ctx, s.read, `SELECT `+claimCols+visibleClaim+` AND CAST(cl.id AS TEXT) LIKE ? ORDER BY cl.id LIMIT ?`,
		smriti.UserFromContext(ctx), prefix+"%", limit)
}
