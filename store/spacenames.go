package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"smriti"
	"smriti/store/internal/dbx"
)

// Space names are unique per owner (migration 00014's index
// spaces_owner_name): a second space of the same name is refused with the
// existing one's id, and an import as new picks the first free "name (n)".

// spaceNamed returns the id of owner's space called name, or NilID.
func (s *Store) spaceNamed(ctx context.Context, q dbx.Querier, owner smriti.ID, name string) (smriti.ID, error) {
	var id smriti.ID
	err := q.QueryRowContext(ctx, s.d.Rebind(`SELECT id FROM spaces WHERE owner_id = ? AND name = ?`), owner, name).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return smriti.NilID, nil
	}
	if err != nil {
		return smriti.NilID, fmt.Errorf("space name: %w", err)
	}
	return id, nil
}

// nameTaken is the conflict a taken space name answers.
func nameTaken(name string, existing smriti.ID) error {
	return smriti.Errorf(smriti.ECONFLICT, "You already have a space named %q (id %s); choose another name", name, existing)
}

// checkSpaceName refuses a name owner already uses.
func (s *Store) checkSpaceName(ctx context.Context, q dbx.Querier, owner smriti.ID, name string) error {
	id, err := s.spaceNamed(ctx, q, owner, name)
	if err != nil {
		return err
	}
	if id != smriti.NilID {
		return nameTaken(name, id)
	}
	return nil
}

// freeSpaceName is name when owner has no space of that name, else the
// first of "name (2)", "name (3)", … that is free.
func (s *Store) freeSpaceName(ctx context.Context, q dbx.Querier, owner smriti.ID, name string) (string, error) {
	for n := 1; ; n++ {
		candidate := name
		if n > 1 {
			candidate = fmt.Sprintf("%s (%d)", name, n)
		}
		id, err := s.spaceNamed(ctx, q, owner, candidate)
		if err != nil {
			return "", err
		}
		if id == smriti.NilID {
			return candidate, nil
		}
	}
}

// spaceNameConflict turns the unique index's violation (two creations
// racing for one name) into the conflict naming the winner.
func (s *Store) spaceNameConflict(ctx context.Context, owner smriti.ID, name string, err error) error {
	if !uniqueViolation(err) {
		return err
	}
	if id, qerr := s.spaceNamed(ctx, s.write, owner, name); qerr == nil && id != smriti.NilID {
		return nameTaken(name, id)
	}
	return err
}
