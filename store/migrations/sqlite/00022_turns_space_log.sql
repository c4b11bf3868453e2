-- +goose Up
-- A fetch asks for the turns logged after a position and for the newest
-- turn's position; with only turns_space the answer read every turn of the
-- space. PostgreSQL has had this index since migration 11.
CREATE INDEX turns_space_log ON turns (space_id, log_pos);

-- +goose Down
DROP INDEX turns_space_log;
