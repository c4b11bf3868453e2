package store

import (
	"context"
	"fmt"

	"smriti"
)

// SpaceEvents implements smriti.SpaceEventLog. The rows are written by the
// triggers of migration 8.
func (s *Store) SpaceEvents(ctx context.Context, space smriti.ID, after int64, limit int) ([]smriti.SpaceEvent, error) {
	if _, err := s.Space(ctx, space); err != nil {
		return nil, err
	}
	limit = clampLimit(limit, 100, 1000)
	rows, err := s.read.QueryContext(ctx, s.d.rebind(`SELECT position, space_id, kind, subject_id, branch_name, created_at
		FROM space_events WHERE space_id = ? AND position > ? ORDER BY position LIMIT ?`), space, after, limit)
	if err != nil {
		return nil, fmt.Errorf("space events: %w", err)
	}
	defer rows.Close()
	out := []smriti.SpaceEvent{}
	for rows.Next() {
		var ev smriti.SpaceEvent
		var at dbTime
		if err := rows.Scan(&ev.Position, &ev.SpaceID, &ev.Kind, &ev.SubjectID, &ev.BranchName, &at); err != nil {
			return nil, fmt.Errorf("scan space event: %w", err)
		}
		ev.CreatedAt = at.Time
		out = append(out, ev)
	}
	return out, rows.Err()
}

// LogPosition implements smriti.SpaceEventLog. Writers hold the log row's
// lock until they commit, so every position up to the committed value is
// final: nothing can later appear below it.
func (s *Store) LogPosition(ctx context.Context) (int64, error) {
	var pos int64
	if err := s.read.QueryRowContext(ctx, `SELECT position FROM store_log WHERE id = 1`).Scan(&pos); err != nil {
		return 0, fmt.Errorf("log position: %w", err)
	}
	return pos, nil
}
