-- +goose Up
-- Space names are unique per owner. Existing duplicates keep the oldest
-- space's name; the others get " (2)", " (3)", … in order of creation, or,
-- where that name is taken too, the first 8 characters of their id.
CREATE TABLE space_renames AS
SELECT id, owner_id, name AS old_name,
       name || ' (' || ROW_NUMBER() OVER (PARTITION BY owner_id, name ORDER BY created_at, id) || ')' AS new_name,
       ROW_NUMBER() OVER (PARTITION BY owner_id, name ORDER BY created_at, id) AS rn
FROM spaces;
DELETE FROM space_renames WHERE rn = 1;
UPDATE space_renames SET new_name = old_name || ' (' || substr(id, 1, 8) || ')'
WHERE new_name IN (SELECT s.name FROM spaces s WHERE s.owner_id = space_renames.owner_id);
UPDATE spaces SET name = (SELECT r.new_name FROM space_renames r WHERE r.id = spaces.id)
WHERE id IN (SELECT id FROM space_renames);
DROP TABLE space_renames;
CREATE UNIQUE INDEX spaces_owner_name ON spaces (owner_id, name);

-- A claim's lease length, so a renewal (a heartbeat, or any checkpoint its
-- holder writes) runs the same length again from now. NULL for claims made
-- before: their length is expires_at - claimed_at.
ALTER TABLE claims ADD COLUMN lease_seconds INTEGER;

-- +goose Down
ALTER TABLE claims DROP COLUMN lease_seconds;
DROP INDEX spaces_owner_name;
