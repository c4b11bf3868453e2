-- +goose Up
-- SQLite has one writer at a time, so the store-wide log costs a send
-- nothing: it stays the source of every position, and each space's
-- positions (a subsequence of it) are exact as on PostgreSQL, where each
-- space has a log of its own (migration 11 there). What both engines share
-- is that attaching a session to a space gives its turns new positions in
-- the space's log, after everything already in it; the full-text index,
-- keyed by a turn's position, follows the renumbering.
-- +goose StatementBegin
CREATE TRIGGER turns_search_renumber AFTER UPDATE OF log_pos ON turns
WHEN OLD.log_pos IS NOT NEW.log_pos
BEGIN
    DELETE FROM turn_fts WHERE rowid = OLD.log_pos;
    INSERT INTO turn_fts (rowid, content) VALUES (NEW.log_pos, NEW.content);
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER turns_search_renumber;
