package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"smriti/internal/textutil"
	"strings"

	"github.com/google/uuid"

	"smriti"
	"smriti/store/internal/dbx"
)

// Items with identity (see smriti.AssignItems): every checkpoint's items are
// rows of checkpoint_items, written in the checkpoint's transaction.

const itemCols = `ci.checkpoint_id, ci.item_id, ci.kind, ci.text, ci.status, ci.supersedes, ci.change_op, ci.change_before,
	ci.change_by, ci.change_reason, ci.source_session_id, ci.source_from_seq, ci.source_to_seq, ci.source_quote,
	ci.origin_checkpoint_id, ci.origin_session_id, ci.origin_from_seq, ci.origin_to_seq, ci.origin_quote,
	ci.origin_author_agent, ci.origin_model, ci.change_merge, ci.refs`

// itemRowArgs is how many values one checkpoint_items row takes.
const itemRowArgs = 24

func scanItem(row interface{ Scan(...any) error }) (smriti.ID, smriti.Item, error) {
	return newItemRow().scan(row)
}

func nullInt(n sql.NullInt64) *int64 {
	if !n.Valid {
		return nil
	}
	v := n.Int64
	return &v
}

func int64Arg(p *int64) sql.NullInt64 {
	if p == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: *p, Valid: true}
}

const sqlInsertItemsHead = `INSERT INTO checkpoint_items (checkpoint_id, position, item_id, kind, text, status,
			supersedes, change_op, change_before, change_by, change_reason, source_session_id, source_from_seq, source_to_seq,
			source_quote, origin_checkpoint_id, origin_session_id, origin_from_seq, origin_to_seq, origin_quote,
			origin_author_agent, origin_model, change_merge, refs) VALUES `

// sqlInsertItems inserts n checkpoint_items rows.
func sqlInsertItems(n int) string {
	return sqlInsertItemsHead + strings.TrimSuffix(strings.Repeat("("+dbx.Placeholders(itemRowArgs)+"), ", n), ", ")
}

// maxItemRows is the most rows one prepared item insert writes on SQLite;
// inserts of 1, 2, 4 … maxItemRows rows are prepared as they are first
// needed.
const maxItemRows = 32

// wideItemRows is how many rows one item insert writes on an engine with
// wideWrites (one statement, one round trip).
const wideItemRows = 40

// itemRowsArgs are the arguments of sqlInsertItems(len(c.Items)) for c's
// items.
func itemRowsArgs(c *smriti.Checkpoint) ([]any, error) {
	args := make([]any, 0, len(c.Items)*itemRowArgs)
	for i := range c.Items {
		it := &c.Items[i]
		sup := "[]"
		if len(it.Supersedes) > 0 {
			var err error
			if sup, err = dbx.JSONArg(it.Supersedes); err != nil {
				return nil, err
			}
		}
		ch := it.Change
		if ch == nil {
			ch = &smriti.ItemChange{}
		}
		status := it.Status
		if status == "" {
			status = smriti.ItemOpen
		}
		var merge sql.NullString
		if ch.Merge != nil {
			b, err := json.Marshal(ch.Merge)
			if err != nil {
				return nil, err
			}
			merge = sql.NullString{String: string(b), Valid: true}
		}
		var refs sql.NullString
		if len(it.Refs) > 0 {
			b, err := json.Marshal(it.Refs)
			if err != nil {
				return nil, err
			}
			refs = sql.NullString{String: string(b), Valid: true}
		}
		args = append(args, c.ID, i, it.ID, string(it.Kind), it.Text, status, sup, ch.Op, ch.Before, ch.By, ch.Reason,
			dbx.IDArg(ch.Source.SessionID), int64Arg(ch.Source.FromSeq), int64Arg(ch.Source.ToSeq), ch.Source.Quote,
			dbx.IDArg(it.Origin.CheckpointID), dbx.IDArg(it.Origin.SessionID), int64Arg(it.Origin.FromSeq), int64Arg(it.Origin.ToSeq),
			it.Origin.Quote, it.Origin.AuthorAgent, it.Origin.Model, merge, refs)
	}
	return args, nil
}

// writeItems stores c.Items as c's rows: on an engine with wideWrites a
// few dozen rows a statement, otherwise with prepared inserts of 32, 16 …
// 1 rows in as few statements as that allows.
func (s *Store) writeItems(ctx context.Context, tx *sql.Tx, c *smriti.Checkpoint) error {
	args, err := itemRowsArgs(c)
	if err != nil {
		return err
	}
	for rows := len(c.Items); rows > 0; {
		var st dbx.Stmt
		n := wideItemRows
		if s.d.WideWrites {
			n = min(n, rows)
			st = dbx.TextStmt{Q: tx, Query: s.d.Rebind(sqlInsertItems(n))}
		} else {
			n = maxItemRows
			for n > rows {
				n /= 2
			}
			st = s.stmts.WriteStmt(ctx, tx, sqlInsertItems(n))
		}
		if _, err := st.ExecContext(ctx, args[:n*itemRowArgs]...); err != nil {
			return fmt.Errorf("insert items: %w", err)
		}
		args, rows = args[n*itemRowArgs:], rows-n
	}
	return nil
}

// itemsOf loads the items of the given checkpoints (unscoped: callers have
// checked visibility), in position order.
func (s *Store) itemsOf(ctx context.Context, q dbx.Querier, ids ...smriti.ID) (map[smriti.ID][]smriti.Item, error) {
	out := make(map[smriti.ID][]smriti.Item, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, 0, len(ids))
	for _, id := range ids {
		args = append(args, id)
	}
	query := `SELECT ` + itemCols + ` FROM checkpoint_items ci
		WHERE ci.checkpoint_id IN (` + dbx.Placeholders(len(args)) + `) ORDER BY ci.checkpoint_id, ci.position`
	var rows *sql.Rows
	var err error
	if len(ids) <= 2 {
		// a checkpoint's parents, or the two sides of a rebase: the
		// commit path's reads, prepared
		rows, err = s.stmtOn(ctx, q, query).QueryContext(ctx, args...)
	} else {
		rows, err = q.QueryContext(ctx, s.d.Rebind(query), args...)
	}
	if err != nil {
		return nil, fmt.Errorf("load items: %w", err)
	}
	defer rows.Close()
	// The rows come a checkpoint at a time: each checkpoint's run is
	// gathered in run and copied out at its length.
	r := newItemRow()
	var run []smriti.Item
	var runOf smriti.ID
	flush := func() {
		if len(run) > 0 {
			out[runOf] = append(out[runOf], run...)
			run = run[:0]
		}
	}
	for rows.Next() {
		cp, it, err := r.scan(rows)
		if err != nil {
			return nil, fmt.Errorf("load items: %w", err)
		}
		if cp != runOf {
			flush()
			runOf = cp
		}
		run = append(run, it)
	}
	flush()
	return out, rows.Err()
}

// CheckpointItems implements contract.ItemService.
func (s *Store) CheckpointItems(ctx context.Context, id smriti.ID) ([]smriti.Item, error) {
	c, err := s.checkpoint(ctx, s.read, id)
	if err != nil {
		return nil, err
	}
	if err := s.attachItems(ctx, s.read, c); err != nil {
		return nil, err
	}
	return c.Items, nil
}

// attachItems sets Items on each checkpoint from one query.
func (s *Store) attachItems(ctx context.Context, q dbx.Querier, cs ...*smriti.Checkpoint) error {
	ids := make([]smriti.ID, 0, len(cs))
	for _, c := range cs {
		ids = append(ids, c.ID)
	}
	m, err := s.itemsOf(ctx, q, ids...)
	if err != nil {
		return err
	}
	for _, c := range cs {
		c.Items = m[c.ID]
		if c.Items == nil {
			c.Items = []smriti.Item{}
		}
		c.Content.LinkTasks(c.Items)
	}
	return nil
}

// lastWrite is the checkpoint the running write transaction wrote last,
// with its items as they read back from their rows: in a group of commits
// (groupwrite.go) each one's parent is usually the one before it, written
// by the same transaction moments ago, and its rows cannot have changed
// since but by that transaction.
type lastWrite struct {
	tx    *sql.Tx
	id    smriti.ID
	items []smriti.Item
}

// wroteItems notes c's items, as they read back, as the transaction's last
// write (on SQLite's one write transaction only).
func (s *Store) wroteItems(tx *sql.Tx, c *smriti.Checkpoint) {
	if s.d.Name != "sqlite" || s.writing.Load() != tx {
		return
	}
	// The tasks as the tasks column reads back (their JSON form).
	var tasks []smriti.Task
	if j, err := dbx.JSONArg(c.Tasks); err != nil || (dbx.JSONCol{Dst: &tasks}).Scan(j) != nil {
		s.last.Store(nil)
		return
	}
	items := make([]smriti.Item, len(c.Items))
	for i, it := range c.Items {
		// What writeItems stores and scanItem reads back: an open status
		// for none, [] for no supersedes, no change for an empty op; the
		// task annotations come from the tasks column (LinkTasks).
		if it.Status == "" {
			it.Status = smriti.ItemOpen
		}
		it.Supersedes = append([]string{}, it.Supersedes...)
		if it.Change != nil {
			if it.Change.Op == "" {
				it.Change = nil
			} else {
				ch := *it.Change
				it.Change = &ch
			}
		}
		it.Task = nil
		items[i] = it
	}
	(&smriti.Content{Tasks: tasks}).LinkTasks(items)
	s.last.Store(&lastWrite{tx: tx, id: c.ID, items: items})
}

// justWritten returns the items of checkpoint id when the transaction q
// wrote it last; a copy, as parentItems' callers may keep it.
func (s *Store) justWritten(q dbx.Querier, id smriti.ID) ([]smriti.Item, bool) {
	w := s.last.Load()
	if w == nil || w.id != id || q != dbx.Querier(w.tx) || s.writing.Load() != w.tx {
		return nil, false
	}
	return append([]smriti.Item{}, w.items...), true
}

// parentItems is attachItems for the parents of a checkpoint being written
// (ids, at most two): each one's items, its live tasks linked to its
// tasks, for each of ids that is a checkpoint; the rest of the parents'
// rows is not read.
func (s *Store) parentItems(ctx context.Context, q dbx.Querier, ids []smriti.ID) (map[smriti.ID][]smriti.Item, error) {
	out := make(map[smriti.ID][]smriti.Item, len(ids))
	for _, id := range ids {
		if items, ok := s.justWritten(q, id); ok {
			out[id] = items
			continue
		}
		var tasks []smriti.Task
		err := s.stmtOn(ctx, q, `SELECT tasks FROM checkpoints WHERE id = ?`).QueryRowContext(ctx, id).Scan(dbx.JSONCol{Dst: &tasks})
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("list checkpoints: %w", err)
		}
		m, err := s.itemsOf(ctx, q, id)
		if err != nil {
			return nil, err
		}
		items := m[id]
		if items == nil {
			items = []smriti.Item{}
		}
		(&smriti.Content{Tasks: tasks}).LinkTasks(items)
		out[id] = items
	}
	return out, nil
}

// assignItems gives c (its content, parent and merge parent set) its items
// against its parents' items, inside the writing transaction: hints are the
// items the caller proposed; the merge parent's items are hints too, so an
// item the merge takes from the other side keeps its id.
func (s *Store) assignItems(ctx context.Context, q dbx.Querier, c *smriti.Checkpoint, hints []smriti.Item, model *string) error {
	var ids []smriti.ID
	if c.ParentID != nil {
		ids = append(ids, *c.ParentID)
	}
	if c.MergeParentID != nil {
		ids = append(ids, *c.MergeParentID)
	}
	parents, err := s.parentItems(ctx, q, ids)
	if err != nil {
		return err
	}
	// Only the merge being written records how it settled conflicts: a
	// plain commit's hints, and the merge parent's rows (which may be an
	// earlier merge's), carry no merge record into this checkpoint.
	if c.MergeParentID == nil {
		hints = withoutMergeRecords(hints)
	}
	var parent []smriti.Item
	for id, items := range parents {
		switch {
		case c.ParentID != nil && id == *c.ParentID:
			parent = items
		case c.MergeParentID != nil && id == *c.MergeParentID:
			hints = append(append([]smriti.Item(nil), hints...), withoutMergeRecords(items)...)
		}
	}
	cpID := c.ID
	origin := smriti.ItemOrigin{CheckpointID: &cpID, AuthorAgent: c.AuthorAgent, Model: model}
	meta := smriti.MetaOf(c.Metadata)
	origin.SessionID = meta.SessionID
	if st := meta.SourceTurns; st != nil {
		from, to := st.FromSeq, st.ToSeq
		origin.FromSeq, origin.ToSeq = &from, &to
	}
	c.Items = smriti.AssignItems(&c.Content, parent, hints, origin)
	for i := range c.Items {
		if c.Items[i].Origin.CheckpointID == nil {
			c.Items[i].Origin.CheckpointID = &cpID
		}
	}
	c.HashVersion = smriti.CurrentHashVersion
	return nil
}

// withoutMergeRecords is items with no Change.Merge (a copy where one had
// it).
func withoutMergeRecords(items []smriti.Item) []smriti.Item {
	var out []smriti.Item
	for i := range items {
		if ch := items[i].Change; ch != nil && ch.Merge != nil {
			if out == nil {
				out = append([]smriti.Item(nil), items...)
			}
			c := *ch
			c.Merge = nil
			out[i].Change = &c
		}
	}
	if out == nil {
		return items
	}
	return out
}

// backfillItems derives the items of checkpoints written before items had
// ids, oldest first so that each parent has its items before its children:
// each item takes its parent's id when the normalised text matches (the
// merge parent's for what a merge took from the other side), else a new
// one. Their hashes stay version 1. Runs at start-up in batches, each batch
// one transaction; replicas starting together skip rows another has done.
func (s *Store) backfillItems(ctx context.Context) error { return s.BackfillItems(ctx) }

// BackfillItems derives the items of every checkpoint that has none yet
// (see backfillItems); Open runs it, and it is safe to run again.
func (s *Store) BackfillItems(ctx context.Context) error {
	for {
		n, err := s.backfillBatch(ctx, 200)
		if err != nil {
			return fmt.Errorf("derive item ids: %w", err)
		}
		if n == 0 {
			return nil
		}
	}
}

func (s *Store) backfillBatch(ctx context.Context, limit int) (int, error) {
	done := 0
	err := s.tx(ctx, func(tx *sql.Tx) error {
		done = 0
		cs, err := s.queryCheckpoints(ctx, tx, `SELECT `+checkpointCols+` FROM checkpoints c WHERE c.items_ready = 0
			ORDER BY c.log_pos LIMIT ?`, limit)
		if err != nil {
			return err
		}
		for _, c := range cs {
			if err := s.deriveItems(ctx, tx, c); err != nil {
				return err
			}
			done++
		}
		return nil
	})
	return done, err
}

// deriveItems gives a stored version 1 checkpoint its items.
func (s *Store) deriveItems(ctx context.Context, tx *sql.Tx, c *smriti.Checkpoint) error {
	if _, err := tx.ExecContext(ctx, s.d.Rebind(`DELETE FROM checkpoint_items WHERE checkpoint_id = ?`), c.ID); err != nil {
		return fmt.Errorf("derive items: %w", err)
	}
	hv := c.HashVersion
	if err := s.assignItems(ctx, tx, c, nil, nil); err != nil {
		return err
	}
	c.HashVersion = hv
	if err := s.writeItems(ctx, tx, c); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE checkpoints SET items_ready = 1 WHERE id = ?`), c.ID)
	return err
}

// ItemHistory implements contract.ItemService: every row of the item in the
// space where a checkpoint changed it, plus the rows of items that
// superseded it, in log order.
func (s *Store) ItemHistory(ctx context.Context, spaceID smriti.ID, itemID string) ([]smriti.ItemEvent, error) {
	if _, err := s.Space(ctx, spaceID); err != nil {
		return nil, err
	}
	notFound := smriti.Errorf(smriti.ENOTFOUND, "Item %s not found in this space", textutil.Truncate(itemID, 30))
	if !smriti.ValidItemID(itemID) {
		return nil, notFound
	}
	rows, err := s.read.QueryContext(ctx, s.d.Rebind(`SELECT `+itemEventCols+`
		FROM checkpoint_items ci JOIN checkpoints c ON c.id = ci.checkpoint_id
		WHERE c.space_id = ? AND ci.change_op <> '' AND (ci.item_id = ?
			OR (ci.change_op = 'supersede' AND CAST(ci.supersedes AS TEXT) LIKE ?))
		ORDER BY c.log_pos, ci.position`), spaceID, itemID, `%"`+itemID+`"%`)
	if err != nil {
		return nil, fmt.Errorf("item history: %w", err)
	}
	out, err := scanItemEvents(rows)
	if err != nil {
		return nil, fmt.Errorf("item history: %w", err)
	}
	if len(out) == 0 {
		return nil, notFound
	}
	return smriti.ItemHistory(out).WithRejections(), nil
}

// itemEventCols are the columns scanItemEvents reads: an item row and its
// checkpoint's.
const itemEventCols = itemCols + `, c.commit_hash, c.branch_name, c.created_at, c.log_pos, c.merge_parent_id, c.space_id`

// scanItemEvents reads rows of itemEventCols as item events and closes
// rows.
func scanItemEvents(rows *sql.Rows) ([]smriti.ItemEvent, error) {
	defer rows.Close()
	var out []smriti.ItemEvent
	for rows.Next() {
		var ev smriti.ItemEvent
		var created dbx.Time
		var merge uuid.NullUUID
		cp, it, err := scanItem(scanner(func(dst ...any) error {
			return rows.Scan(append(dst, &ev.CommitHash, &ev.BranchName, &created, &ev.LogPos, &merge, &ev.SpaceID)...)
		}))
		if err != nil {
			return nil, err
		}
		ev.CheckpointID, ev.Item, ev.CreatedAt, ev.Merge = cp, it, created.Time, merge.Valid
		out = append(out, ev)
	}
	return out, rows.Err()
}

// scanner adapts a function to the Scan interface.
type scanner func(dst ...any) error

func (f scanner) Scan(dst ...any) error { return f(dst...) }
