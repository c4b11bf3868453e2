-- +goose Up
-- Accounts. Users sign in with an argon2id password hash; API tokens and
-- browser sessions are stored only as the SHA-256 of their secret, so a copy
-- of the database grants nothing. The built-in local user exists as a row
-- (no password, so it can never sign in) so that membership has a user.
CREATE TABLE users (
    id            UUID PRIMARY KEY,
    username      TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL DEFAULT '',
    disabled      BOOLEAN NOT NULL DEFAULT FALSE,
    created_at    TIMESTAMPTZ NOT NULL
);
INSERT INTO users (id, username, created_at)
VALUES ('00000000-0000-0000-0000-00000000000a', 'local', now());

CREATE TABLE api_tokens (
    id           UUID PRIMARY KEY,
    user_id      UUID NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         TEXT NOT NULL DEFAULT '',
    secret_hash  TEXT NOT NULL UNIQUE CHECK (length(secret_hash) = 64),
    scope        TEXT NOT NULL CHECK (scope IN ('read', 'write', 'admin')),
    created_at   TIMESTAMPTZ NOT NULL,
    expires_at   TIMESTAMPTZ,
    revoked_at   TIMESTAMPTZ
);
CREATE INDEX api_tokens_user ON api_tokens (user_id, created_at);

CREATE TABLE browser_sessions (
    secret_hash TEXT PRIMARY KEY CHECK (length(secret_hash) = 64),
    user_id     UUID NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at  TIMESTAMPTZ NOT NULL,
    expires_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX browser_sessions_user ON browser_sessions (user_id);

-- Who may see a space and what they may do there. A space's creator is its
-- owner member; every query that touches a space asks this table. user_id
-- has no foreign key: rows written before accounts existed name users that
-- have no row.
CREATE TABLE space_members (
    space_id   UUID NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
    user_id    UUID NOT NULL,
    role       TEXT NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')),
    created_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (space_id, user_id)
);
CREATE INDEX space_members_user ON space_members (user_id, space_id);
INSERT INTO space_members (space_id, user_id, role, created_at)
SELECT id, owner_id, 'owner', created_at FROM spaces;

-- +goose StatementBegin
CREATE FUNCTION space_members_owner() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO space_members (space_id, user_id, role, created_at)
    VALUES (NEW.id, NEW.owner_id, 'owner', NEW.created_at);
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER space_members_owner AFTER INSERT ON spaces
    FOR EACH ROW EXECUTE FUNCTION space_members_owner();

-- +goose Down
DROP TRIGGER space_members_owner ON spaces;
DROP FUNCTION space_members_owner();
DROP TABLE space_members;
DROP TABLE browser_sessions;
DROP TABLE api_tokens;
DROP TABLE users;
