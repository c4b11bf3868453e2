-- +goose Up
-- Idempotency keys of the creating writes other than sends (checkpoint
-- commits, forks, claims, notes, merges, imports). A key is scoped to its
-- caller and to the kind of write (the route). The row is inserted in the
-- same transaction as the write it guards, so a stored row means the write
-- is stored; status and body, the answer to replay, are recorded just
-- after (NULL while the first request is still answering). Rows older than
-- the retention are purged.
CREATE TABLE idempotency_keys (
    user_id         UUID NOT NULL,
    kind            TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    request_hash    TEXT NOT NULL,
    status          INTEGER,
    body            BYTEA,
    created_at      TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (user_id, kind, idempotency_key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- +goose Down
DROP TABLE idempotency_keys;
