-- +goose Up
-- Full-text search over checkpoints, notes and turns: a generated tsvector
-- column per table with a GIN index. A generated column is recomputed by the
-- row write itself, so the index is always in step inside the writing
-- transaction, and deletes (cascades included) take it with the row. The
-- 'simple' configuration (no stemming) matches SQLite's unicode61 tokenizer.
-- Text is capped before indexing because a tsvector is limited to 1 MB.
ALTER TABLE checkpoints ADD COLUMN search_tsv tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('simple', left(message, 10000)), 'A') ||
    setweight(to_tsvector('simple', left(objective || ' ' || summary, 100000)), 'B') ||
    setweight(jsonb_to_tsvector('simple', decisions, '["string"]') ||
              jsonb_to_tsvector('simple', assumptions, '["string"]') ||
              jsonb_to_tsvector('simple', tasks, '["string"]') ||
              jsonb_to_tsvector('simple', open_questions, '["string"]') ||
              jsonb_to_tsvector('simple', entities, '["string"]'), 'C') ||
    setweight(to_tsvector('simple', left(artifacts::text, 200000)), 'D')
) STORED;
CREATE INDEX checkpoints_search ON checkpoints USING GIN (search_tsv);

ALTER TABLE checkpoint_notes ADD COLUMN search_tsv tsvector GENERATED ALWAYS AS (
    to_tsvector('simple', left(text, 100000))
) STORED;
CREATE INDEX checkpoint_notes_search ON checkpoint_notes USING GIN (search_tsv);

ALTER TABLE turns ADD COLUMN search_tsv tsvector GENERATED ALWAYS AS (
    to_tsvector('simple', left(content, 200000))
) STORED;
CREATE INDEX turns_search ON turns USING GIN (search_tsv);

-- Transcript import: one row per imported conversation, keyed by the hash of
-- its content, so importing the same file again writes nothing.
CREATE TABLE transcript_imports (
    space_id     UUID NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
    content_hash TEXT NOT NULL CHECK (length(content_hash) = 64),
    session_id   UUID REFERENCES sessions (id) ON DELETE SET NULL,
    created_at   TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (space_id, content_hash)
);

-- +goose Down
DROP TABLE transcript_imports;
DROP INDEX turns_search;
ALTER TABLE turns DROP COLUMN search_tsv;
DROP INDEX checkpoint_notes_search;
ALTER TABLE checkpoint_notes DROP COLUMN search_tsv;
DROP INDEX checkpoints_search;
ALTER TABLE checkpoints DROP COLUMN search_tsv;
