package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"smriti"
	"smriti/account"
	"smriti/secretlog"
	"smriti/store/internal/dbx"
)

// purgeColumn is a stored text a purge reads and rewrites: a table, the
// columns that name a row, the text columns, and which rows belong to a
// space (a condition with one placeholder for the space id).
type purgeColumn struct {
	kind  string // as secretlog.PurgedRow.Kind names it
	table string
	keys  []string
	cols  []string
	json  map[string]bool // columns that hold JSON
	where string
}

const inSpaceCheckpoints = "checkpoint_id IN (SELECT id FROM checkpoints WHERE space_id = ?)"

// purgeColumns is every place a space's texts are stored. The search index
// follows the rows it indexes (triggers on SQLite, generated columns on
// PostgreSQL); the space's event log holds ids only.
var purgeColumns = []purgeColumn{
	{kind: "turn", table: "turns", keys: []string{"id"}, cols: []string{"content", "metadata"},
		json: map[string]bool{"metadata": true}, where: "space_id = ?"},
	{kind: "session", table: "sessions", keys: []string{"id"}, cols: []string{"title", "metadata"},
		json: map[string]bool{"metadata": true}, where: "space_id = ?"},
	{kind: "checkpoint", table: "checkpoints", keys: []string{"id"},
		cols: []string{"message", "summary", "objective", "raw_source_text", "decisions", "assumptions", "tasks",
			"open_questions", "entities", "artifacts", "context_blob", "metadata"},
		json: map[string]bool{"decisions": true, "assumptions": true, "tasks": true, "open_questions": true, "entities": true,
			"artifacts": true, "context_blob": true, "metadata": true}, where: "space_id = ?"},
	{kind: "item", table: "checkpoint_items", keys: []string{"checkpoint_id", "item_id"},
		cols:  []string{"text", "change_before", "change_reason", "source_quote", "origin_quote", "change_merge", "refs"},
		where: inSpaceCheckpoints},
	{kind: "note", table: "checkpoint_notes", keys: []string{"id"}, cols: []string{"text"}, where: inSpaceCheckpoints},
	{kind: "claim", table: "claims", keys: []string{"id"}, cols: []string{"scope"}, where: "space_id = ?"},
	{kind: "proposal", table: "proposals", keys: []string{"id"}, cols: []string{"title", "draft"}, where: "space_id = ?"},
	{kind: "receipt", table: "compaction_receipts", keys: []string{"id"}, cols: []string{"list_command"}, where: "space_id = ?"},
	{kind: "staged", table: "sync_staged", keys: []string{"space_id", "seq"}, cols: []string{"record"}, where: "space_id = ?"},
}

// purgeCell is one stored text.
type purgeCell struct {
	pc   *purgeColumn
	keys []any
	col  string
	text string
}

func (c purgeCell) id() string {
	parts := make([]string, len(c.keys))
	for i, k := range c.keys {
		parts[i] = fmt.Sprint(k)
	}
	return strings.Join(parts, "/")
}

// eachCell reads the space's stored texts, a table at a time, and calls fn
// for each one that is not empty.
func (s *Store) eachCell(ctx context.Context, tx *sql.Tx, space smriti.ID, fn func(purgeCell) error) error {
	for i := range purgeColumns {
		pc := &purgeColumns[i]
		sel := make([]string, 0, len(pc.keys)+len(pc.cols))
		for _, k := range pc.keys {
			sel = append(sel, "CAST("+k+" AS TEXT)")
		}
		for _, c := range pc.cols {
			sel = append(sel, "CAST("+c+" AS TEXT)")
		}
		rows, err := tx.QueryContext(ctx, s.d.Rebind("SELECT "+strings.Join(sel, ", ")+" FROM "+pc.table+" WHERE "+pc.where), space)
		if err != nil {
			return fmt.Errorf("purge: read %s: %w", pc.table, err)
		}
		vals := make([]sql.NullString, len(sel))
		ptrs := make([]any, len(sel))
		for j := range vals {
			ptrs[j] = &vals[j]
		}
		var cells []purgeCell
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				rows.Close()
				return fmt.Errorf("purge: read %s: %w", pc.table, err)
			}
			keys := make([]any, len(pc.keys))
			for j := range pc.keys {
				keys[j] = vals[j].String
			}
			for j, c := range pc.cols {
				if v := vals[len(pc.keys)+j]; v.Valid && v.String != "" {
					cells = append(cells, purgeCell{pc: pc, keys: keys, col: c, text: v.String})
				}
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return fmt.Errorf("purge: read %s: %w", pc.table, err)
		}
		for _, c := range cells {
			if err := fn(c); err != nil {
				return err
			}
		}
	}
	return nil
}

// PurgeSecrets implements secretlog.SecretService: in one transaction it finds
// the values to purge (req.Find over every stored text of the space), then
// replaces each wherever it is stored in the space — turns and their
// context records, sessions, checkpoints and their item rows, notes,
// claims, proposals, receipts, staged sync records — and in kept answers to
// retried writes. A checkpoint keeps, for each text it rewrote, the digest
// of what the text held, so a version 3 checkpoint still verifies. The
// purge is recorded (see secretlog.SecretPurge). ENOTFOUND for a space the
// caller may not see, EFORBIDDEN unless they own it; a purge that finds nothing writes nothing and
// answers with Values 0.
func (s *Store) PurgeSecrets(ctx context.Context, req secretlog.PurgeRequest) (*secretlog.SecretPurge, error) {
	var out *secretlog.SecretPurge
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.requireRole(ctx, tx, req.SpaceID, account.NeedAdmin); err != nil {
			return err
		}
		p, err := s.purgeTx(ctx, tx, req)
		out = p
		return err
	})
	if err != nil {
		return nil, err
	}
	out.Erasure = secretlog.ErasureNone
	if out.Values > 0 {
		// Cached turns and items may hold what was purged.
		s.cache.Clear()
		s.last.Store(nil)
		s.topo.Bump()
	}
	if out.Values > 0 || req.Full {
		out.Erasure = s.eraseOldBytes(ctx, out.Rows, req.Full)
	}
	return out, nil
}

func (s *Store) purgeTx(ctx context.Context, tx *sql.Tx, req secretlog.PurgeRequest) (*secretlog.SecretPurge, error) {
	p := &secretlog.SecretPurge{ID: smriti.NewID(), SpaceID: req.SpaceID, By: req.By, At: s.Now().UTC(),
		Rule: req.Rule, Fingerprint: req.Fingerprint, Rows: []secretlog.PurgedRow{}}
	found := map[string]secretlog.SecretMatch{}
	err := s.eachCell(ctx, tx, req.SpaceID, func(c purgeCell) error {
		for _, m := range req.Find(c.text) {
			if m.Value != "" && m.Value != m.Replacement {
				found[m.Value] = m
			}
		}
		return nil
	})
	if err != nil || len(found) == 0 {
		return p, err
	}
	p.Values = len(found)
	r := newValueReplacer(found)
	var changed []purgeCell
	err = s.eachCell(ctx, tx, req.SpaceID, func(c purgeCell) error {
		after, hit := r.replace(c.text)
		if hit && c.pc.json[c.col] && !json.Valid([]byte(after)) {
			return smriti.Errorf(smriti.EINTERNAL, "purge: replacing a value in %s.%s would break its JSON; nothing was purged", c.pc.table, c.col)
		}
		if hit {
			c.text = after
			changed = append(changed, c)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	checkpoints := map[smriti.ID]bool{}
	for _, c := range changed {
		if c.pc.kind == "checkpoint" || c.pc.kind == "item" {
			id, err := smriti.ParseID("checkpoint", fmt.Sprint(c.keys[0]))
			if err != nil {
				return nil, fmt.Errorf("purge: %w", err)
			}
			checkpoints[id] = true
		}
	}
	fields, err := s.purgedFieldsOf(ctx, tx, checkpoints, r, p)
	if err != nil {
		return nil, err
	}
	for _, c := range changed {
		if err := s.rewriteCell(ctx, tx, c); err != nil {
			return nil, err
		}
		if c.pc.kind != "checkpoint" {
			p.Rows = append(p.Rows, secretlog.PurgedRow{Kind: c.pc.kind, ID: c.id(), Field: c.col})
		}
	}
	for _, f := range fields {
		p.Rows = append(p.Rows, secretlog.PurgedRow{Kind: "checkpoint", ID: f.checkpoint.String(), Field: f.Field})
	}
	idem, err := s.purgeKeptAnswers(ctx, tx, r)
	if err != nil {
		return nil, err
	}
	p.Rows = append(p.Rows, idem...)
	if err := s.writePurgeRecord(ctx, tx, p, fields); err != nil {
		return nil, err
	}
	return p, s.optimizeSearchIndex(ctx, tx)
}

// rewriteCell writes a cell's new text.
func (s *Store) rewriteCell(ctx context.Context, tx *sql.Tx, c purgeCell) error {
	where := make([]string, len(c.pc.keys))
	args := []any{c.text}
	for i, k := range c.pc.keys {
		where[i] = k + " = ?"
		v := c.keys[i]
		if k == "seq" {
			n, err := strconv.ParseInt(fmt.Sprint(v), 10, 64)
			if err != nil {
				return fmt.Errorf("purge: %w", err)
			}
			v = n
		}
		args = append(args, v)
	}
	set := c.col + " = ?"
	if c.pc.json[c.col] && s.d.Name == "postgres" {
		set = c.col + " = CAST(? AS JSONB)"
	}
	_, err := tx.ExecContext(ctx, s.d.Rebind("UPDATE "+c.pc.table+" SET "+set+" WHERE "+strings.Join(where, " AND ")), args...)
	if err != nil {
		return fmt.Errorf("purge: rewrite %s.%s: %w", c.pc.table, c.col, err)
	}
	return nil
}

// purgedField is a checkpoint field a purge rewrites.
type purgedField struct {
	smriti.PurgedField
	checkpoint smriti.ID
}

// purgedFieldsOf reads the checkpoints a purge rewrites, before it does,
// and names each text of theirs it changes with the digest of what the
// text holds — or, for a text purged before, of what it held then.
func (s *Store) purgedFieldsOf(ctx context.Context, tx *sql.Tx, ids map[smriti.ID]bool, r *valueReplacer, p *secretlog.SecretPurge) ([]purgedField, error) {
	list := make([]smriti.ID, 0, len(ids))
	for id := range ids {
		list = append(list, id)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].String() < list[j].String() })
	var out []purgedField
	for _, id := range list {
		cs, err := s.queryCheckpoints(ctx, tx, `SELECT `+checkpointCols+` FROM checkpoints c WHERE c.id = ?`, id)
		if err != nil || len(cs) == 0 {
			return nil, fmt.Errorf("purge: read checkpoint %s: %v", id, err)
		}
		c := cs[0]
		if err := s.attachItems(ctx, tx, c); err != nil {
			return nil, err
		}
		if err := s.attachPurged(ctx, tx, c); err != nil {
			return nil, err
		}
		for _, t := range c.HashedTexts() {
			after, hit := r.replace(t.Text)
			if !hit || after == t.Text {
				continue
			}
			f := smriti.PurgedField{Field: t.Field, Digest: smriti.TextDigest(t.Text), By: p.By, At: p.At, Rule: r.ruleIn(t.Text)}
			if old, ok := c.PurgedField(t.Field); ok {
				f.Digest = old.Digest
			}
			out = append(out, purgedField{f, c.ID})
		}
	}
	return out, nil
}

// purgeKeptAnswers rewrites the answers kept for retried writes that hold a
// purged value (they belong to a user, not a space, so all are read).
func (s *Store) purgeKeptAnswers(ctx context.Context, tx *sql.Tx, r *valueReplacer) ([]secretlog.PurgedRow, error) {
	type kept struct {
		user, kind, key string
		body            []byte
	}
	rows, err := tx.QueryContext(ctx, `SELECT user_id, kind, idempotency_key, body FROM idempotency_keys WHERE body IS NOT NULL`)
	if err != nil {
		return nil, fmt.Errorf("purge: read kept answers: %w", err)
	}
	var hits []kept
	for rows.Next() {
		var k kept
		if err := rows.Scan(&k.user, &k.kind, &k.key, &k.body); err != nil {
			rows.Close()
			return nil, fmt.Errorf("purge: read kept answers: %w", err)
		}
		if after, hit := r.replace(string(k.body)); hit {
			k.body = []byte(after)
			hits = append(hits, k)
		}
	}
	err = rows.Err()
	rows.Close()
	if err != nil {
		return nil, fmt.Errorf("purge: read kept answers: %w", err)
	}
	var out []secretlog.PurgedRow
	for _, k := range hits {
		if _, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE idempotency_keys SET body = ? WHERE user_id = ? AND kind = ? AND idempotency_key = ?`),
			k.body, k.user, k.kind, k.key); err != nil {
			return nil, fmt.Errorf("purge: rewrite kept answer: %w", err)
		}
		out = append(out, secretlog.PurgedRow{Kind: "idempotency", ID: k.kind + "/" + k.key, Field: "body"})
	}
	return out, nil
}

func (s *Store) writePurgeRecord(ctx context.Context, tx *sql.Tx, p *secretlog.SecretPurge, fields []purgedField) error {
	rowsJSON, err := json.Marshal(p.Rows)
	if err != nil {
		return fmt.Errorf("purge: %w", err)
	}
	if _, err := tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO secret_purges (id, space_id, purged_by, purged_at, rule, fingerprint, values_purged, rows_changed)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`), p.ID, p.SpaceID, p.By, s.d.T(p.At), p.Rule, p.Fingerprint, p.Values, string(rowsJSON)); err != nil {
		return fmt.Errorf("purge: record: %w", err)
	}
	for _, f := range fields {
		if err := s.writePurgedField(ctx, tx, f.checkpoint, f.PurgedField, &p.ID); err != nil {
			return err
		}
	}
	return nil
}

// writePurgedField records (or replaces) a checkpoint's purged field.
func (s *Store) writePurgedField(ctx context.Context, tx *sql.Tx, checkpoint smriti.ID, f smriti.PurgedField, purge *smriti.ID) error {
	if _, err := tx.ExecContext(ctx, s.d.Rebind(`DELETE FROM checkpoint_purged_fields WHERE checkpoint_id = ? AND field = ?`), checkpoint, f.Field); err != nil {
		return fmt.Errorf("purge: record field: %w", err)
	}
	if _, err := tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO checkpoint_purged_fields (checkpoint_id, field, digest, purged_by, purged_at, rule, purge_id)
		VALUES (?, ?, ?, ?, ?, ?, ?)`), checkpoint, f.Field, f.Digest, f.By, s.d.T(f.At), f.Rule, dbx.IDArg(purge)); err != nil {
		return fmt.Errorf("purge: record field: %w", err)
	}
	return nil
}

// optimizeSearchIndex merges SQLite's full-text indexes into one segment
// each, which drops the entries of the rows a purge rewrote (a rewrite only
// marks them deleted). PostgreSQL's index follows its generated columns.
func (s *Store) optimizeSearchIndex(ctx context.Context, tx *sql.Tx) error {
	if s.d.Name != "sqlite" {
		return nil
	}
	for _, t := range []string{"turn_fts", "checkpoint_fts", "note_fts"} {
		if _, err := tx.ExecContext(ctx, `INSERT INTO `+t+` (`+t+`) VALUES ('optimize')`); err != nil {
			return fmt.Errorf("purge: optimize %s: %w", t, err)
		}
	}
	return nil
}

// attachPurged loads the purged fields of checkpoints.
func (s *Store) attachPurged(ctx context.Context, q dbx.Querier, cs ...*smriti.Checkpoint) error {
	if len(cs) == 0 {
		return nil
	}
	byID := make(map[smriti.ID]*smriti.Checkpoint, len(cs))
	args := make([]any, 0, len(cs))
	for _, c := range cs {
		byID[c.ID] = c
		c.Purged = nil
		args = append(args, c.ID)
	}
	for start := 0; start < len(args); start += 500 {
		part := args[start:min(start+500, len(args))]
		rows, err := q.QueryContext(ctx, s.d.Rebind(`SELECT checkpoint_id, field, digest, purged_by, purged_at, rule FROM checkpoint_purged_fields
			WHERE checkpoint_id IN (`+dbx.Placeholders(len(part))+`) ORDER BY checkpoint_id, field`), part...)
		if err != nil {
			return fmt.Errorf("read purged fields: %w", err)
		}
		for rows.Next() {
			var id smriti.ID
			var f smriti.PurgedField
			var at dbx.Time
			if err := rows.Scan(&id, &f.Field, &f.Digest, &f.By, &at, &f.Rule); err != nil {
				rows.Close()
				return fmt.Errorf("read purged fields: %w", err)
			}
			f.At = at.Time
			if c := byID[id]; c != nil {
				c.Purged = append(c.Purged, f)
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return fmt.Errorf("read purged fields: %w", err)
		}
	}
	return nil
}

// valueReplacer replaces the values a purge found with their markers, in
// every form a stored text may hold them: as they are, and escaped inside
// a JSON string (with and without HTML escaping).
type valueReplacer struct {
	r     *strings.Replacer
	found map[string]secretlog.SecretMatch
	order []string // values, longest first
}

func newValueReplacer(found map[string]secretlog.SecretMatch) *valueReplacer {
	vr := &valueReplacer{found: found}
	for v := range found {
		vr.order = append(vr.order, v)
	}
	sort.Slice(vr.order, func(i, j int) bool {
		if len(vr.order[i]) != len(vr.order[j]) {
			return len(vr.order[i]) > len(vr.order[j])
		}
		return vr.order[i] < vr.order[j]
	})
	seen := map[string]bool{}
	var pairs []string
	for _, v := range vr.order {
		for _, form := range jsonForms(v) {
			if !seen[form] {
				seen[form] = true
				pairs = append(pairs, form, found[v].Replacement)
			}
		}
	}
	vr.r = strings.NewReplacer(pairs...)
	return vr
}

// jsonForms is v as it is and as it reads inside a JSON string.
func jsonForms(v string) []string {
	forms := []string{v}
	j, _ := json.Marshal(v)
	forms = append(forms, string(j[1:len(j)-1]))
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	e := strings.TrimSuffix(b.String(), "\n")
	return append(forms, e[1:len(e)-1])
}

// replace is text with every purged value replaced, and whether any was.
func (vr *valueReplacer) replace(text string) (string, bool) {
	out := vr.r.Replace(text)
	return out, out != text
}

// ruleIn names the rule of the first purged value in text.
func (vr *valueReplacer) ruleIn(text string) string {
	for _, v := range vr.order {
		for _, form := range jsonForms(v) {
			if strings.Contains(text, form) {
				return vr.found[v].Rule
			}
		}
	}
	return ""
}
