package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"smriti"
)

// Turn implements contract.SessionService: one turn by id, scoped to the caller
// through its session.
func (s *Store) Turn(ctx context.Context, id smriti.ID) (*smriti.Turn, error) {
	user := smriti.UserFromContext(ctx)
	t, err := scanTurn(s.read.QueryRowContext(ctx, s.d.Rebind(`SELECT `+turnCols+` FROM turns
		WHERE id = ? AND EXISTS (SELECT 1 FROM sessions WHERE sessions.id = turns.session_id AND `+sessionVisible+`)`), id, user, user))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, smriti.Errorf(smriti.ENOTFOUND, "Turn not found")
	}
	if err != nil {
		return nil, fmt.Errorf("get turn: %w", err)
	}
	return t, nil
}
