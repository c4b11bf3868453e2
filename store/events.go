package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"smriti"
	"smriti/contract"
	"smriti/store/internal/dbx"
)

// SpaceEvents implements contract.SpaceEventLog. The rows are written by the
// triggers of migration 8.
func (s *Store) SpaceEvents(ctx context.Context, space smriti.ID, after int64, limit int) ([]contract.SpaceEvent, error) {
	if _, err := s.Space(ctx, space); err != nil {
		return nil, err
	}
	limit = dbx.ClampLimit(limit, 100, 1000)
	rows, err := s.read.QueryContext(ctx, s.d.Rebind(`SELECT position, space_id, kind, subject_id, branch_name, created_at
		FROM space_events WHERE space_id = ? AND position > ? ORDER BY position LIMIT ?`), space, after, limit)
	if err != nil {
		return nil, fmt.Errorf("space events: %w", err)
	}
	defer rows.Close()
	out := []contract.SpaceEvent{}
	for rows.Next() {
		var ev contract.SpaceEvent
		var at dbx.Time
		if err := rows.Scan(&ev.Position, &ev.SpaceID, &ev.Kind, &ev.SubjectID, &ev.BranchName, &at); err != nil {
			return nil, fmt.Errorf("scan space event: %w", err)
		}
		ev.CreatedAt = at.Time
		out = append(out, ev)
	}
	return out, rows.Err()
}

// LogPosition implements contract.SpaceEventLog: the position of the space's
// log (on SQLite the store-wide log, of which each space's positions are a
// part). Writers hold the log row's lock until they commit, so every
// position up to the committed value is final: nothing can later appear
// below it in the space.
func (s *Store) LogPosition(ctx context.Context, space smriti.ID) (int64, error) {
	var pos int64
	var err error
	if s.d.SpaceLog {
		err = s.read.QueryRowContext(ctx, s.d.Rebind(`SELECT position FROM space_log WHERE space_id = ?`), space).Scan(&pos)
	} else {
		err = s.read.QueryRowContext(ctx, `SELECT position FROM store_log WHERE id = 1`).Scan(&pos)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return 0, smriti.Errorf(smriti.ENOTFOUND, "space not found")
	}
	if err != nil {
		return 0, fmt.Errorf("log position: %w", err)
	}
	return pos, nil
}
