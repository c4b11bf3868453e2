-- +goose Up
-- Full-text search over checkpoints, notes and turns. Each index is an FTS5
-- table kept in step with its source table by triggers, so every write path
-- (and every delete, including foreign-key cascades) updates it inside the
-- same transaction. Checkpoints and turns use their store-wide log position
-- as the FTS rowid: it is unique, never reused and survives VACUUM, so a
-- delete finds its index row directly.
CREATE VIRTUAL TABLE checkpoint_fts USING fts5 (
    message, objective, summary, body,
    tokenize = 'unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE turn_fts USING fts5 (
    content,
    tokenize = 'unicode61 remove_diacritics 2'
);
-- Notes have no log position; their id is kept unindexed beside the text.
CREATE VIRTUAL TABLE note_fts USING fts5 (
    note_id UNINDEXED, text,
    tokenize = 'unicode61 remove_diacritics 2'
);

-- +goose StatementBegin
CREATE TRIGGER checkpoints_search_insert AFTER INSERT ON checkpoints BEGIN
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
-- +goose StatementBegin
CREATE TRIGGER checkpoints_search_delete AFTER DELETE ON checkpoints BEGIN
    DELETE FROM checkpoint_fts WHERE rowid = OLD.log_pos;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER turns_search_insert AFTER INSERT ON turns BEGIN
    INSERT INTO turn_fts (rowid, content) VALUES (NEW.log_pos, NEW.content);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER turns_search_delete AFTER DELETE ON turns BEGIN
    DELETE FROM turn_fts WHERE rowid = OLD.log_pos;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER notes_search_insert AFTER INSERT ON checkpoint_notes BEGIN
    INSERT INTO note_fts (note_id, text) VALUES (NEW.id, NEW.text);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER notes_search_delete AFTER DELETE ON checkpoint_notes BEGIN
    DELETE FROM note_fts WHERE note_id = OLD.id;
END;
-- +goose StatementEnd

-- Rows written before this migration.
INSERT INTO checkpoint_fts (rowid, message, objective, summary, body)
SELECT c.log_pos, c.message, c.objective, c.summary,
    (SELECT group_concat(v, char(10)) FROM (
        SELECT value AS v FROM json_each(c.decisions)
        UNION ALL SELECT value FROM json_each(c.assumptions)
        UNION ALL SELECT CASE WHEN type = 'object' THEN json_extract(value, '$.text') ELSE value END FROM json_each(c.tasks)
        UNION ALL SELECT value FROM json_each(c.open_questions)
        UNION ALL SELECT value FROM json_each(c.entities)
        UNION ALL SELECT json_extract(value, '$.label') || ' ' || json_extract(value, '$.content') FROM json_each(c.artifacts)
    ))
FROM checkpoints c;
INSERT INTO turn_fts (rowid, content) SELECT log_pos, content FROM turns;
INSERT INTO note_fts (note_id, text) SELECT id, text FROM checkpoint_notes;

-- Transcript import: one row per imported conversation, keyed by the hash of
-- its content, so importing the same file again writes nothing.
CREATE TABLE transcript_imports (
    space_id     TEXT NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
    content_hash TEXT NOT NULL CHECK (length(content_hash) = 64),
    session_id   TEXT REFERENCES sessions (id) ON DELETE SET NULL,
    created_at   TEXT NOT NULL,
    PRIMARY KEY (space_id, content_hash)
);

-- +goose Down
DROP TABLE transcript_imports;
DROP TRIGGER notes_search_delete;
DROP TRIGGER notes_search_insert;
DROP TRIGGER turns_search_delete;
DROP TRIGGER turns_search_insert;
DROP TRIGGER checkpoints_search_delete;
DROP TRIGGER checkpoints_search_insert;
DROP TABLE note_fts;
DROP TABLE turn_fts;
DROP TABLE checkpoint_fts;
