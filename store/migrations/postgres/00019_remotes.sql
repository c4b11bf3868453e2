-- +goose Up
-- Copies of one space on other servers (SPEC §3 "Copies of one space").
-- remotes: where a space's other copies are, per space, with the token
-- that reaches them (a secret: never answered by the API).
CREATE TABLE remotes (
    space_id        UUID NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
    name            TEXT NOT NULL,
    url             TEXT NOT NULL,
    remote_space_id UUID NOT NULL,
    token           TEXT NOT NULL DEFAULT '',
    fetch_cursor    BIGINT NOT NULL DEFAULT -1,
    push_cursor     BIGINT NOT NULL DEFAULT -1,
    fetched_at      TIMESTAMPTZ,
    created_at      TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (space_id, name)
);

-- remote_heads: the remote-tracking heads (origin/main), as last fetched or
-- pushed. checkpoint_id is a plain value: the head may be only staged.
CREATE TABLE remote_heads (
    space_id      UUID NOT NULL,
    remote        TEXT NOT NULL,
    branch_name   TEXT NOT NULL,
    checkpoint_id UUID NOT NULL,
    commit_hash   TEXT NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (space_id, remote, branch_name),
    FOREIGN KEY (space_id, remote) REFERENCES remotes (space_id, name) ON DELETE CASCADE
);

-- sync_staged: records fetched and verified but not yet on a local branch
-- (a pull applies them), in the order they arrived (parents first).
CREATE TABLE sync_staged (
    space_id    UUID NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
    seq         BIGINT NOT NULL,
    remote      TEXT NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('checkpoint', 'session', 'turn')),
    record_id   TEXT NOT NULL,
    commit_hash TEXT,
    branch_name TEXT,
    record      TEXT NOT NULL,
    PRIMARY KEY (space_id, seq),
    UNIQUE (space_id, kind, record_id)
);

-- A private session's turns, the quotes they lent to provenance, its
-- receipts and context records never leave this server.
ALTER TABLE sessions ADD COLUMN private BOOLEAN NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE sessions DROP COLUMN private;
DROP TABLE sync_staged;
DROP TABLE remote_heads;
DROP TABLE remotes;
