package store

import (
	"container/heap"
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"smriti"
	"smriti/store/internal/dbx"
)

// AheadOf counts the checkpoints in head's history that are not in base's
// (nil base: all of head's history).
//
// It walks both histories together, newest log position first, marking
// what base reaches. A parent is always logged before its child, so a
// checkpoint is taken off the walk only after every child of it the walk
// holds, and its mark is final then. The walk ends when everything left
// to visit is base's: the cost follows what head added since the two
// lines met, not the history. Log position alone is not a floor: a
// checkpoint fetched from elsewhere and applied by a pull is logged after
// the local ones it is merged with.
func (s *Store) AheadOf(ctx context.Context, head smriti.ID, base *smriti.ID) (int, error) {
	if base == nil {
		var n int
		err := s.read.QueryRowContext(ctx, s.d.Rebind(`WITH RECURSIVE a (id) AS (
				SELECT id FROM checkpoints WHERE id = ?
				UNION SELECT p.id FROM a JOIN checkpoints c ON c.id = a.id JOIN checkpoints p ON p.id IN (c.parent_id, c.merge_parent_id)
			)
			SELECT COUNT(*) FROM a`), head).Scan(&n)
		if err != nil {
			return 0, fmt.Errorf("count ahead: %w", err)
		}
		return n, nil
	}
	w := &aheadWalk{s: s, marks: map[smriti.ID]*aheadNode{}}
	if err := w.add(ctx, head, false); err != nil {
		return 0, err
	}
	if err := w.add(ctx, *base, true); err != nil {
		return 0, err
	}
	n := 0
	for w.open > 0 {
		nd := heap.Pop(&w.queue).(*aheadNode)
		if !nd.base {
			w.open--
			n++
		}
		for _, p := range nd.parents {
			if err := w.add(ctx, p, nd.base); err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}

// aheadNode is one checkpoint on AheadOf's walk: base is set once base's
// history is known to hold it.
type aheadNode struct {
	id      smriti.ID
	pos     int64
	parents []smriti.ID
	base    bool
}

// aheadWalk holds the walk's queue (newest log position first) and how
// many queued checkpoints are not yet known to be base's (open).
type aheadWalk struct {
	s     *Store
	marks map[smriti.ID]*aheadNode
	queue aheadQueue
	open  int
}

// add queues id (once), or marks a queued one as base's.
func (w *aheadWalk) add(ctx context.Context, id smriti.ID, base bool) error {
	if nd, ok := w.marks[id]; ok {
		if base && !nd.base {
			nd.base = true
			w.open--
		}
		return nil
	}
	nd := &aheadNode{id: id, base: base}
	var parent, merge uuid.NullUUID
	err := w.s.read.QueryRowContext(ctx, w.s.d.Rebind(`SELECT log_pos, parent_id, merge_parent_id FROM checkpoints WHERE id = ?`), id).
		Scan(&nd.pos, &parent, &merge)
	if errors.Is(err, sql.ErrNoRows) {
		return smriti.Errorf(smriti.ENOTFOUND, "checkpoint %s is not stored", id)
	}
	if err != nil {
		return fmt.Errorf("count ahead: %w", err)
	}
	for _, p := range []*smriti.ID{dbx.NullID(parent), dbx.NullID(merge)} {
		if p != nil {
			nd.parents = append(nd.parents, *p)
		}
	}
	w.marks[id] = nd
	if !base {
		w.open++
	}
	heap.Push(&w.queue, nd)
	return nil
}

// aheadQueue is a max-heap of checkpoints by log position.
type aheadQueue []*aheadNode

func (q aheadQueue) Len() int           { return len(q) }
func (q aheadQueue) Less(i, j int) bool { return q[i].pos > q[j].pos }
func (q aheadQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *aheadQueue) Push(x any)        { *q = append(*q, x.(*aheadNode)) }
func (q *aheadQueue) Pop() any {
	old := *q
	nd := old[len(old)-1]
	*q = old[:len(old)-1]
	return nd
}
