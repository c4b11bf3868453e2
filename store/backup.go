package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"

	"smriti"
	"smriti/records"
	"smriti/store/internal/dbx"
)

// This file holds what `smriti backup` needs below the domain: a file copy
// of an SQLite store taken while it serves, the rows a bundle does not carry
// (accounts, tokens, memberships), and checks over the whole store that no
// caller-scoped method offers. None of it is reachable over HTTP.

// VacuumInto writes a consistent copy of an SQLite store to path with
// VACUUM INTO. It runs on a reader connection, so a serving process's
// writes carry on (WAL mode); the copy is the database as of the read
// transaction's start. path must not exist.
func (s *Store) VacuumInto(ctx context.Context, path string) error {
	if s.d.Name != "sqlite" {
		return smriti.Errorf(smriti.EINVALID, "VACUUM INTO copies SQLite stores only; back up PostgreSQL as bundles or with pg_dump")
	}
	if _, err := os.Lstat(path); err == nil {
		return smriti.Errorf(smriti.ECONFLICT, "%s already exists; a backup never overwrites a file", path)
	}
	if _, err := s.read.ExecContext(ctx, `VACUUM INTO ?`, path); err != nil {
		return fmt.Errorf("vacuum into %s: %w", path, err)
	}
	return nil
}

// CheckSQLiteFile opens the SQLite file at path read-only and runs
// PRAGMA integrity_check and PRAGMA foreign_key_check on it. It returns nil
// only when both find nothing wrong.
func CheckSQLiteFile(ctx context.Context, path string) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("check %s: %w", path, err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return fmt.Errorf("check %s: %w", path, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	rows, err := db.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return fmt.Errorf("integrity check of %s: %w", path, err)
	}
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			rows.Close()
			return fmt.Errorf("integrity check of %s: %w", path, err)
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("integrity check of %s: %w", path, err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("integrity check of %s failed: %s", path, strings.Join(problems, "; "))
	}
	var table string
	err = db.QueryRowContext(ctx, `PRAGMA foreign_key_check`).Scan(&table, new(any), new(any), new(any))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return fmt.Errorf("foreign key check of %s: %w", path, err)
	default:
		return fmt.Errorf("foreign key check of %s failed: a row of %s names a missing parent", path, table)
	}
}

// AllSpaces lists every space of every user, oldest first, for a backup.
// Unlike Spaces it is not scoped to the caller.
func (s *Store) AllSpaces(ctx context.Context) ([]records.SpaceOwner, error) {
	return dbx.QueryAll(ctx, s.d, s.read, "list spaces", func(r interface{ Scan(...any) error }) (records.SpaceOwner, error) {
		var o records.SpaceOwner
		return o, r.Scan(&o.ID, &o.OwnerID, &o.Name)
	}, `SELECT id, owner_id, name FROM spaces ORDER BY created_at, id`)
}

// ExportAccounts reads every user but the built-in local one, every token
// and every membership that is not an owner's.
func (s *Store) ExportAccounts(ctx context.Context) (*records.Accounts, error) {
	var a records.Accounts
	var err error
	a.Users, err = dbx.QueryAll(ctx, s.d, s.read, "export users", func(r interface{ Scan(...any) error }) (records.AccountUser, error) {
		var u records.AccountUser
		var created dbx.Time
		err := r.Scan(&u.ID, &u.Username, &u.Disabled, &created, &u.PasswordHash)
		u.CreatedAt = created.Time
		return u, err
	}, `SELECT `+userCols+`, password_hash FROM users WHERE id <> ? ORDER BY created_at, id`, smriti.LocalUserID)
	if err != nil {
		return nil, err
	}
	a.Tokens, err = dbx.QueryAll(ctx, s.d, s.read, "export tokens", func(r interface{ Scan(...any) error }) (records.AccountToken, error) {
		var t records.AccountToken
		var created, expires, revoked dbx.Time
		err := r.Scan(&t.ID, &t.UserID, &t.Name, &t.Scope, &created, &expires, &revoked, &t.SecretHash)
		t.CreatedAt, t.ExpiresAt, t.RevokedAt = created.Time, dbx.OptTime(expires), dbx.OptTime(revoked)
		return t, err
	}, `SELECT `+tokenCols+`, secret_hash FROM api_tokens ORDER BY created_at, id`)
	if err != nil {
		return nil, err
	}
	a.Members, err = dbx.QueryAll(ctx, s.d, s.read, "export members", func(r interface{ Scan(...any) error }) (records.AccountMember, error) {
		var m records.AccountMember
		var created dbx.Time
		err := r.Scan(&m.SpaceID, &m.UserID, &m.Role, &created)
		m.CreatedAt = created.Time
		return m, err
	}, `SELECT m.space_id, m.user_id, m.role, m.created_at FROM space_members m JOIN spaces sp ON sp.id = m.space_id
		WHERE m.user_id <> sp.owner_id ORDER BY m.created_at, m.space_id, m.user_id`)
	if err != nil {
		return nil, err
	}
	return &a, nil
}

// RestoreUsers writes users and their tokens into the store, keeping their
// ids, in one transaction. Run it on an empty store, before the spaces.
func (s *Store) RestoreUsers(ctx context.Context, a *records.Accounts) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		for _, u := range a.Users {
			if _, err := tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO users (id, username, password_hash, disabled, created_at) VALUES (?, ?, ?, ?, ?)`),
				u.ID, u.Username, u.PasswordHash, u.Disabled, s.d.T(u.CreatedAt)); err != nil {
				return fmt.Errorf("restore user %s: %w", u.Username, err)
			}
		}
		for _, t := range a.Tokens {
			if _, err := tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO api_tokens (id, user_id, name, secret_hash, scope, created_at, expires_at, revoked_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?)`), t.ID, t.UserID, t.Name, t.SecretHash, string(t.Scope), s.d.T(t.CreatedAt),
				s.d.OptT(t.ExpiresAt), s.d.OptT(t.RevokedAt)); err != nil {
				return fmt.Errorf("restore token %s: %w", t.ID, err)
			}
		}
		return nil
	})
}

// RestoreMembers writes the memberships that are not owners' (the owner's
// row is written with its space). Run it after the spaces are restored.
func (s *Store) RestoreMembers(ctx context.Context, members []records.AccountMember) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		for _, m := range members {
			if _, err := tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO space_members (space_id, user_id, role, created_at) VALUES (?, ?, ?, ?)`),
				m.SpaceID, m.UserID, string(m.Role), s.d.T(m.CreatedAt)); err != nil {
				return fmt.Errorf("restore member %s of %s: %w", m.UserID, m.SpaceID, err)
			}
		}
		return nil
	})
}

// Contents counts the rows that make a store not empty.
func (s *Store) Contents(ctx context.Context) (records.Emptiness, error) {
	var e records.Emptiness
	err := s.read.QueryRowContext(ctx, s.d.Rebind(`SELECT (SELECT COUNT(*) FROM spaces), (SELECT COUNT(*) FROM sessions),
		(SELECT COUNT(*) FROM users WHERE id <> ?)`), smriti.LocalUserID).Scan(&e.Spaces, &e.Sessions, &e.Users)
	if err != nil {
		return e, fmt.Errorf("count rows: %w", err)
	}
	return e, nil
}

// VerifyAll recomputes the hash of every checkpoint of every space from its
// stored content (items included, from hash version 2 on) and its parents'
// stored hashes, a page at a time, space by
// space in log order (a parent is always logged before its children in its
// space; a parent elsewhere is looked up), and counts the turns. A
// checkpoint whose parent is missing counts as a mismatch.
func (s *Store) VerifyAll(ctx context.Context) (*records.StoreVerification, error) {
	v := &records.StoreVerification{Mismatches: []smriti.ID{}}
	if err := s.read.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM spaces), (SELECT COUNT(*) FROM turns)`).Scan(&v.Spaces, &v.Turns); err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	hashes := map[smriti.ID]string{}
	hashOf := func(p *smriti.ID) (string, bool, error) {
		if p == nil {
			return "", true, nil
		}
		if h, ok := hashes[*p]; ok {
			return h, true, nil
		}
		var h string
		err := s.read.QueryRowContext(ctx, s.d.Rebind(`SELECT commit_hash FROM checkpoints WHERE id = ?`), *p).Scan(&h)
		if errors.Is(err, sql.ErrNoRows) {
			return "", false, nil
		}
		return h, err == nil, err
	}
	var page []*smriti.Checkpoint
	var err error
	for {
		if page == nil {
			page, err = s.queryCheckpoints(ctx, s.read, `SELECT `+checkpointCols+` FROM checkpoints c ORDER BY c.space_id, c.log_pos LIMIT ?`, exportPage)
		} else {
			last := page[len(page)-1]
			page, err = s.queryCheckpoints(ctx, s.read, `SELECT `+checkpointCols+` FROM checkpoints c
				WHERE c.space_id > ? OR (c.space_id = ? AND c.log_pos > ?) ORDER BY c.space_id, c.log_pos LIMIT ?`,
				last.SpaceID, last.SpaceID, last.LogPos, exportPage)
		}
		if err != nil {
			return nil, fmt.Errorf("verify: %w", err)
		}
		if len(page) == 0 {
			return v, nil
		}
		// From hash version 2 on the hash covers the items, so they are
		// read as VerifyCheckpoint reads them.
		var itemized []*smriti.Checkpoint
		for _, c := range page {
			if c.HashVersion >= 2 {
				itemized = append(itemized, c)
			}
		}
		if err := s.attachItems(ctx, s.read, itemized...); err != nil {
			return nil, fmt.Errorf("verify: %w", err)
		}
		if err := s.attachPurged(ctx, s.read, page...); err != nil {
			return nil, fmt.Errorf("verify: %w", err)
		}
		for _, c := range page {
			v.Checkpoints++
			ph, ok1, err1 := hashOf(c.ParentID)
			mh, ok2, err2 := hashOf(c.MergeParentID)
			if err := errors.Join(err1, err2); err != nil {
				return nil, fmt.Errorf("verify: %w", err)
			}
			if !ok1 || !ok2 || c.HashProvable() && c.ComputeHash(ph, mh) != c.Hash {
				v.Mismatches = append(v.Mismatches, c.ID)
			}
			hashes[c.ID] = c.Hash
		}
	}
}
