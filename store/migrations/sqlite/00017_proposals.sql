-- +goose Up
-- Proposals: drafted checkpoints saved for later, waiting on the server to
-- be accepted (committed on their base), edited or rejected. draft is the
-- proposed content and items as JSON (the store's encoding).
CREATE TABLE proposals (
    id                 TEXT PRIMARY KEY,
    space_id           TEXT NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
    session_id         TEXT REFERENCES sessions (id) ON DELETE SET NULL,
    base_checkpoint_id TEXT REFERENCES checkpoints (id) ON DELETE SET NULL,
    branch_name        TEXT NOT NULL DEFAULT 'main',
    title              TEXT NOT NULL,
    source             TEXT NOT NULL CHECK (source IN ('hook', 'cli', 'mcp', 'web', 'api')),
    status             TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'rejected')),
    draft              TEXT NOT NULL,
    checkpoint_id      TEXT REFERENCES checkpoints (id) ON DELETE SET NULL,
    created_at         TEXT NOT NULL,
    updated_at         TEXT NOT NULL,
    decided_at         TEXT
);
CREATE INDEX proposals_space_created ON proposals (space_id, created_at DESC, id DESC);

-- +goose Down
DROP TABLE proposals;
