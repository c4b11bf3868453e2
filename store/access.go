package store

// The one access rule of the store. A caller sees a space when they are one
// of its members (the creator is its owner member, written by a trigger on
// spaces); everything in a space — sessions, turns, checkpoints, notes,
// claims, worktrees — is seen through its space. A session outside any space
// is seen only by the user who made it. What a member may do with what they
// see (viewer, editor, owner) is smriti.Role.Permits.
//
// Each fragment takes the caller's user id as its argument(s).
const (
	// memberSpace follows a space id column: "sp.id" + memberSpace.
	memberSpace = ` IN (SELECT space_id FROM space_members WHERE user_id = ?)`
	// sessionVisible scopes the sessions table (unaliased); two arguments.
	sessionVisible = `(sessions.space_id` + memberSpace + ` OR (sessions.space_id IS NULL AND sessions.owner_id = ?))`
	// sessionVisibleSe is sessionVisible for sessions aliased "se".
	sessionVisibleSe = `(se.space_id` + memberSpace + ` OR (se.space_id IS NULL AND se.owner_id = ?))`
)

// ownedSpace follows a space id column and admits only spaces the caller owns.
const ownedSpace = ` IN (SELECT space_id FROM space_members WHERE user_id = ? AND role = 'owner')`
