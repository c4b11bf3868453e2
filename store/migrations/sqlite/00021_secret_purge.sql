-- +goose Up
-- secret_purges: the audit of each secret purge — who, when, what it chose
-- (a rule, or one value's fingerprint) and which rows it rewrote.
CREATE TABLE secret_purges (
    id          TEXT PRIMARY KEY,
    space_id    TEXT NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
    purged_by   TEXT NOT NULL,
    purged_at   TEXT NOT NULL,
    rule        TEXT NOT NULL DEFAULT '',
    fingerprint TEXT NOT NULL DEFAULT '',
    values_purged INTEGER NOT NULL CHECK (values_purged >= 0),
    rows_changed  TEXT NOT NULL,
    CHECK (rule <> '' OR fingerprint <> '')
);
CREATE INDEX secret_purges_space ON secret_purges (space_id, purged_at DESC);

-- checkpoint_purged_fields: a checkpoint text a purge replaced, with the
-- digest of what it held (a version 3 hash covers the digest, so the
-- checkpoint still verifies). Carried with the checkpoint by bundles and
-- sync; purge_id is set where the purge ran here.
CREATE TABLE checkpoint_purged_fields (
    checkpoint_id TEXT NOT NULL REFERENCES checkpoints (id) ON DELETE CASCADE,
    field         TEXT NOT NULL,
    digest        TEXT NOT NULL CHECK (length(digest) = 64),
    purged_by     TEXT NOT NULL,
    purged_at     TEXT NOT NULL,
    rule          TEXT NOT NULL,
    purge_id      TEXT REFERENCES secret_purges (id) ON DELETE SET NULL,
    PRIMARY KEY (checkpoint_id, field)
);

-- secret_allowlist: values a space keeps although they look like secrets (a
-- test fixture's fake key), each named by its rule and fingerprint.
CREATE TABLE secret_allowlist (
    space_id    TEXT NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
    rule        TEXT NOT NULL CHECK (length(rule) BETWEEN 1 AND 100),
    fingerprint TEXT NOT NULL CHECK (length(fingerprint) = 16),
    created_by  TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    PRIMARY KEY (space_id, rule, fingerprint)
);

-- The search index follows a purge's rewrite of a turn, a checkpoint or a
-- note (PostgreSQL's generated columns do so by themselves).
-- +goose StatementBegin
CREATE TRIGGER turns_search_update AFTER UPDATE OF content ON turns
WHEN OLD.content IS NOT NEW.content
BEGIN
    DELETE FROM turn_fts WHERE rowid = OLD.log_pos;
    INSERT INTO turn_fts (rowid, content) VALUES (NEW.log_pos, NEW.content);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER notes_search_update AFTER UPDATE OF text ON checkpoint_notes
WHEN OLD.text IS NOT NEW.text
BEGIN
    DELETE FROM note_fts WHERE note_id = OLD.id;
    INSERT INTO note_fts (note_id, text) VALUES (NEW.id, NEW.text);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER checkpoints_search_update AFTER UPDATE OF message, objective, summary, decisions, assumptions, tasks,
    open_questions, entities, artifacts ON checkpoints
BEGIN
    DELETE FROM checkpoint_fts WHERE rowid = OLD.log_pos;
    INSERT INTO checkpoint_fts (rowid, message, objective, summary, body) VALUES (
        NEW.log_pos, NEW.message, NEW.objective, NEW.summary,
        (SELECT group_concat(v, char(10)) FROM (
            SELECT value AS v FROM json_each(NEW.decisions)
            UNION ALL SELECT value FROM json_each(NEW.assumptions)
            UNION ALL SELECT CASE WHEN type = 'object' THEN json_extract(value, '$.text') ELSE value END FROM json_each(NEW.tasks)
            UNION ALL SELECT value FROM json_each(NEW.open_questions)
            UNION ALL SELECT value FROM json_each(NEW.entities)
            UNION ALL SELECT json_extract(value, '$.label') || ' ' || json_extract(value, '$.content') FROM json_each(NEW.artifacts)
        )));
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER checkpoints_search_update;
DROP TRIGGER notes_search_update;
DROP TRIGGER turns_search_update;
DROP TABLE secret_allowlist;
DROP TABLE checkpoint_purged_fields;
DROP TABLE secret_purges;
