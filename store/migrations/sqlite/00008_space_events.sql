-- +goose Up
-- What happened in a space, in store-log order, for live subscribers. Rows are
-- written by triggers, so every write path records its event in the same
-- transaction without knowing about subscribers. A checkpoint or an
-- assistant turn reuses the log position it already took; a session created,
-- renamed, attached or given a new disposition, and a claim made or
-- finished, takes the next one. Readers
-- resume from a position: the log row is locked by every writer until
-- commit, so positions become visible in order and "after N" never skips one.
CREATE TABLE space_events (
    position    INTEGER PRIMARY KEY,
    space_id    TEXT NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
    kind        TEXT NOT NULL,
    subject_id  TEXT NOT NULL,
    branch_name TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL
);
CREATE INDEX space_events_space ON space_events (space_id, position);

-- +goose StatementBegin
CREATE TRIGGER space_events_checkpoint AFTER INSERT ON checkpoints
BEGIN
    INSERT INTO space_events (position, space_id, kind, subject_id, branch_name, created_at)
    VALUES (NEW.log_pos, NEW.space_id, 'checkpoint.created', NEW.id, NEW.branch_name, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER space_events_turn AFTER INSERT ON turns
WHEN NEW.space_id IS NOT NULL AND NEW.role = 'assistant'
BEGIN
    INSERT INTO space_events (position, space_id, kind, subject_id, branch_name, created_at)
    SELECT NEW.log_pos, NEW.space_id, 'session.updated', NEW.session_id, s.branch_name, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
    FROM sessions s WHERE s.id = NEW.session_id;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER space_events_session_created AFTER INSERT ON sessions
WHEN NEW.space_id IS NOT NULL
BEGIN
    UPDATE store_log SET position = position + 1 WHERE id = 1;
    INSERT INTO space_events (position, space_id, kind, subject_id, branch_name, created_at)
    SELECT position, NEW.space_id, 'session.created', NEW.id, NEW.branch_name, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
    FROM store_log WHERE id = 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER space_events_session_changed AFTER UPDATE OF title, space_id, branch_disposition ON sessions
WHEN NEW.space_id IS NOT NULL AND (OLD.title IS NOT NEW.title OR OLD.space_id IS NOT NEW.space_id
    OR OLD.branch_disposition IS NOT NEW.branch_disposition)
BEGIN
    UPDATE store_log SET position = position + 1 WHERE id = 1;
    INSERT INTO space_events (position, space_id, kind, subject_id, branch_name, created_at)
    SELECT position, NEW.space_id,
        CASE WHEN OLD.branch_disposition IS NOT NEW.branch_disposition THEN 'disposition.changed' ELSE 'session.updated' END,
        NEW.id, NEW.branch_name, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
    FROM store_log WHERE id = 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER space_events_claim_created AFTER INSERT ON claims
BEGIN
    UPDATE store_log SET position = position + 1 WHERE id = 1;
    INSERT INTO space_events (position, space_id, kind, subject_id, branch_name, created_at)
    SELECT position, NEW.space_id, 'claim.changed', NEW.id, NEW.branch_name, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
    FROM store_log WHERE id = 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER space_events_claim_changed AFTER UPDATE OF status ON claims
WHEN OLD.status IS NOT NEW.status
BEGIN
    UPDATE store_log SET position = position + 1 WHERE id = 1;
    INSERT INTO space_events (position, space_id, kind, subject_id, branch_name, created_at)
    SELECT position, NEW.space_id, 'claim.changed', NEW.id, NEW.branch_name, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
    FROM store_log WHERE id = 1;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER space_events_claim_changed;
DROP TRIGGER space_events_claim_created;
DROP TRIGGER space_events_session_changed;
DROP TRIGGER space_events_session_created;
DROP TRIGGER space_events_turn;
DROP TRIGGER space_events_checkpoint;
DROP TABLE space_events;
