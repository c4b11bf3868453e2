-- +goose Up
-- Running token totals: a turn's token_total is the sum of the token counts
-- of its session's turns up to and including it, and a session's is the sum
-- over all its turns. A send finds where its history budget starts with one
-- index lookup (the newest turn whose total is at most the session's total
-- minus the budget) and reads the turns after it with one range query.
ALTER TABLE turns ADD COLUMN token_total INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN token_total INTEGER NOT NULL DEFAULT 0;
UPDATE turns SET token_total = r.total
FROM (SELECT id, SUM(tokens) OVER (PARTITION BY session_id ORDER BY sequence_number) AS total FROM turns) AS r
WHERE turns.id = r.id;
UPDATE sessions SET token_total = COALESCE((SELECT SUM(tokens) FROM turns WHERE turns.session_id = sessions.id), 0);
CREATE INDEX turns_session_token_total ON turns (session_id, token_total, sequence_number);

-- +goose Down
DROP INDEX turns_session_token_total;
ALTER TABLE sessions DROP COLUMN token_total;
ALTER TABLE turns DROP COLUMN token_total;
