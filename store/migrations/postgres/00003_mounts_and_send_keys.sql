-- +goose Up
-- A session remembers its mount: the checkpoint its context is anchored to
-- and the last sequence number typed before the mount (-1: every turn).
-- Both NULL when nothing is mounted.
ALTER TABLE sessions ADD COLUMN mounted_checkpoint_id UUID REFERENCES checkpoints (id) ON DELETE SET NULL;
ALTER TABLE sessions ADD COLUMN mount_base_seq BIGINT CHECK (mount_base_seq IS NULL OR mount_base_seq >= -1);
CREATE INDEX sessions_mounted ON sessions (mounted_checkpoint_id);
-- A key remembers a digest of the request it answered, so the same key with
-- a different request is refused; keys older than the retention are purged.
ALTER TABLE send_keys ADD COLUMN request_hash TEXT NOT NULL DEFAULT '';
CREATE INDEX send_keys_created ON send_keys (created_at);

-- +goose Down
DROP INDEX send_keys_created;
ALTER TABLE send_keys DROP COLUMN request_hash;
DROP INDEX sessions_mounted;
ALTER TABLE sessions DROP COLUMN mount_base_seq;
ALTER TABLE sessions DROP COLUMN mounted_checkpoint_id;
