package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"smriti/account"
	"time"

	"smriti"
	"smriti/store/internal/dbx"
)

const spaceCols = `id, slug, owner_id, name, description, project_root, metadata, created_at, updated_at`

func scanSpace(row interface{ Scan(...any) error }) (*smriti.Space, error) {
	var sp smriti.Space
	var slug, root sql.NullString
	var created, updated dbx.Time
	if err := row.Scan(&sp.ID, &slug, &sp.OwnerID, &sp.Name, &sp.Description, &root,
		dbx.JSONCol{Dst: &sp.Metadata}, &created, &updated); err != nil {
		return nil, err
	}
	if slug.Valid {
		sp.Slug = &slug.String
	}
	if root.Valid {
		sp.ProjectRoot = &root.String
	}
	if sp.Metadata == nil {
		sp.Metadata = map[string]any{}
	}
	sp.CreatedAt, sp.UpdatedAt = created.Time, updated.Time
	return &sp, nil
}

// CreateSpace implements contract.SpaceService.
func (s *Store) CreateSpace(ctx context.Context, in smriti.SpaceCreate) (*smriti.Space, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	now := s.Now()
	sp := &smriti.Space{
		ID: smriti.NewID(), OwnerID: smriti.UserFromContext(ctx), Name: in.Name,
		Description: in.Description, ProjectRoot: strPtr(in.ProjectRoot), Metadata: in.Metadata,
		CreatedAt: now, UpdatedAt: now,
	}
	if sp.Metadata == nil {
		sp.Metadata = map[string]any{}
	}
	meta, err := dbx.JSONArg(sp.Metadata)
	if err != nil {
		return nil, err
	}
	err = s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.checkSpaceName(ctx, tx, sp.OwnerID, sp.Name); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO spaces (id, owner_id, name, description, project_root, metadata, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
			sp.ID, sp.OwnerID, sp.Name, sp.Description, sp.ProjectRoot, meta, s.d.T(now), s.d.T(now))
		return err
	})
	if err != nil {
		if smriti.ErrorCode(err) == smriti.ECONFLICT {
			return nil, err
		}
		return nil, fmt.Errorf("create space: %w", s.spaceNameConflict(ctx, sp.OwnerID, sp.Name, err))
	}
	return sp, nil
}

// Space implements contract.SpaceService.
func (s *Store) Space(ctx context.Context, id smriti.ID) (*smriti.Space, error) {
	return s.space(ctx, s.read, id)
}

func (s *Store) space(ctx context.Context, q dbx.Querier, id smriti.ID) (*smriti.Space, error) {
	sp, err := scanSpace(q.QueryRowContext(ctx, s.d.Rebind(`SELECT `+spaceCols+` FROM spaces WHERE id = ? AND id`+memberSpace),
		id, smriti.UserFromContext(ctx)))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errSpaceNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("get space: %w", err)
	}
	return sp, nil
}

var errSpaceNotFound = smriti.Errorf(smriti.ENOTFOUND, "Space not found")

const sqlLockSpace = `UPDATE spaces SET updated_at = ? WHERE id = ? AND id` + memberSpace + ` RETURNING id`

// lockSpace checks the caller may change the space and, on PostgreSQL, locks its
// row so that concurrent writers to one space queue up (branch heads and
// fork names are then decided one writer at a time). It bumps updated_at.
func (s *Store) lockSpace(ctx context.Context, tx *sql.Tx, id smriti.ID, now time.Time) error {
	var got smriti.ID
	err := s.stmts.WriteStmt(ctx, tx, sqlLockSpace).QueryRowContext(ctx, s.d.T(now), id, smriti.UserFromContext(ctx)).Scan(&got)
	if errors.Is(err, sql.ErrNoRows) {
		return errSpaceNotFound
	}
	if err != nil {
		return fmt.Errorf("lock space: %w", err)
	}
	return s.requireRole(ctx, tx, id, account.NeedWrite)
}

// Spaces implements contract.SpaceService.
func (s *Store) Spaces(ctx context.Context, page smriti.Page) ([]*smriti.Space, string, error) {
	k := dbx.TimeKeyset(page, "updated_at", "id")
	q, args, err := k.Apply(s.d, `SELECT `+spaceCols+` FROM spaces WHERE id`+memberSpace, []any{smriti.UserFromContext(ctx)})
	if err != nil {
		return nil, "", err
	}
	out, err := dbx.QueryAll(ctx, s.d, s.read, "list spaces", scanSpace, q, args...)
	if err != nil {
		return nil, "", err
	}
	out, next := dbx.PageOf(k, out, func(sp *smriti.Space) string { return dbx.TimeCursor(sp.UpdatedAt, sp.ID) })
	return out, next, nil
}

// SetProjectRoot implements contract.SpaceService.
func (s *Store) SetProjectRoot(ctx context.Context, id smriti.ID, root string) (*smriti.Space, error) {
	var sp *smriti.Space
	err := s.tx(ctx, func(tx *sql.Tx) error {
		now := s.Now()
		if err := s.lockSpace(ctx, tx, id, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE spaces SET project_root = ? WHERE id = ?`), root, id); err != nil {
			return fmt.Errorf("set project root: %w", err)
		}
		var err error
		sp, err = s.space(ctx, tx, id)
		return err
	})
	return sp, err
}

// DeleteSpace implements contract.SpaceService.
func (s *Store) DeleteSpace(ctx context.Context, id smriti.ID) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.d.Rebind(`DELETE FROM spaces WHERE id = ? AND id`+ownedSpace), id, smriti.UserFromContext(ctx))
		if err != nil {
			return fmt.Errorf("delete space: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			if _, err := s.space(ctx, tx, id); err != nil {
				return err
			}
			return account.RoleEditor.Authorize(account.NeedAdmin)
		}
		return nil
	})
}

// strPtr copies an optional string.
func strPtr(n *string) *string {
	if n == nil {
		return nil
	}
	s := *n
	return &s
}
