-- +goose Up
-- The store-wide log: every turn and checkpoint takes the next positions, so
-- "after this checkpoint" is an exact comparison, never a timestamp one.
CREATE TABLE store_log (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    position INTEGER NOT NULL
);
INSERT INTO store_log (id, position) VALUES (1, 0);

CREATE TABLE spaces (
    id           TEXT PRIMARY KEY,
    slug         TEXT UNIQUE,
    owner_id     TEXT NOT NULL,
    name         TEXT NOT NULL,
    description  TEXT NOT NULL DEFAULT '',
    project_root TEXT,
    metadata     TEXT NOT NULL DEFAULT '{}',
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL
);
CREATE INDEX spaces_owner_updated ON spaces (owner_id, updated_at DESC, id DESC);

CREATE TABLE checkpoints (
    id              TEXT PRIMARY KEY,
    space_id        TEXT NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
    commit_hash     TEXT NOT NULL UNIQUE CHECK (length(commit_hash) = 64),
    parent_id       TEXT REFERENCES checkpoints (id) ON DELETE SET NULL,
    merge_parent_id TEXT REFERENCES checkpoints (id) ON DELETE SET NULL,
    branch_name     TEXT NOT NULL DEFAULT 'main',
    author_agent    TEXT,
    author_type     TEXT NOT NULL DEFAULT 'user' CHECK (author_type IN ('user', 'llm', 'agent', 'system')),
    project_root    TEXT,
    message         TEXT NOT NULL,
    summary         TEXT NOT NULL DEFAULT '',
    objective       TEXT NOT NULL DEFAULT '',
    decisions       TEXT NOT NULL DEFAULT '[]',
    assumptions     TEXT NOT NULL DEFAULT '[]',
    tasks           TEXT NOT NULL DEFAULT '[]',
    open_questions  TEXT NOT NULL DEFAULT '[]',
    entities        TEXT NOT NULL DEFAULT '[]',
    artifacts       TEXT NOT NULL DEFAULT '[]',
    context_blob    TEXT NOT NULL DEFAULT '{}',
    raw_source_text TEXT,
    metadata        TEXT NOT NULL DEFAULT '{}',
    log_pos         INTEGER NOT NULL UNIQUE,
    created_at      TEXT NOT NULL
);
CREATE INDEX checkpoints_space_branch_log ON checkpoints (space_id, branch_name, log_pos DESC);
CREATE INDEX checkpoints_space_log ON checkpoints (space_id, log_pos DESC);
CREATE INDEX checkpoints_parent ON checkpoints (parent_id);
CREATE INDEX checkpoints_merge_parent ON checkpoints (merge_parent_id);

CREATE TABLE checkpoint_notes (
    id            TEXT PRIMARY KEY,
    checkpoint_id TEXT NOT NULL REFERENCES checkpoints (id) ON DELETE CASCADE,
    author        TEXT NOT NULL,
    text          TEXT NOT NULL,
    kind          TEXT NOT NULL CHECK (kind IN ('note', 'milestone', 'noise')),
    created_at    TEXT NOT NULL
);
CREATE INDEX checkpoint_notes_checkpoint ON checkpoint_notes (checkpoint_id, created_at);

CREATE TABLE sessions (
    id                        TEXT PRIMARY KEY,
    space_id                  TEXT REFERENCES spaces (id) ON DELETE CASCADE,
    owner_id                  TEXT NOT NULL,
    title                     TEXT NOT NULL DEFAULT '',
    active_provider           TEXT NOT NULL DEFAULT '',
    active_model              TEXT NOT NULL DEFAULT '',
    seeded_checkpoint_id      TEXT REFERENCES checkpoints (id) ON DELETE SET NULL,
    forked_from_checkpoint_id TEXT REFERENCES checkpoints (id) ON DELETE SET NULL,
    branch_name               TEXT NOT NULL DEFAULT 'main',
    branch_disposition        TEXT NOT NULL DEFAULT 'active' CHECK (branch_disposition IN ('active', 'integrated', 'abandoned')),
    last_seq                  INTEGER NOT NULL DEFAULT -1,
    metadata                  TEXT NOT NULL DEFAULT '{}',
    created_at                TEXT NOT NULL,
    updated_at                TEXT NOT NULL
);
CREATE INDEX sessions_owner_updated ON sessions (owner_id, updated_at DESC, id DESC);
CREATE INDEX sessions_space_updated ON sessions (space_id, updated_at DESC, id DESC);
CREATE INDEX sessions_space_branch ON sessions (space_id, branch_name);
CREATE INDEX sessions_forked_from ON sessions (forked_from_checkpoint_id);
CREATE INDEX sessions_seeded ON sessions (seeded_checkpoint_id);

CREATE TABLE turns (
    id              TEXT PRIMARY KEY,
    session_id      TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    space_id        TEXT REFERENCES spaces (id) ON DELETE CASCADE,
    role            TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'system')),
    content         TEXT NOT NULL,
    provider        TEXT NOT NULL DEFAULT '',
    model           TEXT NOT NULL DEFAULT '',
    sequence_number INTEGER NOT NULL CHECK (sequence_number >= 0),
    log_pos         INTEGER NOT NULL UNIQUE,
    tokens          INTEGER NOT NULL DEFAULT 0,
    metadata        TEXT NOT NULL DEFAULT '{}',
    created_at      TEXT NOT NULL,
    UNIQUE (session_id, sequence_number)
);
CREATE INDEX turns_session_log ON turns (session_id, log_pos);
CREATE INDEX turns_space ON turns (space_id);

-- A retried send with the same key returns the stored exchange.
CREATE TABLE send_keys (
    session_id        TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    idempotency_key   TEXT NOT NULL,
    user_turn_id      TEXT NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
    assistant_turn_id TEXT NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
    created_at        TEXT NOT NULL,
    PRIMARY KEY (session_id, idempotency_key)
);

-- +goose Down
DROP TABLE send_keys;
DROP TABLE turns;
DROP TABLE sessions;
DROP TABLE checkpoint_notes;
DROP TABLE checkpoints;
DROP TABLE spaces;
DROP TABLE store_log;
