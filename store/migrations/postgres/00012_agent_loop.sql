-- +goose Up
-- A coding agent's session (Claude Code's or Codex's own session id) maps to
-- one Smriti session of the space; re-imports of its transcript append to it.
CREATE TABLE agent_sessions (
    space_id    UUID NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
    source      TEXT NOT NULL CHECK (source IN ('claude-code', 'codex')),
    session_key TEXT NOT NULL CHECK (length(session_key) BETWEEN 1 AND 200),
    session_id  UUID NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    created_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (space_id, source, session_key)
);
CREATE INDEX agent_sessions_session ON agent_sessions (session_id);

-- The entries of an agent transcript already written as turns, by their key
-- (the message uuid, or the hash of the line), so a re-import adds only new ones.
CREATE TABLE agent_entries (
    session_id UUID NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    entry_key  TEXT NOT NULL,
    PRIMARY KEY (session_id, entry_key)
);

-- The exclusive hold on a task: one row per claimed task of a space, naming
-- the claim that holds it and until when. A claim takes the row with one
-- INSERT … ON CONFLICT DO UPDATE … WHERE the holder's lease has run out, so
-- two claimers can never both win.
CREATE TABLE task_holds (
    space_id   UUID NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
    task_id    TEXT NOT NULL,
    claim_id   UUID NOT NULL REFERENCES claims (id) ON DELETE CASCADE,
    expires_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (space_id, task_id)
);
CREATE INDEX task_holds_claim ON task_holds (claim_id);

-- +goose Down
DROP TABLE task_holds;
DROP TABLE agent_entries;
DROP TABLE agent_sessions;
