package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"smriti"
	"smriti/store/internal/dbx"
)

// Ancestry acceleration. Every checkpoint written since migration 2 knows
// its depth on the first-parent chain and keeps a skip pointer to one
// ancestor far below it, at skipHeight(depth). Following skip pointers where
// they do not overshoot reaches any ancestor in O(log depth) lookups, so the
// common ancestor of two checkpoints on a 5,000-deep chain costs a few dozen
// primary-key reads rather than a 5,000-step walk. Merge edges are not part
// of this structure: when a merge could matter, callers fall back to the
// recursive walk over both edges.

// skipHeight is the depth a checkpoint at depth d points its skip pointer
// to: d with its lowest set bit cleared (twice, for odd depths), which
// spreads the pointers so that any ancestor is a logarithmic number of hops
// away.
func skipHeight(d int64) int64 {
	if d < 2 {
		return 0
	}
	clearLowest := func(n int64) int64 { return n & (n - 1) }
	if d&1 == 1 {
		return clearLowest(clearLowest(d-1)) + 1
	}
	return clearLowest(d)
}

// ancNode is what an ancestry walk reads of a checkpoint.
type ancNode struct {
	id     smriti.ID
	depth  int64
	parent *smriti.ID
	skip   *smriti.ID
	logPos int64
}

// errNoAncestry marks a checkpoint written before migration 2.
var errNoAncestry = errors.New("checkpoint has no ancestry data")

// ancestry reads nodes for one walk, each at most once.
type ancestry struct {
	s     *Store
	q     dbx.Querier
	nodes map[smriti.ID]*ancNode
}

func (s *Store) newAncestry(q dbx.Querier) *ancestry {
	return &ancestry{s: s, q: q, nodes: map[smriti.ID]*ancNode{}}
}

func (a *ancestry) node(ctx context.Context, id smriti.ID) (*ancNode, error) {
	if n, ok := a.nodes[id]; ok {
		return n, nil
	}
	var depth sql.NullInt64
	var parent, skip uuid.NullUUID
	n := &ancNode{id: id}
	err := a.s.stmtOn(ctx, a.q, `SELECT depth, parent_id, skip_id, log_pos FROM checkpoints WHERE id = ?`).QueryRowContext(ctx, id).
		Scan(&depth, &parent, &skip, &n.logPos)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errCheckpointNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read ancestry: %w", err)
	}
	if !depth.Valid {
		return nil, errNoAncestry
	}
	n.depth, n.parent, n.skip = depth.Int64, dbx.NullID(parent), dbx.NullID(skip)
	if n.depth > 0 && n.parent == nil {
		// The parent row is gone (only whole-space deletes do that): the
		// pointers can no longer be trusted.
		return nil, errNoAncestry
	}
	a.nodes[id] = n
	return n, nil
}

// step reads the node an edge of n points to and checks it sits exactly
// where the edge promises (the parent one level down, the skip target at
// skipHeight). Rows edited by hand can break that; then the walk gives up
// with errNoAncestry and the caller uses the cycle-safe recursive walk.
func (a *ancestry) step(ctx context.Context, n *ancNode, viaSkip bool) (*ancNode, error) {
	to, want := n.parent, n.depth-1
	if viaSkip {
		to, want = n.skip, skipHeight(n.depth)
	}
	if to == nil {
		return nil, errNoAncestry
	}
	next, err := a.node(ctx, *to)
	if err != nil {
		return nil, err
	}
	if next.depth != want {
		return nil, errNoAncestry
	}
	return next, nil
}

// ancestorAt returns n's ancestor at depth h (h <= n.depth).
func (a *ancestry) ancestorAt(ctx context.Context, n *ancNode, h int64) (*ancNode, error) {
	var err error
	for n.depth > h {
		sh := skipHeight(n.depth)
		// Take the skip when it lands exactly, or overshoots less than the
		// parent's skip would help: stepping to the parent is only worth it
		// when the parent's skip lands between h and this skip.
		shPrev := skipHeight(n.depth - 1)
		useSkip := n.skip != nil && (sh == h || (sh > h && !(shPrev < sh-2 && shPrev >= h)))
		if n, err = a.step(ctx, n, useSkip); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// commonAncestor returns the lowest common ancestor of x and y along
// first-parent chains, or nil when they share no root.
func (a *ancestry) commonAncestor(ctx context.Context, x, y *ancNode) (*ancNode, error) {
	var err error
	if x.depth > y.depth {
		x, err = a.ancestorAt(ctx, x, y.depth)
	} else if y.depth > x.depth {
		y, err = a.ancestorAt(ctx, y, x.depth)
	}
	if err != nil {
		return nil, err
	}
	for x.id != y.id {
		if x.depth == 0 {
			return nil, nil
		}
		// At equal depth both skips land at the same height; if they land
		// on different checkpoints the common ancestor is below them both.
		viaSkip := x.skip != nil && y.skip != nil && *x.skip != *y.skip
		if x, err = a.step(ctx, x, viaSkip); err != nil {
			return nil, err
		}
		if y, err = a.step(ctx, y, viaSkip); err != nil {
			return nil, err
		}
	}
	return x, nil
}

// placement computes a new checkpoint's depth and skip pointer from its
// parent (nil for a root). ok is false when the parent predates the
// ancestry columns.
func (a *ancestry) placement(ctx context.Context, parent *smriti.ID) (depth int64, skip *smriti.ID, ok bool, err error) {
	if parent == nil {
		return 0, nil, true, nil
	}
	p, err := a.node(ctx, *parent)
	if errors.Is(err, errNoAncestry) {
		return 0, nil, false, nil
	}
	if err != nil {
		return 0, nil, false, err
	}
	depth = p.depth + 1
	target, err := a.ancestorAt(ctx, p, skipHeight(depth))
	if errors.Is(err, errNoAncestry) {
		return 0, nil, false, nil
	}
	if err != nil {
		return 0, nil, false, err
	}
	return depth, &target.id, true, nil
}
