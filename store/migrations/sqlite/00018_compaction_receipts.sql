-- +goose Up
-- Compaction receipts: each time an agent host compacted its context and a
-- hook re-injected the state, which live items the agent was given in full
-- and which it was only told about. The id lists are JSON arrays of item
-- ids; checkpoint_id is main's head at that moment (kept as a plain value:
-- a receipt outlives the checkpoints it names).
CREATE TABLE compaction_receipts (
    id            TEXT PRIMARY KEY,
    space_id      TEXT NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
    agent_session TEXT NOT NULL,
    host          TEXT NOT NULL CHECK (host IN ('claude-code', 'codex')),
    event         TEXT NOT NULL,
    trigger_kind  TEXT NOT NULL DEFAULT '',
    checkpoint_id TEXT,
    live_ids      TEXT NOT NULL,
    injected_ids  TEXT NOT NULL,
    omitted_ids   TEXT NOT NULL,
    missing_ids   TEXT NOT NULL,
    list_command  TEXT NOT NULL,
    tokens        INTEGER NOT NULL CHECK (tokens >= 0),
    status        TEXT NOT NULL CHECK (status IN ('complete', 'incomplete')),
    created_at    TEXT NOT NULL
);
CREATE INDEX compaction_receipts_space_created ON compaction_receipts (space_id, created_at DESC, id DESC);

-- +goose Down
DROP TABLE compaction_receipts;
