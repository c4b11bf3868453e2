-- +goose Up
-- What happened in a space, in store-log order, for live subscribers. Rows are
-- written by triggers, so every write path records its event in the same
-- transaction without knowing about subscribers. A checkpoint or an
-- assistant turn reuses the log position it already took; a session created,
-- renamed, attached or given a new disposition, and a claim made or
-- finished, takes the next one. Readers
-- (any replica) poll "position > N": the log row is locked by every writer
-- until commit, so positions become visible in order and none is skipped.
-- Row triggers on sessions run AFTER the statement has locked its rows, so
-- the log lock is still taken last.
CREATE TABLE space_events (
    position    BIGINT PRIMARY KEY,
    space_id    UUID NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
    kind        TEXT NOT NULL,
    subject_id  UUID NOT NULL,
    branch_name TEXT NOT NULL DEFAULT '',
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX space_events_space ON space_events (space_id, position);

-- +goose StatementBegin
CREATE FUNCTION space_events_record() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    pos BIGINT;
    ev  TEXT;
BEGIN
    IF TG_TABLE_NAME = 'checkpoints' THEN
        INSERT INTO space_events (position, space_id, kind, subject_id, branch_name)
        VALUES (NEW.log_pos, NEW.space_id, 'checkpoint.created', NEW.id, NEW.branch_name);
    ELSIF TG_TABLE_NAME = 'turns' THEN
        IF NEW.space_id IS NOT NULL AND NEW.role = 'assistant' THEN
            INSERT INTO space_events (position, space_id, kind, subject_id, branch_name)
            SELECT NEW.log_pos, NEW.space_id, 'session.updated', NEW.session_id, s.branch_name
            FROM sessions s WHERE s.id = NEW.session_id;
        END IF;
    ELSIF TG_TABLE_NAME = 'claims' THEN
        IF TG_OP = 'INSERT' OR OLD.status IS DISTINCT FROM NEW.status THEN
            UPDATE store_log SET position = position + 1 WHERE id = 1 RETURNING position INTO pos;
            INSERT INTO space_events (position, space_id, kind, subject_id, branch_name)
            VALUES (pos, NEW.space_id, 'claim.changed', NEW.id, NEW.branch_name);
        END IF;
    ELSIF NEW.space_id IS NOT NULL THEN
        IF TG_OP = 'INSERT' THEN
            ev := 'session.created';
        ELSIF OLD.branch_disposition IS DISTINCT FROM NEW.branch_disposition THEN
            ev := 'disposition.changed';
        ELSIF OLD.title IS DISTINCT FROM NEW.title OR OLD.space_id IS DISTINCT FROM NEW.space_id THEN
            ev := 'session.updated';
        END IF;
        IF ev IS NOT NULL THEN
            UPDATE store_log SET position = position + 1 WHERE id = 1 RETURNING position INTO pos;
            INSERT INTO space_events (position, space_id, kind, subject_id, branch_name)
            VALUES (pos, NEW.space_id, ev, NEW.id, NEW.branch_name);
        END IF;
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER space_events_checkpoint AFTER INSERT ON checkpoints
    FOR EACH ROW EXECUTE FUNCTION space_events_record();
CREATE TRIGGER space_events_turn AFTER INSERT ON turns
    FOR EACH ROW EXECUTE FUNCTION space_events_record();
CREATE TRIGGER space_events_session AFTER INSERT OR UPDATE OF title, space_id, branch_disposition ON sessions
    FOR EACH ROW EXECUTE FUNCTION space_events_record();
CREATE TRIGGER space_events_claim AFTER INSERT OR UPDATE OF status ON claims
    FOR EACH ROW EXECUTE FUNCTION space_events_record();

-- +goose Down
DROP TRIGGER space_events_claim ON claims;
DROP TRIGGER space_events_session ON sessions;
DROP TRIGGER space_events_turn ON turns;
DROP TRIGGER space_events_checkpoint ON checkpoints;
DROP FUNCTION space_events_record();
DROP TABLE space_events;
