package store

import (
	"context"
	"database/sql"
	"fmt"

	"smriti"
	"smriti/internal/memtrim"
	"smriti/internal/nonnil"
	"smriti/records"
	"smriti/remote"
	"smriti/store/internal/dbx"
)

// This file is the store's half of copies of one space (SPEC §3): the
// answering side of a fetch (SyncExport) and of a push (ApplyPush), and
// the asking side's staging of what it fetched (StageRecords) and its
// integration onto a local branch (IntegrateStaged). History is never
// rewritten: a checkpoint arrives with its id and hash, is verified
// (parents present, hash recomputed) and is stored once.

// withBranchHeads starts a query with heads (branch_name, id): the newest
// checkpoint of each branch of the space given by its three parameters. It
// hops from one branch name to the next and reads each branch's newest
// checkpoint through the (space, branch, log position) index, so its cost
// follows the number of branches, not of checkpoints.
const withBranchHeads = `WITH RECURSIVE branches (name) AS (
		SELECT MIN(branch_name) FROM checkpoints WHERE space_id = ?
		UNION ALL
		SELECT (SELECT MIN(n.branch_name) FROM checkpoints n WHERE n.space_id = ? AND n.branch_name > b.name)
		FROM branches b WHERE b.name IS NOT NULL
	), heads (branch_name, id) AS (
		SELECT b.name, (SELECT h.id FROM checkpoints h WHERE h.space_id = ? AND h.branch_name = b.name ORDER BY h.log_pos DESC LIMIT 1)
		FROM branches b WHERE b.name IS NOT NULL
	)`

const sqlBranchHeads = withBranchHeads + ` SELECT c.branch_name, c.id, c.commit_hash FROM checkpoints c WHERE c.id IN (SELECT id FROM heads)
	ORDER BY c.branch_name`

func (s *Store) branchHeads(ctx context.Context, q dbx.Querier, space smriti.ID) ([]remote.Head, error) {
	rows, err := q.QueryContext(ctx, s.d.Rebind(sqlBranchHeads), space, space, space)
	if err != nil {
		return nil, fmt.Errorf("branch heads: %w", err)
	}
	defer rows.Close()
	out := []remote.Head{}
	for rows.Next() {
		var h remote.Head
		if err := rows.Scan(&h.Branch, &h.CheckpointID, &h.Hash); err != nil {
			return nil, fmt.Errorf("branch heads: %w", err)
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

func (s *Store) turnCursor(ctx context.Context, q dbx.Querier, space smriti.ID) (int64, error) {
	var pos int64
	if err := q.QueryRowContext(ctx, s.d.Rebind(`SELECT COALESCE(MAX(log_pos), -1) FROM turns WHERE space_id = ?`), space).Scan(&pos); err != nil {
		return 0, fmt.Errorf("turn cursor: %w", err)
	}
	return pos, nil
}

// SyncHeads returns a space's branch heads and the log position of its
// newest turn. ENOTFOUND for a space the caller may not see.
func (s *Store) SyncHeads(ctx context.Context, space smriti.ID) ([]remote.Head, int64, error) {
	var heads []remote.Head
	var cursor int64
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		if _, err := s.space(ctx, tx, space); err != nil {
			return err
		}
		var err error
		if heads, err = s.branchHeads(ctx, tx, space); err != nil {
			return err
		}
		cursor, err = s.turnCursor(ctx, tx, space)
		return err
	})
	return heads, cursor, err
}

// syncPage is how many checkpoints or turns an export reads at a time.
const syncPage = 500

type posID struct {
	id  smriti.ID
	pos int64
}

// SyncExport answers a fetch: from one snapshot, the space record, every
// checkpoint reachable from a branch head and not from a checkpoint the
// asker has (want.Haves; the walk stops there, so the cost follows the
// change), and the turns logged after want.Since with their sessions,
// interleaved in log order, then a sync_end record. A private session's
// turns are left out, and so are the quotes they lent to items.
// ENOTFOUND for a space the caller may not see.
func (s *Store) SyncExport(ctx context.Context, space smriti.ID, want remote.Want, w records.Writer) error {
	if err := want.Validate(); err != nil {
		return err
	}
	// A first fetch of a whole space is as long as an export (see
	// ExportSpace).
	defer memtrim.Hold()()
	return s.readTx(ctx, func(tx *sql.Tx) error {
		sp, err := s.space(ctx, tx, space)
		if err != nil {
			return err
		}
		if err := w.Write(records.BundleRecord{Type: records.RecordSpace, Space: &records.BundleSpace{
			ID: sp.ID, Slug: sp.Slug, Name: sp.Name, Description: sp.Description, ProjectRoot: sp.ProjectRoot,
			Metadata: nonnil.Map(sp.Metadata), CreatedAt: sp.CreatedAt.UTC(), UpdatedAt: sp.UpdatedAt.UTC(),
		}}); err != nil {
			return err
		}
		heads, err := s.branchHeads(ctx, tx, space)
		if err != nil {
			return err
		}
		cursor, err := s.turnCursor(ctx, tx, space)
		if err != nil {
			return err
		}
		private, err := s.privateSessions(ctx, tx, space)
		if err != nil {
			return err
		}
		walk, err := s.syncWalk(ctx, tx, space, want.Haves, want.Branches)
		if err != nil {
			return err
		}
		sessions, err := s.syncSessions(ctx, tx, space, want.Since)
		if err != nil {
			return err
		}
		ex := &syncExporter{s: s, ctx: ctx, tx: tx, w: w, walk: walk, private: private, sessions: sessions, sent: map[smriti.ID]bool{}}
		after := want.Since
		for {
			turns, err := s.queryTurns(ctx, tx, `SELECT `+turnCols+` FROM turns WHERE space_id = ? AND log_pos > ? AND log_pos <= ?
				ORDER BY log_pos LIMIT ?`, space, after, cursor, syncPage)
			if err != nil {
				return err
			}
			for _, t := range turns {
				if err := ex.checkpointsBefore(t.LogPos); err != nil {
					return err
				}
				if private[t.SessionID] {
					continue
				}
				if err := ex.session(t.SessionID); err != nil {
					return err
				}
				ex.counts.Turns++
				if err := w.Write(records.BundleRecord{Type: records.RecordTurn, Turn: &records.BundleTurn{
					ID: t.ID, SessionID: t.SessionID, Seq: t.Seq, Role: t.Role, Content: t.Content, Provider: t.Provider,
					Model: t.Model, Tokens: t.Tokens, Metadata: nonnil.Map(t.Metadata), CreatedAt: t.CreatedAt.UTC(),
				}}); err != nil {
					return err
				}
			}
			if len(turns) < syncPage {
				break
			}
			after = turns[len(turns)-1].LogPos
		}
		if err := ex.checkpointsBefore(1 << 62); err != nil {
			return err
		}
		for _, se := range sessions.order {
			if err := ex.session(se); err != nil {
				return err
			}
		}
		end := &records.SyncEnd{Counts: ex.counts, Cursor: cursor, Heads: []records.SyncHead{}}
		for _, h := range heads {
			end.Heads = append(end.Heads, records.SyncHead{Branch: h.Branch, CheckpointID: h.CheckpointID.String(), CommitHash: h.Hash})
		}
		return w.Write(records.BundleRecord{Type: records.RecordSyncEnd, SyncEnd: end})
	})
}

// syncWalk lists, in log order, the checkpoints reachable from the space's
// branch heads without passing through one whose hash is in haves.
func (s *Store) syncWalk(ctx context.Context, q dbx.Querier, space smriti.ID, haves, branches []string) ([]posID, error) {
	// A store holds every ancestor of what it holds, so the walk may stop
	// at a checkpoint the asker has.
	not := append([]string{""}, haves...)
	in := dbx.Placeholders(len(not))
	args := []any{space, space, space}
	only := ""
	if len(branches) > 0 {
		only = ` WHERE branch_name IN (` + dbx.Placeholders(len(branches)) + `)`
		for _, b := range branches {
			args = append(args, b)
		}
	}
	for _, h := range not {
		args = append(args, h)
	}
	for _, h := range not {
		args = append(args, h)
	}
	// Each step carries the parents it leads to, so it is one primary-key
	// read a checkpoint: joining the walk back to checkpoints by id lets
	// PostgreSQL, which cannot tell how long the walk is, hash the whole
	// table instead.
	rows, err := q.QueryContext(ctx, s.d.Rebind(withBranchHeads+`, walk (id, log_pos, parent_id, merge_parent_id) AS (
			SELECT c.id, c.log_pos, c.parent_id, c.merge_parent_id FROM checkpoints c
			WHERE c.id IN (SELECT id FROM heads`+only+`) AND c.commit_hash NOT IN (`+in+`)
			UNION
			SELECT p.id, p.log_pos, p.parent_id, p.merge_parent_id FROM walk w JOIN checkpoints p ON p.id IN (w.parent_id, w.merge_parent_id)
			WHERE p.commit_hash NOT IN (`+in+`)
		)
		SELECT id, log_pos FROM walk ORDER BY log_pos`), args...)
	if err != nil {
		return nil, fmt.Errorf("sync walk: %w", err)
	}
	defer rows.Close()
	var out []posID
	for rows.Next() {
		var p posID
		if err := rows.Scan(&p.id, &p.pos); err != nil {
			return nil, fmt.Errorf("sync walk: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

type syncSessionSet struct {
	byID  map[smriti.ID]*smriti.Session
	order []smriti.ID
}

// syncSessions are the sessions a fetch after since sends: every shared
// session when since is -1, else those with a turn after since.
func (s *Store) syncSessions(ctx context.Context, q dbx.Querier, space smriti.ID, since int64) (*syncSessionSet, error) {
	query, args := `SELECT `+sessionCols+` FROM sessions WHERE space_id = ? AND NOT private`, []any{space}
	if since >= 0 {
		query += ` AND id IN (SELECT session_id FROM turns WHERE space_id = ? AND log_pos > ?)`
		args = append(args, space, since)
	}
	list, err := s.querySessions(ctx, q, query+` ORDER BY created_at, id`, args...)
	if err != nil {
		return nil, err
	}
	out := &syncSessionSet{byID: map[smriti.ID]*smriti.Session{}}
	for _, se := range list {
		out.byID[se.ID] = se
		out.order = append(out.order, se.ID)
	}
	return out, nil
}

// syncExporter writes an export's checkpoints and sessions as their turns
// come by in log order.
type syncExporter struct {
	s        *Store
	ctx      context.Context
	tx       *sql.Tx
	w        records.Writer
	walk     []posID
	next     int
	buf      []*smriti.Checkpoint
	private  map[smriti.ID]bool
	sessions *syncSessionSet
	sent     map[smriti.ID]bool
	counts   records.BundleCounts
}

// checkpointsBefore writes the walk's checkpoints logged before pos.
func (ex *syncExporter) checkpointsBefore(pos int64) error {
	for {
		if len(ex.buf) == 0 {
			if ex.next >= len(ex.walk) || ex.walk[ex.next].pos >= pos {
				return nil
			}
			if err := ex.load(); err != nil {
				return err
			}
		}
		c := ex.buf[0]
		if c.LogPos >= pos {
			return nil
		}
		ex.buf = ex.buf[1:]
		b := records.BundleCheckpointOf(c)
		withholdPrivateQuotes(b, ex.private)
		ex.counts.Checkpoints++
		ex.counts.Notes += len(b.Notes)
		if err := ex.w.Write(records.BundleRecord{Type: records.RecordCheckpoint, Checkpoint: b}); err != nil {
			return err
		}
	}
}

func (ex *syncExporter) load() error {
	end := min(ex.next+syncPage/5, len(ex.walk))
	ids := make([]any, 0, end-ex.next)
	for _, p := range ex.walk[ex.next:end] {
		ids = append(ids, p.id)
	}
	ex.next = end
	page, err := ex.s.queryCheckpoints(ex.ctx, ex.tx, `SELECT `+checkpointCols+` FROM checkpoints c WHERE c.id IN (`+dbx.Placeholders(len(ids))+`)
		ORDER BY c.log_pos`, ids...)
	if err != nil {
		return err
	}
	if err := ex.s.attachNotes(ex.ctx, ex.tx, page); err != nil {
		return err
	}
	if err := ex.s.attachItems(ex.ctx, ex.tx, page...); err != nil {
		return err
	}
	if err := ex.s.attachPurged(ex.ctx, ex.tx, page...); err != nil {
		return err
	}
	ex.buf = page
	return nil
}

// session writes a session's record the first time it is needed.
func (ex *syncExporter) session(id smriti.ID) error {
	if ex.sent[id] {
		return nil
	}
	se := ex.sessions.byID[id]
	if se == nil {
		return nil
	}
	ex.sent[id] = true
	ex.counts.Sessions++
	b := &records.BundleSession{
		ID: se.ID, Title: se.Title, ActiveProvider: se.ActiveProvider, ActiveModel: se.ActiveModel,
		SeededCheckpointID: se.SeededCheckpointID, ForkedFromCheckpointID: se.ForkedFromCheckpointID,
		BranchName: se.BranchName, BranchDisposition: se.BranchDisposition, Metadata: nonnil.Map(se.Metadata),
		CreatedAt: se.CreatedAt.UTC(), UpdatedAt: se.UpdatedAt.UTC(),
	}
	return ex.w.Write(records.BundleRecord{Type: records.RecordSession, Session: b})
}

// withholdPrivateQuotes drops the quotes a private session lent to the
// checkpoint's items: the provenance reference travels, the words do not.
// Quotes are not covered by the hash, so the record still verifies.
func withholdPrivateQuotes(b *records.BundleCheckpoint, private map[smriti.ID]bool) {
	if len(private) == 0 {
		return
	}
	for i := range b.Items {
		it := &b.Items[i]
		if it.Origin.SessionID != nil && private[*it.Origin.SessionID] {
			it.Origin.Quote = nil
		}
		if it.Change != nil && it.Change.Source.SessionID != nil && private[*it.Change.Source.SessionID] {
			ch := *it.Change
			ch.Source.Quote = nil
			it.Change = &ch
		}
	}
}
