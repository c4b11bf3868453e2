package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"smriti/lineage"
	"sort"

	"github.com/google/uuid"

	"smriti"
	"smriti/store/internal/dbx"
)

var _ lineage.Service = (*Store)(nil)

// walkUp is the recursive step of every history walk: from the checkpoints
// already in the walk named w, go to their parents along both edges (the
// parent and the merge parent). The step looks parents up by primary key
// only; callers seed the walk inside one space and keep only that space's
// rows in their final select (a filter on space_id inside the step would
// lead SQLite to scan the space's index at every step).
//
// Each row carries only columns that are functions of the checkpoint id, so
// UNION (not UNION ALL) drops a checkpoint reached a second time: a diamond
// made by a merge is walked once, not once per path. That is also why the
// walk has no depth column — a depth would make the same checkpoint reached
// by paths of different lengths two rows, and across many merges the rows
// multiply. What bounds the walk instead is that an edge is followed only to
// a strictly older checkpoint (lower log position): a parent is always
// written before its child, so real histories lose nothing, and rows edited
// by hand into a cycle still cannot loop — every step goes down a finite
// ladder of log positions, so the walk is at most as long as the log.
func walkUp(w string) string {
	return `SELECT p.id, p.log_pos, p.parent_id, p.merge_parent_id FROM ` + w + `
		JOIN checkpoints p ON p.id IN (` + w + `.parent_id, ` + w + `.merge_parent_id)
		WHERE p.log_pos < ` + w + `.log_pos`
}

// CommonAncestor implements lineage.Service with one recursive query
// of two walks up both parent edges. The older checkpoint's history is
// walked in full; the newer one's walk stops at every checkpoint the first
// walk holds, so the history both share is walked once, not twice. The
// answer is the newest checkpoint the walks share: a lowest common
// ancestor, since any common ancestor below another is older than it, and
// choosing by log position keeps the answer deterministic where a
// criss-cross of merges leaves several. (The newer walk cannot stop before
// reaching it: a shared checkpoint on the way would be a newer common
// ancestor.)
func (s *Store) CommonAncestor(ctx context.Context, a, b smriti.ID) (*smriti.Checkpoint, error) {
	spaceID, older, newer, err := s.sameSpace(ctx, a, b)
	if err != nil {
		return nil, err
	}
	if a == b {
		return s.Checkpoint(ctx, a)
	}
	if id, ok, err := s.fastCommonAncestor(ctx, spaceID, older, newer); err != nil {
		return nil, err
	} else if ok {
		if id == nil {
			return nil, nil
		}
		return s.Checkpoint(ctx, *id)
	}
	return s.walkCommonAncestor(ctx, spaceID, older, newer)
}

// walkCommonAncestor finds the common ancestor with one recursive query
// over both parent edges (see CommonAncestor).
func (s *Store) walkCommonAncestor(ctx context.Context, spaceID, older, newer smriti.ID) (*smriti.Checkpoint, error) {
	c, err := scanCheckpoint(s.read.QueryRowContext(ctx, s.d.Rebind(`WITH RECURSIVE
		wo (id, log_pos, parent_id, merge_parent_id) AS (
			SELECT id, log_pos, parent_id, merge_parent_id FROM checkpoints WHERE id = ?
			UNION `+walkUp("wo")+`
		),
		wn (id, log_pos, parent_id, merge_parent_id) AS (
			SELECT id, log_pos, parent_id, merge_parent_id FROM checkpoints WHERE id = ?
			UNION `+walkUp("wn")+` AND wn.id NOT IN (SELECT id FROM wo)
		)
		SELECT `+checkpointCols+` FROM wn CROSS JOIN checkpoints c
		WHERE c.id = wn.id AND wn.id IN (SELECT id FROM wo) AND c.space_id = ? ORDER BY wn.log_pos DESC LIMIT 1`), older, newer, spaceID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("common ancestor: %w", err)
	}
	if err := s.attachNotes(ctx, s.read, []*smriti.Checkpoint{c}); err != nil {
		return nil, err
	}
	return c, nil
}

// sameSpace checks the caller may see both checkpoints and that they share a
// space, and returns the space and the two ids, older first.
func (s *Store) sameSpace(ctx context.Context, a, b smriti.ID) (space, older, newer smriti.ID, err error) {
	rows, err := s.read.QueryContext(ctx, s.d.Rebind(`SELECT c.id, c.space_id, c.log_pos`+visibleCheckpoint+` AND c.id IN (?, ?)`),
		smriti.UserFromContext(ctx), a, b)
	if err != nil {
		return space, older, newer, fmt.Errorf("look up checkpoints: %w", err)
	}
	defer rows.Close()
	type found struct {
		space smriti.ID
		pos   int64
	}
	seen := map[smriti.ID]found{}
	for rows.Next() {
		var id smriti.ID
		var f found
		if err := rows.Scan(&id, &f.space, &f.pos); err != nil {
			return space, older, newer, fmt.Errorf("look up checkpoints: %w", err)
		}
		seen[id] = f
	}
	if err := rows.Err(); err != nil {
		return space, older, newer, fmt.Errorf("look up checkpoints: %w", err)
	}
	fa, okA := seen[a]
	fb, okB := seen[b]
	switch {
	case !okA || !okB:
		return space, older, newer, errCheckpointNotFound
	case fa.space != fb.space:
		return space, older, newer, smriti.Errorf(smriti.EINVALID, "Checkpoints belong to different spaces")
	case fa.pos <= fb.pos:
		return fa.space, a, b, nil
	}
	return fa.space, b, a, nil
}

// ReachableCheckpoints implements lineage.Service. A fork sees its
// branch and everything its branch descends from: one recursive query seeded
// with the branch's checkpoints and the fork source walks up both parent
// edges, so a checkpoint merged into the branch is reachable too, while
// main's later checkpoints and sibling branches (which nothing on the branch
// descends from) are not.
func (s *Store) ReachableCheckpoints(ctx context.Context, sessionID smriti.ID) ([]*smriti.Checkpoint, error) {
	se, err := s.session(ctx, s.read, sessionID, "")
	if err != nil {
		return nil, err
	}
	if se.SpaceID == nil {
		return []*smriti.Checkpoint{}, nil
	}
	space := *se.SpaceID
	var out []*smriti.Checkpoint
	// A fork whose source was deleted has nothing to descend from but main.
	if se.BranchName == smriti.MainBranch || se.ForkedFromCheckpointID == nil {
		out, err = s.queryCheckpoints(ctx, s.read, `SELECT `+checkpointCols+visibleCheckpoint+
			` AND c.space_id = ? AND c.branch_name = ? ORDER BY c.log_pos DESC`, smriti.UserFromContext(ctx), space, smriti.MainBranch)
	} else {
		out, err = s.queryCheckpoints(ctx, s.read, `WITH RECURSIVE
			r (id, log_pos, parent_id, merge_parent_id) AS (
				SELECT id, log_pos, parent_id, merge_parent_id FROM checkpoints
				WHERE space_id = ? AND (branch_name = ? OR id = ?)
				UNION `+walkUp("r")+`
			)
			SELECT `+checkpointCols+` FROM r JOIN checkpoints c ON c.id = r.id JOIN spaces sp ON sp.id = c.space_id
			WHERE c.space_id = ? AND sp.id`+memberSpace+` ORDER BY c.log_pos DESC`,
			space, se.BranchName, *se.ForkedFromCheckpointID, space, smriti.UserFromContext(ctx))
	}
	if err != nil {
		return nil, err
	}
	if err := s.attachNotesChunked(ctx, out); err != nil {
		return nil, err
	}
	return out, nil
}

// attachNotesChunked loads notes for a list of any length, a page of ids at
// a time, keeping each query under the engines' limits on bound parameters.
func (s *Store) attachNotesChunked(ctx context.Context, cs []*smriti.Checkpoint) error {
	const chunk = 500
	for i := 0; i < len(cs); i += chunk {
		if err := s.attachNotes(ctx, s.read, cs[i:min(i+chunk, len(cs))]); err != nil {
			return err
		}
	}
	return nil
}

// SpaceTree implements lineage.Service in three queries whatever the
// size of the space: the checkpoints' graph columns (never their structured
// content), the note counts grouped by checkpoint and kind, and the sessions.
func (s *Store) SpaceTree(ctx context.Context, spaceID smriti.ID) (*lineage.Tree, error) {
	if _, err := s.space(ctx, s.read, spaceID); err != nil {
		return nil, err
	}
	rows, err := s.read.QueryContext(ctx, s.d.Rebind(`SELECT id, commit_hash, message, branch_name, parent_id, merge_parent_id,
		summary, objective, author_agent, log_pos, created_at FROM checkpoints WHERE space_id = ? ORDER BY log_pos`), spaceID)
	if err != nil {
		return nil, fmt.Errorf("load tree: %w", err)
	}
	defer rows.Close()
	tree := &lineage.Tree{SpaceID: spaceID, Checkpoints: []lineage.TreeCheckpoint{}}
	for rows.Next() {
		var c lineage.TreeCheckpoint
		var parent, merge uuid.NullUUID
		var agent sql.NullString
		var created dbx.Time
		if err := rows.Scan(&c.ID, &c.Hash, &c.Message, &c.BranchName, &parent, &merge, &c.Summary, &c.Objective,
			&agent, &c.LogPos, &created); err != nil {
			return nil, fmt.Errorf("load tree: %w", err)
		}
		c.ParentID, c.MergeParentID, c.CreatedAt = dbx.NullID(parent), dbx.NullID(merge), created.Time
		if agent.Valid {
			c.AuthorAgent = &agent.String
		}
		c.NoteKinds = []string{}
		tree.Checkpoints = append(tree.Checkpoints, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load tree: %w", err)
	}
	rows.Close()
	kinds, err := s.noteKinds(ctx, s.read, spaceID)
	if err != nil {
		return nil, err
	}
	for i := range tree.Checkpoints {
		c := &tree.Checkpoints[i]
		for kind, n := range kinds[c.ID] {
			c.NoteCount += n
			c.NoteKinds = append(c.NoteKinds, kind)
		}
		sort.Strings(c.NoteKinds)
	}
	tree.Sessions, err = s.querySessions(ctx, s.read, `SELECT `+sessionCols+` FROM sessions WHERE space_id = ? AND `+sessionVisible+`
		ORDER BY created_at, id`, spaceID, smriti.UserFromContext(ctx), smriti.UserFromContext(ctx))
	if err != nil {
		return nil, err
	}
	return tree, nil
}

// fastCommonAncestor answers with the skip pointers when they are enough:
// both checkpoints carry ancestry data and no merge in the space could
// offer a nearer ancestor. ok is false when the recursive walk must decide.
func (s *Store) fastCommonAncestor(ctx context.Context, spaceID, x, y smriti.ID) (id *smriti.ID, ok bool, err error) {
	lca, top, err := s.firstParentAncestor(ctx, x, y)
	if errors.Is(err, errNoAncestry) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	// A merge newer than the first-parent answer (any merge, when there is
	// none) and not newer than both checkpoints might lead to a nearer one.
	low := int64(-1)
	if lca != nil {
		low = lca.logPos
	}
	var one int
	err = s.read.QueryRowContext(ctx, s.d.Rebind(`SELECT 1 FROM checkpoints WHERE space_id = ? AND merge_parent_id IS NOT NULL
		AND log_pos > ? AND log_pos <= ? LIMIT 1`), spaceID, low, top).Scan(&one)
	switch {
	case err == nil:
		return nil, false, nil
	case !errors.Is(err, sql.ErrNoRows):
		return nil, false, fmt.Errorf("look for merges: %w", err)
	case lca == nil:
		return nil, true, nil
	}
	return &lca.id, true, nil
}

// firstParentAncestor is the common ancestor along first-parent chains
// (nil when none) and the newer checkpoint's log position.
func (s *Store) firstParentAncestor(ctx context.Context, x, y smriti.ID) (*ancNode, int64, error) {
	a := s.newAncestry(s.read)
	nx, err := a.node(ctx, x)
	if err != nil {
		return nil, 0, err
	}
	ny, err := a.node(ctx, y)
	if err != nil {
		return nil, 0, err
	}
	lca, err := a.commonAncestor(ctx, nx, ny)
	return lca, max(nx.logPos, ny.logPos), err
}
