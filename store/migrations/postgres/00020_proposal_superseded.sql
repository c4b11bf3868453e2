-- +goose Up
-- A proposal may be superseded: a newer draft of the same agent session
-- replaced it while it waited (it is kept, out of the brief).
ALTER TABLE proposals DROP CONSTRAINT proposals_status_check;
ALTER TABLE proposals ADD CONSTRAINT proposals_status_check CHECK (status IN ('pending', 'accepted', 'rejected', 'superseded'));
CREATE INDEX proposals_session_status ON proposals (session_id, status);

-- +goose Down
DROP INDEX proposals_session_status;
UPDATE proposals SET status = 'rejected' WHERE status = 'superseded';
ALTER TABLE proposals DROP CONSTRAINT proposals_status_check;
ALTER TABLE proposals ADD CONSTRAINT proposals_status_check CHECK (status IN ('pending', 'accepted', 'rejected'));
