-- +goose Up
-- Items with identity: each checkpoint's decisions, assumptions, tasks, open
-- questions and entities as rows with an item id that lives across
-- checkpoints, plus a tombstone row for each item the checkpoint retracted,
-- superseded or answered. origin_* is where the item was introduced (copied
-- forward so a checkpoint's items read in one query); change_* and source_*
-- what this checkpoint did to it ('' = carried unchanged).
CREATE TABLE checkpoint_items (
    checkpoint_id        UUID NOT NULL REFERENCES checkpoints (id) ON DELETE CASCADE,
    position             INTEGER NOT NULL,
    item_id              TEXT NOT NULL,
    kind                 TEXT NOT NULL CHECK (kind IN ('decision', 'assumption', 'task', 'open_question', 'entity')),
    text                 TEXT NOT NULL,
    status               TEXT NOT NULL CHECK (status IN ('open', 'done', 'answered', 'retracted', 'superseded')),
    supersedes           JSONB NOT NULL DEFAULT '[]',
    change_op            TEXT NOT NULL DEFAULT '' CHECK (change_op IN ('', 'add', 'update', 'resolve', 'retract', 'supersede')),
    change_before        TEXT,
    change_by            TEXT,
    change_reason        TEXT,
    source_session_id    UUID,
    source_from_seq      BIGINT,
    source_to_seq        BIGINT,
    source_quote         TEXT,
    origin_checkpoint_id UUID,
    origin_session_id    UUID,
    origin_from_seq      BIGINT,
    origin_to_seq        BIGINT,
    origin_quote         TEXT,
    origin_author_agent  TEXT,
    origin_model         TEXT,
    PRIMARY KEY (checkpoint_id, item_id)
);
CREATE INDEX checkpoint_items_item ON checkpoint_items (item_id);

-- 1: the hash does not cover items (written before they had ids); 2: it does.
-- items_ready is 0 until a checkpoint written before this migration has had
-- its items derived (at start-up, oldest first, matching each to its parent).
ALTER TABLE checkpoints ADD COLUMN hash_version SMALLINT NOT NULL DEFAULT 1;
ALTER TABLE checkpoints ADD COLUMN items_ready SMALLINT NOT NULL DEFAULT 0;
CREATE INDEX checkpoints_items_pending ON checkpoints (items_ready, log_pos);
