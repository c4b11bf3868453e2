-- +goose Up
-- One log per space instead of one for the whole store. Every turn and
-- checkpoint of a space takes the next positions of its space's row, and
-- holds that row's lock until it commits, so within a space positions are
-- exact and become visible in order ("turns after this checkpoint" and an
-- event stream's "after N" stay exact), while writes to different spaces
-- never wait on each other. Positions of different spaces are not
-- comparable; nothing compares them. A session without a space has no
-- checkpoints to compare with: its turns' position is their sequence
-- number + 1, and attaching it to a space gives them new positions in the
-- space's log.
CREATE TABLE space_log (
    space_id UUID PRIMARY KEY REFERENCES spaces (id) ON DELETE CASCADE,
    position BIGINT NOT NULL
);
-- Existing spaces continue from the store-wide position, so every new
-- position is above every position already written.
INSERT INTO space_log (space_id, position)
SELECT s.id, l.position FROM spaces s CROSS JOIN store_log l WHERE l.id = 1;

-- +goose StatementBegin
CREATE FUNCTION space_log_create() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO space_log (space_id, position) VALUES (NEW.id, 0);
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER space_log_create AFTER INSERT ON spaces
    FOR EACH ROW EXECUTE FUNCTION space_log_create();

-- Positions are unique within a space.
ALTER TABLE checkpoints DROP CONSTRAINT checkpoints_log_pos_key;
DROP INDEX checkpoints_space_log;
CREATE UNIQUE INDEX checkpoints_space_log ON checkpoints (space_id, log_pos DESC);
ALTER TABLE turns DROP CONSTRAINT turns_log_pos_key;
DROP INDEX turns_space;
CREATE UNIQUE INDEX turns_space_log ON turns (space_id, log_pos);
ALTER TABLE space_events DROP CONSTRAINT space_events_pkey;
DROP INDEX space_events_space;
ALTER TABLE space_events ADD PRIMARY KEY (space_id, position);

-- Events that take a position of their own take it from their space's log.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION space_events_record() RETURNS trigger LANGUAGE plpgsql AS $$
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
            UPDATE space_log SET position = position + 1 WHERE space_id = NEW.space_id RETURNING position INTO pos;
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
            UPDATE space_log SET position = position + 1 WHERE space_id = NEW.space_id RETURNING position INTO pos;
            INSERT INTO space_events (position, space_id, kind, subject_id, branch_name)
            VALUES (pos, NEW.space_id, ev, NEW.id, NEW.branch_name);
        END IF;
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

-- Turns of sessions without a space are numbered by their session, from 1.
UPDATE turns SET log_pos = sequence_number + 1 WHERE space_id IS NULL;

-- +goose Down
-- Back to one store-wide log: every position is renumbered in the order
-- (position, space), which keeps each space's order, and turns without a
-- space follow.
CREATE TEMPORARY TABLE log_remap ON COMMIT DROP AS
SELECT space_id, pos, row_number() OVER (ORDER BY pos, space_id) AS g FROM (
    SELECT space_id, log_pos AS pos FROM checkpoints
    UNION SELECT space_id, log_pos FROM turns WHERE space_id IS NOT NULL
    UNION SELECT space_id, position FROM space_events) u;
CREATE INDEX ON log_remap (space_id, pos);
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION space_events_record() RETURNS trigger LANGUAGE plpgsql AS $$
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
ALTER TABLE space_events DROP CONSTRAINT space_events_pkey;
DROP INDEX checkpoints_space_log;
DROP INDEX turns_space_log;
UPDATE space_events e SET position = r.g FROM log_remap r WHERE r.space_id = e.space_id AND r.pos = e.position;
UPDATE checkpoints c SET log_pos = r.g FROM log_remap r WHERE r.space_id = c.space_id AND r.pos = c.log_pos;
UPDATE turns t SET log_pos = r.g FROM log_remap r WHERE r.space_id = t.space_id AND r.pos = t.log_pos;
UPDATE turns t SET log_pos = COALESCE((SELECT max(g) FROM log_remap), 0) + l.n
FROM (SELECT id, row_number() OVER (ORDER BY session_id, sequence_number) AS n FROM turns WHERE space_id IS NULL) l
WHERE t.id = l.id;
ALTER TABLE space_events ADD PRIMARY KEY (position);
CREATE INDEX space_events_space ON space_events (space_id, position);
ALTER TABLE checkpoints ADD CONSTRAINT checkpoints_log_pos_key UNIQUE (log_pos);
CREATE INDEX checkpoints_space_log ON checkpoints (space_id, log_pos DESC);
ALTER TABLE turns ADD CONSTRAINT turns_log_pos_key UNIQUE (log_pos);
CREATE INDEX turns_space ON turns (space_id);
UPDATE store_log SET position = (SELECT COALESCE(max(p), 0) FROM (
    SELECT max(log_pos) AS p FROM turns UNION ALL SELECT max(log_pos) FROM checkpoints
    UNION ALL SELECT max(position) FROM space_events) m) WHERE id = 1;
DROP TRIGGER space_log_create ON spaces;
DROP FUNCTION space_log_create();
DROP TABLE space_log;
