-- +goose Up
-- A proposal may be superseded: a newer draft of the same agent session
-- replaced it while it waited (it is kept, out of the brief). SQLite
-- cannot change a CHECK in place, so the table is rebuilt (nothing refers
-- to it).
CREATE TABLE proposals_new (
    id                 TEXT PRIMARY KEY,
    space_id           TEXT NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
    session_id         TEXT REFERENCES sessions (id) ON DELETE SET NULL,
    base_checkpoint_id TEXT REFERENCES checkpoints (id) ON DELETE SET NULL,
    branch_name        TEXT NOT NULL DEFAULT 'main',
    title              TEXT NOT NULL,
    source             TEXT NOT NULL CHECK (source IN ('hook', 'cli', 'mcp', 'web', 'api')),
    status             TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'rejected', 'superseded')),
    draft              TEXT NOT NULL,
    checkpoint_id      TEXT REFERENCES checkpoints (id) ON DELETE SET NULL,
    created_at         TEXT NOT NULL,
    updated_at         TEXT NOT NULL,
    decided_at         TEXT
);
INSERT INTO proposals_new SELECT id, space_id, session_id, base_checkpoint_id, branch_name, title, source, status, draft,
    checkpoint_id, created_at, updated_at, decided_at FROM proposals;
DROP TABLE proposals;
ALTER TABLE proposals_new RENAME TO proposals;
CREATE INDEX proposals_space_created ON proposals (space_id, created_at DESC, id DESC);
CREATE INDEX proposals_session_status ON proposals (session_id, status);

-- +goose Down
CREATE TABLE proposals_old (
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
INSERT INTO proposals_old SELECT id, space_id, session_id, base_checkpoint_id, branch_name, title, source,
    CASE status WHEN 'superseded' THEN 'rejected' ELSE status END, draft, checkpoint_id, created_at, updated_at, decided_at FROM proposals;
DROP TABLE proposals;
ALTER TABLE proposals_old RENAME TO proposals;
CREATE INDEX proposals_space_created ON proposals (space_id, created_at DESC, id DESC);
