-- +goose Up
-- How a merge settled a conflict on an item (smriti.ItemMerge as JSON: the
-- choice and the versions turned down); NULL on every other row.
ALTER TABLE checkpoint_items ADD COLUMN change_merge TEXT;

-- +goose Down
ALTER TABLE checkpoint_items DROP COLUMN change_merge;
