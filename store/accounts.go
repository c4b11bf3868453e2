package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"smriti/account"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"smriti"
	"smriti/store/internal/dbx"
)

var _ account.Service = (*Store)(nil)

var (
	errUserNotFound   = smriti.Errorf(smriti.ENOTFOUND, "User not found")
	errTokenNotFound  = smriti.Errorf(smriti.ENOTFOUND, "Token not found")
	errMemberNotFound = smriti.Errorf(smriti.ENOTFOUND, "Member not found")
)

const userCols = `id, username, disabled, created_at`

func scanUser(row interface{ Scan(...any) error }) (*account.User, error) {
	var u account.User
	var created dbx.Time
	if err := row.Scan(&u.ID, &u.Username, &u.Disabled, &created); err != nil {
		return nil, err
	}
	u.CreatedAt = created.Time
	return &u, nil
}

// uniqueViolation reports whether err is either engine's unique-key
// violation.
func uniqueViolation(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && pg.Code == "23505" || err != nil && strings.Contains(err.Error(), "UNIQUE constraint failed")
}

// CreateUser implements account.Service.
func (s *Store) CreateUser(ctx context.Context, username, passwordHash string) (*account.User, error) {
	if err := account.ValidateUsername(username); err != nil {
		return nil, err
	}
	u := &account.User{ID: smriti.NewID(), Username: username, CreatedAt: s.Now()}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO users (id, username, password_hash, disabled, created_at) VALUES (?, ?, ?, ?, ?)`),
			u.ID, u.Username, passwordHash, false, s.d.T(u.CreatedAt))
		return err
	})
	if uniqueViolation(err) {
		return nil, smriti.Errorf(smriti.ECONFLICT, "username %q is taken", username)
	}
	if err != nil {
		return nil, fmt.Errorf("create user: %w", err)
	}
	return u, nil
}

// Users implements account.Service.
func (s *Store) Users(ctx context.Context) ([]*account.User, error) {
	return dbx.QueryAll(ctx, s.d, s.read, "list users", scanUser, `SELECT `+userCols+` FROM users ORDER BY username`)
}

// UserByName implements account.Service.
func (s *Store) UserByName(ctx context.Context, username string) (*account.User, string, error) {
	var hash string
	var u account.User
	var created dbx.Time
	err := s.read.QueryRowContext(ctx, s.d.Rebind(`SELECT `+userCols+`, password_hash FROM users WHERE username = ?`), username).
		Scan(&u.ID, &u.Username, &u.Disabled, &created, &hash)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, "", errUserNotFound
	}
	if err != nil {
		return nil, "", fmt.Errorf("get user: %w", err)
	}
	u.CreatedAt = created.Time
	return &u, hash, nil
}

// SetUserDisabled implements account.Service.
func (s *Store) SetUserDisabled(ctx context.Context, username string, disabled bool) (*account.User, error) {
	var u *account.User
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var err error
		u, err = scanUser(tx.QueryRowContext(ctx, s.d.Rebind(`UPDATE users SET disabled = ? WHERE username = ? RETURNING `+userCols), disabled, username))
		if errors.Is(err, sql.ErrNoRows) {
			return errUserNotFound
		}
		if err != nil {
			return fmt.Errorf("disable user: %w", err)
		}
		if disabled {
			if _, err := tx.ExecContext(ctx, s.d.Rebind(`DELETE FROM browser_sessions WHERE user_id = ?`), u.ID); err != nil {
				return fmt.Errorf("end browser sessions: %w", err)
			}
		}
		return nil
	})
	return u, err
}

const tokenCols = `id, user_id, name, scope, created_at, expires_at, revoked_at`

func scanToken(row interface{ Scan(...any) error }) (*account.APIToken, error) {
	var t account.APIToken
	var created, expires, revoked dbx.Time
	if err := row.Scan(&t.ID, &t.UserID, &t.Name, &t.Scope, &created, &expires, &revoked); err != nil {
		return nil, err
	}
	t.CreatedAt = created.Time
	t.ExpiresAt = dbx.OptTime(expires)
	t.RevokedAt = dbx.OptTime(revoked)
	return &t, nil
}

// CreateToken implements account.Service.
func (s *Store) CreateToken(ctx context.Context, t *account.APIToken, secretHash string) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO api_tokens (id, user_id, name, secret_hash, scope, created_at, expires_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`), t.ID, t.UserID, t.Name, secretHash, string(t.Scope), s.d.T(t.CreatedAt), s.d.OptT(t.ExpiresAt))
		return err
	})
	if err != nil {
		return fmt.Errorf("create token: %w", err)
	}
	return nil
}

// Tokens implements account.Service.
func (s *Store) Tokens(ctx context.Context, userID smriti.ID) ([]*account.APIToken, error) {
	return dbx.QueryAll(ctx, s.d, s.read, "list tokens", scanToken,
		`SELECT `+tokenCols+` FROM api_tokens WHERE user_id = ? ORDER BY created_at DESC, id DESC`, userID)
}

// RevokeToken implements account.Service.
func (s *Store) RevokeToken(ctx context.Context, userID, id smriti.ID) (*account.APIToken, error) {
	var t *account.APIToken
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var err error
		t, err = scanToken(tx.QueryRowContext(ctx, s.d.Rebind(`UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, ?)
			WHERE id = ? AND user_id = ? RETURNING `+tokenCols), s.d.T(s.Now()), id, userID))
		if errors.Is(err, sql.ErrNoRows) {
			return errTokenNotFound
		}
		return err
	})
	if err != nil && smriti.ErrorCode(err) == smriti.EINTERNAL {
		return nil, fmt.Errorf("revoke token: %w", err)
	}
	return t, err
}

// The credential lookups run on every request in auth mode: one indexed read
// each, prepared once.
const (
	sqlTokenPrincipal = `SELECT t.id, t.user_id, t.name, t.scope, t.created_at, t.expires_at, t.revoked_at, u.username, u.disabled
		FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.secret_hash = ?`
	sqlSessionPrincipal = `SELECT u.id, u.username, u.disabled, b.expires_at
		FROM browser_sessions b JOIN users u ON u.id = b.user_id WHERE b.secret_hash = ?`
)

// TokenPrincipal implements account.Service.
func (s *Store) TokenPrincipal(ctx context.Context, secretHash string, now time.Time) (*account.Principal, error) {
	var t account.APIToken
	var created, expires, revoked dbx.Time
	var username string
	var disabled bool
	st, err := s.stmts.Prepared(ctx, s.read, sqlTokenPrincipal)
	if err != nil {
		return nil, err
	}
	err = st.QueryRowContext(ctx, secretHash).Scan(&t.ID, &t.UserID, &t.Name, &t.Scope, &created, &expires, &revoked, &username, &disabled)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, account.ErrBadCredentials()
	}
	if err != nil {
		return nil, fmt.Errorf("look up token: %w", err)
	}
	t.ExpiresAt, t.RevokedAt = dbx.OptTime(expires), dbx.OptTime(revoked)
	if disabled {
		return nil, account.ErrBadCredentials()
	}
	if err := t.CheckUsable(now); err != nil {
		return nil, err
	}
	id := t.ID
	return &account.Principal{UserID: t.UserID, Username: username, Scope: t.Scope, TokenID: &id, Expires: t.ExpiresAt}, nil
}

// CreateBrowserSession implements account.Service.
func (s *Store) CreateBrowserSession(ctx context.Context, secretHash string, userID smriti.ID, expires time.Time) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		now := s.Now()
		// Expired sessions of this user go when a new one starts.
		if _, err := tx.ExecContext(ctx, s.d.Rebind(`DELETE FROM browser_sessions WHERE user_id = ? AND expires_at <= ?`), userID, s.d.T(now)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO browser_sessions (secret_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)`),
			secretHash, userID, s.d.T(now), s.d.T(expires))
		return err
	})
	if err != nil {
		return fmt.Errorf("create browser session: %w", err)
	}
	return nil
}

// SessionPrincipal implements account.Service. A browser session acts
// with the admin scope for its own user: it is the person at the keyboard.
func (s *Store) SessionPrincipal(ctx context.Context, secretHash string, now time.Time) (*account.Principal, error) {
	var p account.Principal
	var expires dbx.Time
	var disabled bool
	st, err := s.stmts.Prepared(ctx, s.read, sqlSessionPrincipal)
	if err != nil {
		return nil, err
	}
	err = st.QueryRowContext(ctx, secretHash).Scan(&p.UserID, &p.Username, &disabled, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, account.ErrBadCredentials()
	}
	if err != nil {
		return nil, fmt.Errorf("look up browser session: %w", err)
	}
	if disabled || !now.Before(expires.Time) {
		return nil, account.ErrBadCredentials()
	}
	p.Scope = account.ScopeAdmin
	exp := expires.Time
	p.Expires = &exp
	return &p, nil
}

// DeleteBrowserSession implements account.Service.
func (s *Store) DeleteBrowserSession(ctx context.Context, secretHash string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.d.Rebind(`DELETE FROM browser_sessions WHERE secret_hash = ?`), secretHash); err != nil {
			return fmt.Errorf("delete browser session: %w", err)
		}
		return nil
	})
}

// SpaceRole implements account.Service.
func (s *Store) SpaceRole(ctx context.Context, id smriti.ID) (account.Role, error) {
	return s.spaceRole(ctx, s.read, id)
}

func (s *Store) spaceRole(ctx context.Context, q dbx.Querier, id smriti.ID) (account.Role, error) {
	user := smriti.UserFromContext(ctx)
	var role string
	err := q.QueryRowContext(ctx, s.d.Rebind(`SELECT role FROM space_members WHERE user_id = ? AND space_id IN (
			SELECT id FROM spaces WHERE id = ?
			UNION ALL SELECT space_id FROM sessions WHERE id = ?
			UNION ALL SELECT space_id FROM checkpoints WHERE id = ?
			UNION ALL SELECT space_id FROM claims WHERE id = ?
			UNION ALL SELECT space_id FROM worktrees WHERE id = ?)
		UNION ALL SELECT 'owner' FROM sessions WHERE id = ? AND space_id IS NULL AND owner_id = ?
		LIMIT 1`), user, id, id, id, id, id, id, user).Scan(&role)
	if errors.Is(err, sql.ErrNoRows) {
		return "", smriti.Errorf(smriti.ENOTFOUND, "Not found")
	}
	if err != nil {
		return "", fmt.Errorf("look up role: %w", err)
	}
	return account.Role(role), nil
}

const memberCols = `m.space_id, m.user_id, COALESCE(u.username, ''), m.role, m.created_at`

func scanMember(row interface{ Scan(...any) error }) (*account.Member, error) {
	var m account.Member
	var created dbx.Time
	if err := row.Scan(&m.SpaceID, &m.UserID, &m.Username, &m.Role, &created); err != nil {
		return nil, err
	}
	m.CreatedAt = created.Time
	return &m, nil
}

// Members implements account.Service.
func (s *Store) Members(ctx context.Context, spaceID smriti.ID) ([]*account.Member, error) {
	if err := s.requireRole(ctx, s.read, spaceID, account.NeedAdmin); err != nil {
		return nil, err
	}
	return dbx.QueryAll(ctx, s.d, s.read, "list members", scanMember, `SELECT `+memberCols+`
		FROM space_members m LEFT JOIN users u ON u.id = m.user_id WHERE m.space_id = ? ORDER BY m.created_at, m.user_id`, spaceID)
}

// checkMemberChange applies the rules shared by SetMember and RemoveMember.
func (s *Store) checkMemberChange(ctx context.Context, tx *sql.Tx, spaceID, userID smriti.ID) error {
	if err := s.requireRole(ctx, tx, spaceID, account.NeedAdmin); err != nil {
		return err
	}
	var creator smriti.ID
	if err := tx.QueryRowContext(ctx, s.d.Rebind(`SELECT owner_id FROM spaces WHERE id = ?`), spaceID).Scan(&creator); err != nil {
		return fmt.Errorf("look up space: %w", err)
	}
	if creator == userID {
		return smriti.Errorf(smriti.ECONFLICT, "the space's creator stays its owner")
	}
	return nil
}

// SetMember implements account.Service.
func (s *Store) SetMember(ctx context.Context, spaceID, userID smriti.ID, role account.Role) (*account.Member, error) {
	var m *account.Member
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.checkMemberChange(ctx, tx, spaceID, userID); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, s.d.Rebind(`SELECT COUNT(*) FROM users WHERE id = ?`), userID).Scan(&n); err != nil {
			return fmt.Errorf("look up user: %w", err)
		}
		if n == 0 {
			return errUserNotFound
		}
		if _, err := tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO space_members (space_id, user_id, role, created_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (space_id, user_id) DO UPDATE SET role = excluded.role`), spaceID, userID, string(role), s.d.T(s.Now())); err != nil {
			return fmt.Errorf("set member: %w", err)
		}
		var err error
		m, err = scanMember(tx.QueryRowContext(ctx, s.d.Rebind(`SELECT `+memberCols+`
			FROM space_members m LEFT JOIN users u ON u.id = m.user_id WHERE m.space_id = ? AND m.user_id = ?`), spaceID, userID))
		return err
	})
	return m, err
}

// RemoveMember implements account.Service.
func (s *Store) RemoveMember(ctx context.Context, spaceID, userID smriti.ID) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.checkMemberChange(ctx, tx, spaceID, userID); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, s.d.Rebind(`DELETE FROM space_members WHERE space_id = ? AND user_id = ?`), spaceID, userID)
		if err != nil {
			return fmt.Errorf("remove member: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errMemberNotFound
		}
		return nil
	})
}
