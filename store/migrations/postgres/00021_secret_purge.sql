-- +goose Up
-- secret_purges: the audit of each secret purge — who, when, what it chose
-- (a rule, or one value's fingerprint) and which rows it rewrote.
CREATE TABLE secret_purges (
    id          UUID PRIMARY KEY,
    space_id    UUID NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
    purged_by   TEXT NOT NULL,
    purged_at   TIMESTAMPTZ NOT NULL,
    rule        TEXT NOT NULL DEFAULT '',
    fingerprint TEXT NOT NULL DEFAULT '',
    values_purged INTEGER NOT NULL CHECK (values_purged >= 0),
    rows_changed  JSONB NOT NULL,
    CHECK (rule <> '' OR fingerprint <> '')
);
CREATE INDEX secret_purges_space ON secret_purges (space_id, purged_at DESC);

-- checkpoint_purged_fields: a checkpoint text a purge replaced, with the
-- digest of what it held (a version 3 hash covers the digest, so the
-- checkpoint still verifies). Carried with the checkpoint by bundles and
-- sync; purge_id is set where the purge ran here.
CREATE TABLE checkpoint_purged_fields (
    checkpoint_id UUID NOT NULL REFERENCES checkpoints (id) ON DELETE CASCADE,
    field         TEXT NOT NULL,
    digest        TEXT NOT NULL CHECK (length(digest) = 64),
    purged_by     TEXT NOT NULL,
    purged_at     TIMESTAMPTZ NOT NULL,
    rule          TEXT NOT NULL,
    purge_id      UUID REFERENCES secret_purges (id) ON DELETE SET NULL,
    PRIMARY KEY (checkpoint_id, field)
);

-- secret_allowlist: values a space keeps although they look like secrets (a
-- test fixture's fake key), each named by its rule and fingerprint.
CREATE TABLE secret_allowlist (
    space_id    UUID NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
    rule        TEXT NOT NULL CHECK (length(rule) BETWEEN 1 AND 100),
    fingerprint TEXT NOT NULL CHECK (length(fingerprint) = 16),
    created_by  TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (space_id, rule, fingerprint)
);

-- +goose Down
DROP TABLE secret_allowlist;
DROP TABLE checkpoint_purged_fields;
DROP TABLE secret_purges;
