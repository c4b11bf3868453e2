package store

import (
	"context"
	"database/sql"
	"fmt"

	"smriti"
	"smriti/account"
	"smriti/records"
	"smriti/secretlog"
	"smriti/store/internal/dbx"
)

const allowCols = `space_id, rule, fingerprint, created_by, created_at`

func scanAllow(r interface{ Scan(...any) error }) (secretlog.SecretAllow, error) {
	var a secretlog.SecretAllow
	var at dbx.Time
	err := r.Scan(&a.SpaceID, &a.Rule, &a.Fingerprint, &a.CreatedBy, &at)
	a.CreatedAt = at.Time
	return a, err
}

// AllowSecret implements secretlog.SecretService.
func (s *Store) AllowSecret(ctx context.Context, in secretlog.SecretAllow) (*secretlog.SecretAllow, error) {
	var out secretlog.SecretAllow
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.requireRole(ctx, tx, in.SpaceID, account.NeedAdmin); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO secret_allowlist (`+allowCols+`) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (space_id, rule, fingerprint) DO NOTHING`), in.SpaceID, in.Rule, in.Fingerprint, in.CreatedBy, s.d.T(s.Now())); err != nil {
			return fmt.Errorf("allow secret: %w", err)
		}
		a, err := scanAllow(tx.QueryRowContext(ctx, s.d.Rebind(`SELECT `+allowCols+` FROM secret_allowlist
			WHERE space_id = ? AND rule = ? AND fingerprint = ?`), in.SpaceID, in.Rule, in.Fingerprint))
		if err != nil {
			return fmt.Errorf("allow secret: %w", err)
		}
		out = a
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// SecretAllowlist implements secretlog.SecretService.
func (s *Store) SecretAllowlist(ctx context.Context, space smriti.ID) ([]secretlog.SecretAllow, error) {
	if _, err := s.Space(ctx, space); err != nil {
		return nil, err
	}
	return dbx.QueryAll(ctx, s.d, s.read, "secret allowlist", scanAllow, `SELECT `+allowCols+` FROM secret_allowlist
		WHERE space_id = ? ORDER BY created_at, rule, fingerprint`, space)
}

// RemoveSecretAllow implements secretlog.SecretService.
func (s *Store) RemoveSecretAllow(ctx context.Context, space smriti.ID, rule, fingerprint string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.requireRole(ctx, tx, space, account.NeedAdmin); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, s.d.Rebind(`DELETE FROM secret_allowlist WHERE space_id = ? AND rule = ? AND fingerprint = ?`), space, rule, fingerprint)
		if err != nil {
			return fmt.Errorf("remove allowed secret: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return smriti.Errorf(smriti.ENOTFOUND, "%s %s is not on this space's allowlist (smriti secrets allowlist lists it)", rule, fingerprint)
		}
		return nil
	})
}

// allowedSecrets is a space's allowlist as a bundle carries it, by rule
// and fingerprint.
func (s *Store) allowedSecrets(ctx context.Context, q dbx.Querier, space smriti.ID) ([]records.BundleAllow, error) {
	rows, err := q.QueryContext(ctx, s.d.Rebind(`SELECT rule, fingerprint FROM secret_allowlist WHERE space_id = ? ORDER BY rule, fingerprint`), space)
	if err != nil {
		return nil, fmt.Errorf("export allowlist: %w", err)
	}
	defer rows.Close()
	var out []records.BundleAllow
	for rows.Next() {
		var a records.BundleAllow
		if err := rows.Scan(&a.Rule, &a.Fingerprint); err != nil {
			return nil, fmt.Errorf("export allowlist: %w", err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// importAllowedSecrets stores the allowlist a bundle's space carries.
func (s *Store) importAllowedSecrets(ctx context.Context, tx *sql.Tx, space smriti.ID, list []records.BundleAllow) error {
	for _, a := range list {
		if _, err := tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO secret_allowlist (`+allowCols+`) VALUES (?, ?, ?, ?, ?)`),
			space, a.Rule, a.Fingerprint, "import", s.d.T(s.Now())); err != nil {
			return importConflict(fmt.Errorf("import allowlist: %w", err))
		}
	}
	return nil
}
