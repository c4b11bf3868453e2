-- +goose Up
-- Coordination between agents sharing a space: git worktrees opened for
-- them, the shared cache of how far each worktree has drifted (kept here so
-- every server replica answers the same), and advisory claims on work.
CREATE TABLE worktrees (
    id              UUID PRIMARY KEY,
    space_id        UUID NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
    agent           TEXT NOT NULL,
    path            TEXT NOT NULL,
    branch_name     TEXT NOT NULL,
    base_commit_sha TEXT,
    status          TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'closed')),
    created_at      TIMESTAMPTZ NOT NULL,
    closed_at       TIMESTAMPTZ
);
CREATE INDEX worktrees_space_created ON worktrees (space_id, created_at DESC, id DESC);

CREATE TABLE worktree_probes (
    worktree_id UUID PRIMARY KEY REFERENCES worktrees (id) ON DELETE CASCADE,
    probe       JSONB,
    error       TEXT NOT NULL DEFAULT '',
    probed_at   TIMESTAMPTZ NOT NULL
);

CREATE TABLE claims (
    id                 UUID PRIMARY KEY,
    space_id           UUID NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
    session_id         UUID REFERENCES sessions (id) ON DELETE SET NULL,
    agent              TEXT NOT NULL DEFAULT '',
    branch_name        TEXT NOT NULL DEFAULT 'main',
    base_checkpoint_id UUID REFERENCES checkpoints (id) ON DELETE SET NULL,
    worktree_id        UUID REFERENCES worktrees (id) ON DELETE SET NULL,
    scope              TEXT NOT NULL,
    task_id            TEXT,
    intent             TEXT NOT NULL CHECK (intent IN ('implement', 'review', 'investigate', 'docs', 'test')),
    status             TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'done', 'abandoned')),
    claimed_at         TIMESTAMPTZ NOT NULL,
    expires_at         TIMESTAMPTZ NOT NULL CHECK (expires_at > claimed_at),
    finished_at        TIMESTAMPTZ
);
CREATE INDEX claims_space_claimed ON claims (space_id, claimed_at DESC, id DESC);
CREATE INDEX claims_space_live ON claims (space_id, claimed_at DESC) WHERE status = 'active';
CREATE INDEX claims_worktree ON claims (worktree_id);

-- +goose Down
DROP TABLE claims;
DROP TABLE worktree_probes;
DROP TABLE worktrees;
