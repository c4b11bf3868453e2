package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"smriti"
)

// Items with identity (see smriti.AssignItems): every checkpoint's items are
// rows of checkpoint_items, written in the checkpoint's transaction.

const itemCols = `ci.checkpoint_id, ci.item_id, ci.kind, ci.text, ci.status, ci.supersedes, ci.change_op, ci.change_before,
	ci.change_by, ci.change_reason, ci.source_session_id, ci.source_from_seq, ci.source_to_seq, ci.source_quote,
	ci.origin_checkpoint_id, ci.origin_session_id, ci.origin_from_seq, ci.origin_to_seq, ci.origin_quote,
	ci.origin_author_agent, ci.origin_model, ci.change_merge`

// itemRowArgs is how many values one checkpoint_items row takes.
const itemRowArgs = 23

func scanItem(row interface{ Scan(...any) error }) (smriti.ID, smriti.Item, error) {
	var cp smriti.ID
	var it smriti.Item
	var kind, op string
	var before, by, reason, srcQuote, quote, agent, model sql.NullString
	var srcSession, originCP, originSession uuid.NullUUID
	var srcFrom, srcTo, from, to sql.NullInt64
	var merge sql.NullString
	if err := row.Scan(&cp, &it.ID, &kind, &it.Text, &it.Status, jsonCol{&it.Supersedes}, &op, &before, &by, &reason,
		&srcSession, &srcFrom, &srcTo, &srcQuote, &originCP, &originSession, &from, &to, &quote, &agent, &model, &merge); err != nil {
		return cp, it, err
	}
	it.Kind = smriti.ItemKind(kind)
	it.Origin = smriti.ItemOrigin{CheckpointID: nullID(originCP), SessionID: nullID(originSession), FromSeq: nullInt(from),
		ToSeq: nullInt(to), Quote: nullStr(quote), AuthorAgent: nullStr(agent), Model: nullStr(model)}
	if op != "" {
		it.Change = &smriti.ItemChange{Op: op, Before: nullStr(before), By: nullStr(by), Reason: nullStr(reason),
			Source: smriti.ItemSource{SessionID: nullID(srcSession), FromSeq: nullInt(srcFrom), ToSeq: nullInt(srcTo), Quote: nullStr(srcQuote)}}
		if merge.Valid {
			var m smriti.ItemMerge
			if err := json.Unmarshal([]byte(merge.String), &m); err != nil {
				return cp, it, fmt.Errorf("item %s: merge record: %w", it.ID, err)
			}
			it.Change.Merge = &m
		}
	}
	return cp, it, nil
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

// writeItems stores c.Items as c's rows, a few hundred rows a statement.
func (s *Store) writeItems(ctx context.Context, tx *sql.Tx, c *smriti.Checkpoint) error {
	const perStatement = 40
	for start := 0; start < len(c.Items); start += perStatement {
		end := min(start+perStatement, len(c.Items))
		args := make([]any, 0, (end-start)*itemRowArgs)
		rows := make([]string, 0, end-start)
		for i := start; i < end; i++ {
			it := &c.Items[i]
			sup, err := jsonArg(nonNilStrings(it.Supersedes))
			if err != nil {
				return err
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
					return err
				}
				merge = sql.NullString{String: string(b), Valid: true}
			}
			args = append(args, c.ID, i, it.ID, string(it.Kind), it.Text, status, sup, ch.Op, ch.Before, ch.By, ch.Reason,
				idArg(ch.Source.SessionID), int64Arg(ch.Source.FromSeq), int64Arg(ch.Source.ToSeq), ch.Source.Quote,
				idArg(it.Origin.CheckpointID), idArg(it.Origin.SessionID), int64Arg(it.Origin.FromSeq), int64Arg(it.Origin.ToSeq),
				it.Origin.Quote, it.Origin.AuthorAgent, it.Origin.Model, merge)
			rows = append(rows, "("+placeholders(itemRowArgs)+")")
		}
		_, err := tx.ExecContext(ctx, s.d.rebind(`INSERT INTO checkpoint_items (checkpoint_id, position, item_id, kind, text, status,
			supersedes, change_op, change_before, change_by, change_reason, source_session_id, source_from_seq, source_to_seq,
			source_quote, origin_checkpoint_id, origin_session_id, origin_from_seq, origin_to_seq, origin_quote,
			origin_author_agent, origin_model, change_merge) VALUES `+strings.Join(rows, ", ")), args...)
		if err != nil {
			return fmt.Errorf("insert items: %w", err)
		}
	}
	return nil
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// itemsOf loads the items of the given checkpoints (unscoped: callers have
// checked visibility), in position order.
func (s *Store) itemsOf(ctx context.Context, q querier, ids ...smriti.ID) (map[smriti.ID][]smriti.Item, error) {
	out := make(map[smriti.ID][]smriti.Item, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, 0, len(ids))
	for _, id := range ids {
		args = append(args, id)
	}
	rows, err := q.QueryContext(ctx, s.d.rebind(`SELECT `+itemCols+` FROM checkpoint_items ci
		WHERE ci.checkpoint_id IN (`+placeholders(len(args))+`) ORDER BY ci.checkpoint_id, ci.position`), args...)
	if err != nil {
		return nil, fmt.Errorf("load items: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		cp, it, err := scanItem(rows)
		if err != nil {
			return nil, fmt.Errorf("load items: %w", err)
		}
		out[cp] = append(out[cp], it)
	}
	return out, rows.Err()
}

// CheckpointItems implements smriti.ItemService.
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
func (s *Store) attachItems(ctx context.Context, q querier, cs ...*smriti.Checkpoint) error {
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

// assignItems gives c (its content, parent and merge parent set) its items
// against its parents' items, inside the writing transaction: hints are the
// items the caller proposed; the merge parent's items are hints too, so an
// item the merge takes from the other side keeps its id.
func (s *Store) assignItems(ctx context.Context, q querier, c *smriti.Checkpoint, hints []smriti.Item, model *string) error {
	var ids []smriti.ID
	if c.ParentID != nil {
		ids = append(ids, *c.ParentID)
	}
	if c.MergeParentID != nil {
		ids = append(ids, *c.MergeParentID)
	}
	var parents []*smriti.Checkpoint
	if len(ids) > 0 {
		args := make([]any, 0, len(ids))
		for _, id := range ids {
			args = append(args, id)
		}
		var err error
		if parents, err = s.queryCheckpoints(ctx, q, `SELECT `+checkpointCols+` FROM checkpoints c WHERE c.id IN (`+placeholders(len(args))+`)`, args...); err != nil {
			return err
		}
		if err := s.attachItems(ctx, q, parents...); err != nil {
			return err
		}
	}
	// Only the merge being written records how it settled conflicts: a
	// plain commit's hints, and the merge parent's rows (which may be an
	// earlier merge's), carry no merge record into this checkpoint.
	if c.MergeParentID == nil {
		hints = withoutMergeRecords(hints)
	}
	var parent []smriti.Item
	for _, p := range parents {
		switch {
		case c.ParentID != nil && p.ID == *c.ParentID:
			parent = p.Items
		case c.MergeParentID != nil && p.ID == *c.MergeParentID:
			hints = append(append([]smriti.Item(nil), hints...), withoutMergeRecords(p.Items)...)
		}
	}
	cpID := c.ID
	origin := smriti.ItemOrigin{CheckpointID: &cpID, AuthorAgent: c.AuthorAgent, Model: model}
	if sid, ok := c.Metadata["session_id"].(string); ok {
		if id, err := uuid.Parse(sid); err == nil {
			origin.SessionID = &id
		}
	}
	if st, ok := c.Metadata["source_turns"].(map[string]any); ok {
		from, ok1 := seqOf(st["from_seq"])
		to, ok2 := seqOf(st["to_seq"])
		if ok1 && ok2 {
			origin.FromSeq, origin.ToSeq = &from, &to
		}
	}
	c.Items = smriti.AssignItems(&c.Content, parent, hints, origin)
	for i := range c.Items {
		if c.Items[i].Origin.CheckpointID == nil {
			c.Items[i].Origin.CheckpointID = &cpID
		}
	}
	c.HashVersion = 2
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
	if _, err := tx.ExecContext(ctx, s.d.rebind(`DELETE FROM checkpoint_items WHERE checkpoint_id = ?`), c.ID); err != nil {
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
	_, err := tx.ExecContext(ctx, s.d.rebind(`UPDATE checkpoints SET items_ready = 1 WHERE id = ?`), c.ID)
	return err
}

// ItemHistory implements smriti.ItemService: every row of the item in the
// space where a checkpoint changed it, plus the rows of items that
// superseded it, in log order.
func (s *Store) ItemHistory(ctx context.Context, spaceID smriti.ID, itemID string) ([]smriti.ItemEvent, error) {
	if _, err := s.Space(ctx, spaceID); err != nil {
		return nil, err
	}
	notFound := smriti.Errorf(smriti.ENOTFOUND, "Item %s not found in this space", smriti.Truncate(itemID, 30))
	if !smriti.ValidItemID(itemID) {
		return nil, notFound
	}
	rows, err := s.read.QueryContext(ctx, s.d.rebind(`SELECT `+itemCols+`, c.commit_hash, c.branch_name, c.created_at, c.log_pos,
		c.merge_parent_id
		FROM checkpoint_items ci JOIN checkpoints c ON c.id = ci.checkpoint_id
		WHERE c.space_id = ? AND ci.change_op <> '' AND (ci.item_id = ?
			OR (ci.change_op = 'supersede' AND CAST(ci.supersedes AS TEXT) LIKE ?))
		ORDER BY c.log_pos, ci.position`), spaceID, itemID, `%"`+itemID+`"%`)
	if err != nil {
		return nil, fmt.Errorf("item history: %w", err)
	}
	defer rows.Close()
	var out []smriti.ItemEvent
	for rows.Next() {
		var ev smriti.ItemEvent
		var created dbTime
		var merge uuid.NullUUID
		cp, it, err := scanItem(scanner(func(dst ...any) error {
			return rows.Scan(append(dst, &ev.CommitHash, &ev.BranchName, &created, &ev.LogPos, &merge)...)
		}))
		if err != nil {
			return nil, fmt.Errorf("item history: %w", err)
		}
		ev.CheckpointID, ev.Item, ev.CreatedAt, ev.Merge = cp, it, created.Time, merge.Valid
		out = append(out, ev)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("item history: %w", err)
	}
	if len(out) == 0 {
		return nil, notFound
	}
	return smriti.WithRejections(out), nil
}

// scanner adapts a function to the Scan interface.
type scanner func(dst ...any) error

func (f scanner) Scan(dst ...any) error { return f(dst...) }

// seqOf reads a sequence number from metadata: int64 when written in this
// process, float64 when read back from a JSON column.
func seqOf(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case float64:
		return int64(x), true
	case int:
		return int64(x), true
	}
	return 0, false
}
