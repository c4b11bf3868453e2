-- +goose Up
-- The code an item cites (a JSON list of smriti.ItemRef: path, lines,
-- symbol, commit, span_hash); NULL when the item cites none.
ALTER TABLE checkpoint_items ADD COLUMN refs TEXT;

-- +goose Down
ALTER TABLE checkpoint_items DROP COLUMN refs;
