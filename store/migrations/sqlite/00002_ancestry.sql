-- +goose Up
-- Ancestry acceleration along the first-parent chain: a checkpoint's depth
-- (0 for a root) and a skip pointer to one ancestor far below it, so the
-- common ancestor of two checkpoints is found in O(log depth) lookups
-- instead of a walk over the whole chain. NULL for rows written before this
-- migration; those fall back to the recursive walk.
ALTER TABLE checkpoints ADD COLUMN depth INTEGER;
ALTER TABLE checkpoints ADD COLUMN skip_id TEXT REFERENCES checkpoints (id) ON DELETE SET NULL;
-- Merges are rare; this finds the ones that could change a common ancestor.
CREATE INDEX checkpoints_merges ON checkpoints (space_id, log_pos) WHERE merge_parent_id IS NOT NULL;

-- +goose Down
DROP INDEX checkpoints_merges;
ALTER TABLE checkpoints DROP COLUMN skip_id;
ALTER TABLE checkpoints DROP COLUMN depth;
