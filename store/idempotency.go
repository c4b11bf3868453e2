package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"smriti/idempotency"

	"smriti"
	"smriti/store/internal/dbx"
)

var _ idempotency.Store = (*Store)(nil)

// placeClaim inserts an idempotency claim's row inside the write
// transaction tx, before the write itself: on PostgreSQL a concurrent
// request with the same key waits here until the first one ends, then
// finds the row and gives up without writing; on SQLite the single writer
// orders them the same way. A row past the retention (not yet purged) is
// taken over. idempotency.ErrKeyTaken when the key is held.
func (s *Store) placeClaim(ctx context.Context, tx *sql.Tx, c *idempotency.Claim) error {
	now := s.Now()
	res, err := tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO idempotency_keys (user_id, kind, idempotency_key, request_hash, created_at)
		VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (user_id, kind, idempotency_key) DO UPDATE SET request_hash = excluded.request_hash, status = NULL, body = NULL, created_at = excluded.created_at
		WHERE idempotency_keys.created_at < ?`),
		smriti.UserFromContext(ctx), c.Kind, c.Key, c.RequestHash, s.d.T(now), s.d.T(now.Add(-s.keyRetention())))
	if err != nil {
		return fmt.Errorf("record idempotency key: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("record idempotency key: %w", err)
	}
	if n == 0 {
		return idempotency.ErrKeyTaken
	}
	return nil
}

// IdempotentAnswer returns the caller's row of key within the retention,
// nil when there is none.
func (s *Store) IdempotentAnswer(ctx context.Context, kind, key string) (*idempotency.Answer, error) {
	var a idempotency.Answer
	var status sql.NullInt64
	var created dbx.Time
	// Read from the writer: a retry must see a row committed a moment ago.
	err := s.write.QueryRowContext(ctx, s.d.Rebind(`SELECT request_hash, status, body, created_at FROM idempotency_keys
		WHERE user_id = ? AND kind = ? AND idempotency_key = ? AND created_at >= ?`),
		smriti.UserFromContext(ctx), kind, key, s.d.T(s.Now().Add(-s.keyRetention()))).Scan(&a.RequestHash, &status, &a.Body, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("look up idempotency key: %w", err)
	}
	a.Status, a.CreatedAt = int(status.Int64), created.Time
	return &a, nil
}

// RecordIdempotentAnswer stores the answer under the caller's key: it fills
// the row the write's transaction inserted, or inserts the row when that
// transaction did not (its COMMIT failed and a look-up found the write
// stored, or the use case wrote outside a transaction of its own). An
// answer already recorded, or a row of another request, is left alone.
func (s *Store) RecordIdempotentAnswer(ctx context.Context, kind, key, requestHash string, status int, body []byte) error {
	if body == nil {
		body = []byte{}
	}
	now := s.Now()
	return s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO idempotency_keys (user_id, kind, idempotency_key, request_hash, status, body, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (user_id, kind, idempotency_key) DO UPDATE SET status = excluded.status, body = excluded.body
			WHERE idempotency_keys.status IS NULL AND idempotency_keys.request_hash = excluded.request_hash`),
			smriti.UserFromContext(ctx), kind, key, requestHash, status, body, s.d.T(now))
		if err != nil {
			return fmt.Errorf("record idempotent answer: %w", err)
		}
		return nil
	})
}

// purgeIdempotencyKeys deletes the keys of creating writes older than the
// retention.
func (s *Store) purgeIdempotencyKeys(ctx context.Context) (int64, error) {
	res, err := s.write.ExecContext(ctx, s.d.Rebind(`DELETE FROM idempotency_keys WHERE created_at < ?`), s.d.T(s.Now().Add(-s.keyRetention())))
	if err != nil {
		return 0, fmt.Errorf("purge idempotency keys: %w", err)
	}
	return res.RowsAffected()
}
