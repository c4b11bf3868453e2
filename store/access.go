package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"smriti/account"

	"smriti"
	"smriti/store/internal/dbx"
)

// The one access rule of the store. A caller sees a space when they are one
// of its members (the creator is its owner member, written by a trigger on
// spaces); everything in a space — sessions, turns, checkpoints, notes,
// claims, worktrees — is seen through its space. A session outside any space
// is seen only by the user who made it. What a member may do with what they
// see (viewer, editor, owner) is account.Role.Permits.
//
// Each fragment takes the caller's user id as its argument(s).
const (
	// memberSpace follows a space id column: "sp.id" + memberSpace.
	memberSpace = ` IN (SELECT space_id FROM space_members WHERE user_id = ?)`
	// sessionVisible scopes the sessions table (unaliased); two arguments.
	sessionVisible = `(sessions.space_id` + memberSpace + ` OR (sessions.space_id IS NULL AND sessions.owner_id = ?))`
	// sessionWritable admits the sessions the caller may change: those of
	// spaces where they are owner or editor, and their own loose ones.
	sessionWritable = `(sessions.space_id IN (SELECT space_id FROM space_members WHERE user_id = ? AND role <> 'viewer')` +
		` OR (sessions.space_id IS NULL AND sessions.owner_id = ?))`
	// sessionVisibleSe is sessionVisible for sessions aliased "se".
	sessionVisibleSe = `(se.space_id` + memberSpace + ` OR (se.space_id IS NULL AND se.owner_id = ?))`
)

// ownedSpace follows a space id column and admits only spaces the caller owns.
const ownedSpace = ` IN (SELECT space_id FROM space_members WHERE user_id = ? AND role = 'owner')`

// requireRole checks the caller's role in the space permits need, by
// account.Role.Permits: ENOTFOUND when they are no member (as for a space
// that does not exist), EFORBIDDEN when their role falls short. Every write
// path calls it (directly, or through lockSpace or sessionForWrite), so
// every adapter — HTTP, MCP — meets the same rule.
func (s *Store) requireRole(ctx context.Context, q dbx.Querier, spaceID smriti.ID, need account.Need) error {
	var role string
	err := s.stmtOn(ctx, q, `SELECT role FROM space_members WHERE space_id = ? AND user_id = ?`).QueryRowContext(ctx,
		spaceID, smriti.UserFromContext(ctx)).Scan(&role)
	if errors.Is(err, sql.ErrNoRows) {
		return errSpaceNotFound
	}
	if err != nil {
		return fmt.Errorf("look up role: %w", err)
	}
	return account.Role(role).Authorize(need)
}

// sessionForWrite returns the session (locked with lock), after checking
// the caller may write to its space.
func (s *Store) sessionForWrite(ctx context.Context, q dbx.Querier, id smriti.ID, lock string) (*smriti.Session, error) {
	se, err := s.session(ctx, q, id, lock)
	if err != nil {
		return nil, err
	}
	if se.SpaceID != nil {
		if err := s.requireRole(ctx, q, *se.SpaceID, account.NeedWrite); err != nil {
			return nil, err
		}
	}
	return se, nil
}

// whyNotWritable explains a write that matched no session under
// sessionWritable: EFORBIDDEN when the caller sees it but may not change it,
// ENOTFOUND otherwise. Only failed writes pay for it.
func (s *Store) whyNotWritable(ctx context.Context, q dbx.Querier, id smriti.ID) error {
	if _, err := s.sessionForWrite(ctx, q, id, ""); err != nil {
		return err
	}
	return errSessionNotFound
}
