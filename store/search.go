package store

import (
	"context"
	"fmt"
	"smriti/search"
	"sort"
	"strings"

	"github.com/google/uuid"

	"smriti"
	"smriti/store/internal/dbx"
)

var _ search.Service = (*Store)(nil)

// Search implements search.Service. Each kind is one indexed query,
// ranked by the engine (SQLite's bm25 over FTS5, PostgreSQL's ts_rank over
// the tsvector columns), limited, and the kinds merged by score. The
// snippets are cut in the domain (search.Snippet) so both engines show the
// same ones.
func (s *Store) Search(ctx context.Context, q search.Query) ([]*search.SearchHit, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	if q.SpaceID != nil {
		if _, err := s.space(ctx, s.read, *q.SpaceID); err != nil {
			return nil, err
		}
	}
	terms := q.Terms()
	var hits []*search.SearchHit
	for _, kind := range []string{search.KindCheckpoint, search.KindNote, search.KindTurn} {
		if !q.Wants(kind) {
			continue
		}
		var found []*search.SearchHit
		var err error
		switch kind {
		case search.KindCheckpoint:
			found, err = s.searchCheckpoints(ctx, q, terms)
		case search.KindNote:
			found, err = s.searchNotes(ctx, q, terms)
		case search.KindTurn:
			found, err = s.searchTurns(ctx, q, terms)
		}
		if err != nil {
			return nil, fmt.Errorf("search %ss: %w", kind, err)
		}
		hits = append(hits, found...)
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	if len(hits) > q.Limit {
		hits = hits[:q.Limit]
	}
	for _, h := range hits {
		h.Snippet = search.Snippet(h.Text, terms)
	}
	if hits == nil {
		hits = []*search.SearchHit{}
	}
	return hits, nil
}

// match is the engine's full-text condition and score for one index.
type match struct {
	from, where, score string
	arg                any
}

func (s *Store) matchFor(kind string, q search.Query, terms []string) match {
	if s.d.Name == "postgres" {
		// plainto_tsquery parses the words as the index did (no
		// diacritic folding on PostgreSQL).
		tsq := `plainto_tsquery('simple', ?)`
		col := map[string]string{search.KindCheckpoint: "c.search_tsv", search.KindNote: "n.search_tsv", search.KindTurn: "t.search_tsv"}[kind]
		return match{where: col + ` @@ ` + tsq, score: `ts_rank(` + col + `, ` + tsq + `)`, arg: q.Text}
	}
	quoted := make([]string, len(terms))
	for i, t := range terms {
		quoted[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	expr := strings.Join(quoted, " ")
	switch kind {
	case search.KindCheckpoint:
		// Title weighs most, then objective and summary, then the lists.
		return match{from: `checkpoint_fts f JOIN `, where: `checkpoint_fts MATCH ?`, score: `-bm25(checkpoint_fts, 10.0, 4.0, 4.0, 1.0)`, arg: expr}
	case search.KindNote:
		return match{from: `note_fts f JOIN `, where: `note_fts MATCH ?`, score: `-bm25(note_fts)`, arg: expr}
	}
	return match{from: `turn_fts f JOIN `, where: `turn_fts MATCH ?`, score: `-bm25(turn_fts)`, arg: expr}
}

// args is the match argument again where the score needs it too (PostgreSQL).
func (m match) args(d dbx.Dialect) []any {
	if d.Name == "postgres" {
		return []any{m.arg}
	}
	return nil
}

func (s *Store) searchCheckpoints(ctx context.Context, q search.Query, terms []string) ([]*search.SearchHit, error) {
	m := s.matchFor(search.KindCheckpoint, q, terms)
	on := ``
	if m.from != "" {
		on = ` ON c.log_pos = f.rowid`
	}
	query := `SELECT c.id, ` + m.score + ` AS score FROM ` + m.from + `checkpoints c` + on + ` JOIN spaces sp ON sp.id = c.space_id
		WHERE ` + m.where + ` AND sp.id` + memberSpace
	args := append(m.args(s.d), m.arg, smriti.UserFromContext(ctx))
	if q.SpaceID != nil {
		query += ` AND c.space_id = ?`
		args = append(args, *q.SpaceID)
	}
	if q.Branch != "" {
		query += ` AND c.branch_name = ?`
		args = append(args, q.Branch)
	}
	// Log positions are per space (on PostgreSQL): the id breaks their ties.
	query += ` ORDER BY score DESC, c.log_pos DESC, c.id LIMIT ?`
	args = append(args, q.Limit)
	rows, err := s.read.QueryContext(ctx, s.d.Rebind(query), args...)
	if err != nil {
		return nil, err
	}
	var ids []any
	scores := map[smriti.ID]float64{}
	for rows.Next() {
		var id smriti.ID
		var score float64
		if err := rows.Scan(&id, &score); err != nil {
			rows.Close()
			return nil, err
		}
		ids = append(ids, id)
		scores[id] = score
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(ids) == 0 {
		return nil, err
	}
	cs, err := s.queryCheckpoints(ctx, s.read, `SELECT `+checkpointCols+` FROM checkpoints c WHERE c.id IN (`+dbx.Placeholders(len(ids))+`)`, ids...)
	if err != nil {
		return nil, err
	}
	out := make([]*search.SearchHit, 0, len(cs))
	for _, c := range cs {
		id, hash := c.ID, c.Hash
		out = append(out, &search.SearchHit{Kind: search.KindCheckpoint, ID: c.ID, SpaceID: c.SpaceID, CheckpointID: &id,
			CommitHash: &hash, Branch: c.BranchName, Title: c.Message, Score: scores[c.ID], Text: search.CheckpointText(c)})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out, nil
}

func (s *Store) searchNotes(ctx context.Context, q search.Query, terms []string) ([]*search.SearchHit, error) {
	m := s.matchFor(search.KindNote, q, terms)
	on := ``
	if m.from != "" {
		on = ` ON n.id = f.note_id`
	}
	query := `SELECT n.id, n.text, c.id, c.space_id, c.commit_hash, c.branch_name, c.message, ` + m.score + ` AS score
		FROM ` + m.from + `checkpoint_notes n` + on + ` JOIN checkpoints c ON c.id = n.checkpoint_id JOIN spaces sp ON sp.id = c.space_id
		WHERE ` + m.where + ` AND sp.id` + memberSpace
	args := append(m.args(s.d), m.arg, smriti.UserFromContext(ctx))
	if q.SpaceID != nil {
		query += ` AND c.space_id = ?`
		args = append(args, *q.SpaceID)
	}
	if q.Branch != "" {
		query += ` AND c.branch_name = ?`
		args = append(args, q.Branch)
	}
	query += ` ORDER BY score DESC, n.created_at DESC, n.id LIMIT ?`
	args = append(args, q.Limit)
	rows, err := s.read.QueryContext(ctx, s.d.Rebind(query), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*search.SearchHit
	for rows.Next() {
		h := &search.SearchHit{Kind: search.KindNote}
		var cid smriti.ID
		var hash string
		if err := rows.Scan(&h.ID, &h.Text, &cid, &h.SpaceID, &hash, &h.Branch, &h.Title, &h.Score); err != nil {
			return nil, err
		}
		h.CheckpointID, h.CommitHash = &cid, &hash
		out = append(out, h)
	}
	return out, rows.Err()
}

func (s *Store) searchTurns(ctx context.Context, q search.Query, terms []string) ([]*search.SearchHit, error) {
	m := s.matchFor(search.KindTurn, q, terms)
	on := ``
	if m.from != "" {
		on = ` ON t.log_pos = f.rowid`
	}
	query := `SELECT t.id, t.session_id, t.space_id, t.sequence_number, t.content, se.branch_name, se.title, ` + m.score + ` AS score
		FROM ` + m.from + `turns t` + on + ` JOIN sessions se ON se.id = t.session_id
		WHERE ` + m.where + ` AND ` + sessionVisibleSe
	args := append(m.args(s.d), m.arg, smriti.UserFromContext(ctx), smriti.UserFromContext(ctx))
	if q.SpaceID != nil {
		query += ` AND t.space_id = ?`
		args = append(args, *q.SpaceID)
	}
	if q.Branch != "" {
		query += ` AND se.branch_name = ?`
		args = append(args, q.Branch)
	}
	query += ` ORDER BY score DESC, t.log_pos DESC, t.id LIMIT ?`
	args = append(args, q.Limit)
	rows, err := s.read.QueryContext(ctx, s.d.Rebind(query), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*search.SearchHit
	for rows.Next() {
		h := &search.SearchHit{Kind: search.KindTurn}
		var sid smriti.ID
		var space uuid.NullUUID
		var seq int64
		if err := rows.Scan(&h.ID, &sid, &space, &seq, &h.Text, &h.Branch, &h.Title, &h.Score); err != nil {
			return nil, err
		}
		if sp := dbx.NullID(space); sp != nil {
			h.SpaceID = *sp
		}
		h.SessionID, h.Seq = &sid, &seq
		out = append(out, h)
	}
	return out, rows.Err()
}
