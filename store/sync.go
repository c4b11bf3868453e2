package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/google/uuid"

	"smriti"
	"smriti/internal/nonnil"
	"smriti/records"
	"smriti/remote"
)

// This file is the store's half of copies of one space (SPEC §3): the
// answering side of a fetch (SyncExport) and of a push (ApplyPush), and
// the asking side's staging of what it fetched (StageRecords) and its
// integration onto a local branch (IntegrateStaged). History is never
// rewritten: a checkpoint arrives with its id and hash, is verified
// (parents present, hash recomputed) and is stored once.

const sqlBranchHeads = `SELECT c.branch_name, c.id, c.commit_hash FROM checkpoints c WHERE c.space_id = ?
	AND c.log_pos = (SELECT MAX(h.log_pos) FROM checkpoints h WHERE h.space_id = c.space_id AND h.branch_name = c.branch_name)
	ORDER BY c.branch_name`

func (s *Store) branchHeads(ctx context.Context, q querier, space smriti.ID) ([]remote.Head, error) {
	rows, err := q.QueryContext(ctx, s.d.rebind(sqlBranchHeads), space)
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

func (s *Store) turnCursor(ctx context.Context, q querier, space smriti.ID) (int64, error) {
	var pos int64
	if err := q.QueryRowContext(ctx, s.d.rebind(`SELECT COALESCE(MAX(log_pos), -1) FROM turns WHERE space_id = ?`), space).Scan(&pos); err != nil {
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
func (s *Store) syncWalk(ctx context.Context, q querier, space smriti.ID, haves, branches []string) ([]posID, error) {
	// A store holds every ancestor of what it holds, so the walk may stop
	// at a checkpoint the asker has.
	not := append([]string{""}, haves...)
	in := placeholders(len(not))
	args := []any{space}
	only := ""
	if len(branches) > 0 {
		only = ` AND c.branch_name IN (` + placeholders(len(branches)) + `)`
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
	rows, err := q.QueryContext(ctx, s.d.rebind(`WITH RECURSIVE walk (id) AS (
			SELECT c.id FROM checkpoints c WHERE c.space_id = ?
				AND c.log_pos = (SELECT MAX(h.log_pos) FROM checkpoints h WHERE h.space_id = c.space_id AND h.branch_name = c.branch_name)`+only+`
				AND c.commit_hash NOT IN (`+in+`)
			UNION
			SELECT p.id FROM walk w JOIN checkpoints c ON c.id = w.id JOIN checkpoints p ON p.id IN (c.parent_id, c.merge_parent_id)
			WHERE p.commit_hash NOT IN (`+in+`)
		)
		SELECT c.id, c.log_pos FROM checkpoints c WHERE c.id IN (SELECT id FROM walk) ORDER BY c.log_pos`), args...)
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
func (s *Store) syncSessions(ctx context.Context, q querier, space smriti.ID, since int64) (*syncSessionSet, error) {
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
	page, err := ex.s.queryCheckpoints(ex.ctx, ex.tx, `SELECT `+checkpointCols+` FROM checkpoints c WHERE c.id IN (`+placeholders(len(ids))+`)
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

// verifySyncCheckpoint recomputes a received checkpoint's hash from its
// content and its parents' hashes (found by hashOf), and refuses a record
// whose hash does not recompute or whose parent is missing, naming it.
func verifySyncCheckpoint(c *smriti.Checkpoint, hashOf func(smriti.ID) (string, bool, error)) error {
	ph, mh := "", ""
	for i, p := range []*smriti.ID{c.ParentID, c.MergeParentID} {
		if p == nil {
			continue
		}
		h, ok, err := hashOf(*p)
		if err != nil {
			return err
		}
		if !ok {
			return smriti.Errorf(smriti.EUNPROCESSABLE, "checkpoint %s (%s) arrived before its parent %s; nothing after it was stored", c.ID, smriti.ShortHash(c.Hash), *p)
		}
		if i == 0 {
			ph = h
		} else {
			mh = h
		}
	}
	if c.HashVersion >= 2 && c.Items == nil {
		c.Items = []smriti.Item{}
	}
	if got := c.ComputeHash(ph, mh); got != c.Hash {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "checkpoint %s does not verify: its content hashes to %s, not %s as it claims; it was refused and nothing after it was stored",
			c.ID, smriti.ShortHash(got), smriti.ShortHash(c.Hash))
	}
	return nil
}

// localHash looks a checkpoint of the space up in the checkpoints table.
func (s *Store) localHash(ctx context.Context, q querier, space, id smriti.ID) (string, bool, error) {
	ref, err := s.refInSpace(ctx, q, space, id)
	if err != nil || ref == nil {
		return "", false, err
	}
	return ref.hash, true, nil
}

// stagedHash looks a checkpoint up among the space's staged records.
func (s *Store) stagedHash(ctx context.Context, q querier, space, id smriti.ID) (string, bool, error) {
	var h sql.NullString
	err := q.QueryRowContext(ctx, s.d.rebind(`SELECT commit_hash FROM sync_staged WHERE space_id = ? AND kind = 'checkpoint' AND record_id = ?`),
		space, id.String()).Scan(&h)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("look up staged checkpoint: %w", err)
	}
	return h.String, true, nil
}

// stageChunk is how many records a fetch stages per transaction: a fetch
// cut off keeps what it verified, parents always before children.
const stageChunk = 256

// StageRecords keeps the records of a fetch answer from a remote, verified
// as they arrive — a checkpoint's parents must be stored or staged and its
// hash must recompute, else the fetch stops with an error naming it and
// nothing after it is written — without touching any local branch. What
// is stored or staged already is skipped, so a fetch run again writes
// nothing and one cut off resumes. It returns what it staged.
func (s *Store) StageRecords(ctx context.Context, space smriti.ID, name string, rd records.Reader) (remote.Counts, error) {
	var total remote.Counts
	done := false
	for !done {
		var chunk remote.Counts
		err := s.tx(ctx, func(tx *sql.Tx) error {
			chunk = remote.Counts{}
			if err := s.lockSpace(ctx, tx, space, s.Now()); err != nil {
				return err
			}
			var seq int64
			if err := tx.QueryRowContext(ctx, s.d.rebind(`SELECT COALESCE(MAX(seq), 0) FROM sync_staged WHERE space_id = ?`), space).Scan(&seq); err != nil {
				return fmt.Errorf("stage: %w", err)
			}
			for n := 0; n < stageChunk; n++ {
				rec, err := rd.Next()
				if errors.Is(err, io.EOF) {
					done = true
					return nil
				}
				if err != nil {
					return err
				}
				staged, err := s.stageOne(ctx, tx, space, name, seq+1, rec)
				if err != nil {
					return err
				}
				if staged {
					seq++
					switch rec.Type {
					case records.RecordCheckpoint:
						chunk.Checkpoints++
					case records.RecordSession:
						chunk.Sessions++
					case records.RecordTurn:
						chunk.Turns++
					}
				}
			}
			return nil
		})
		if err != nil {
			return total, err
		}
		total.Checkpoints += chunk.Checkpoints
		total.Sessions += chunk.Sessions
		total.Turns += chunk.Turns
	}
	return total, nil
}

func (s *Store) stageOne(ctx context.Context, tx *sql.Tx, space smriti.ID, name string, seq int64, rec *records.BundleRecord) (bool, error) {
	var kind, id string
	var hash, branch any
	switch rec.Type {
	case records.RecordCheckpoint:
		c := rec.Checkpoint.CheckpointOf(space)
		kind, id, hash, branch = records.RecordCheckpoint, c.ID.String(), c.Hash, c.BranchName
		if h, ok, err := s.localHash(ctx, tx, space, c.ID); err != nil {
			return false, err
		} else if ok {
			return false, sameHash(c, h)
		}
		if h, ok, err := s.stagedHash(ctx, tx, space, c.ID); err != nil {
			return false, err
		} else if ok {
			return false, sameHash(c, h)
		}
		err := verifySyncCheckpoint(c, func(p smriti.ID) (string, bool, error) {
			if h, ok, err := s.localHash(ctx, tx, space, p); err != nil || ok {
				return h, ok, err
			}
			return s.stagedHash(ctx, tx, space, p)
		})
		if err != nil {
			return false, err
		}
	case records.RecordSession:
		kind, id = records.RecordSession, rec.Session.ID.String()
		if ok, err := s.exists(ctx, tx, "sessions", rec.Session.ID); err != nil || ok {
			return false, err
		}
	case records.RecordTurn:
		kind, id = records.RecordTurn, rec.Turn.ID.String()
		if ok, err := s.exists(ctx, tx, "turns", rec.Turn.ID); err != nil || ok {
			return false, err
		}
	default:
		return false, nil
	}
	var n int
	if err := tx.QueryRowContext(ctx, s.d.rebind(`SELECT COUNT(*) FROM sync_staged WHERE space_id = ? AND kind = ? AND record_id = ?`),
		space, kind, id).Scan(&n); err != nil {
		return false, fmt.Errorf("stage: %w", err)
	}
	if n > 0 {
		return false, nil
	}
	body, err := json.Marshal(rec)
	if err != nil {
		return false, fmt.Errorf("stage: %w", err)
	}
	if _, err := tx.ExecContext(ctx, s.d.rebind(`INSERT INTO sync_staged (space_id, seq, remote, kind, record_id, commit_hash, branch_name, record)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`), space, seq, name, kind, id, hash, branch, string(body)); err != nil {
		return false, fmt.Errorf("stage: %w", err)
	}
	return true, nil
}

func sameHash(c *smriti.Checkpoint, stored string) error {
	if stored != c.Hash {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "checkpoint %s arrived with hash %s but this copy holds it with hash %s; history is never rewritten, so it was refused",
			c.ID, smriti.ShortHash(c.Hash), smriti.ShortHash(stored))
	}
	return nil
}

func (s *Store) exists(ctx context.Context, q querier, table string, id smriti.ID) (bool, error) {
	var n int
	if err := q.QueryRowContext(ctx, s.d.rebind(`SELECT COUNT(*) FROM `+table+` WHERE id = ?`), id).Scan(&n); err != nil {
		return false, fmt.Errorf("look up %s: %w", strings.TrimSuffix(table, "s"), err)
	}
	return n > 0, nil
}

// StagedCheckpoint returns a checkpoint fetched and not yet applied, with
// its items. ENOTFOUND when no such checkpoint is staged.
func (s *Store) StagedCheckpoint(ctx context.Context, space, id smriti.ID) (*smriti.Checkpoint, error) {
	if _, err := s.Space(ctx, space); err != nil {
		return nil, err
	}
	var body string
	err := s.read.QueryRowContext(ctx, s.d.rebind(`SELECT record FROM sync_staged WHERE space_id = ? AND kind = 'checkpoint' AND record_id = ?`),
		space, id.String()).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, smriti.Errorf(smriti.ENOTFOUND, "checkpoint %s is not among the fetched checkpoints", id)
	}
	if err != nil {
		return nil, fmt.Errorf("staged checkpoint: %w", err)
	}
	var rec records.BundleRecord
	if err := json.Unmarshal([]byte(body), &rec); err != nil || rec.Checkpoint == nil {
		return nil, fmt.Errorf("staged checkpoint %s: unreadable record", id)
	}
	return rec.Checkpoint.CheckpointOf(space), nil
}

// StagedFrontier walks a staged checkpoint's ancestry through the staged
// records and returns the stored checkpoints it reaches (the newest common
// history with this copy) and how many staged checkpoints the walk passed.
func (s *Store) StagedFrontier(ctx context.Context, space, head smriti.ID) ([]smriti.ID, int, error) {
	seen := map[smriti.ID]bool{}
	var frontier []smriti.ID
	queue := []smriti.ID{head}
	passed := 0
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		if seen[id] {
			continue
		}
		seen[id] = true
		c, err := s.StagedCheckpoint(ctx, space, id)
		if smriti.ErrorCode(err) == smriti.ENOTFOUND {
			if ok, lerr := s.exists(ctx, s.read, "checkpoints", id); lerr != nil {
				return nil, 0, lerr
			} else if ok {
				frontier = append(frontier, id)
			}
			continue
		}
		if err != nil {
			return nil, 0, err
		}
		passed++
		for _, p := range []*smriti.ID{c.ParentID, c.MergeParentID} {
			if p != nil {
				queue = append(queue, *p)
			}
		}
	}
	return frontier, passed, nil
}

// StagedCount counts the checkpoints fetched from a remote on a branch and
// not yet applied.
func (s *Store) StagedCount(ctx context.Context, space smriti.ID, name, branch string) (int, error) {
	var n int
	err := s.read.QueryRowContext(ctx, s.d.rebind(`SELECT COUNT(*) FROM sync_staged WHERE space_id = ? AND remote = ? AND kind = 'checkpoint' AND branch_name = ?`),
		space, name, branch).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count staged: %w", err)
	}
	return n, nil
}

// AheadOf counts the checkpoints in head's history that are not in
// base's (nil base: all of head's history).
func (s *Store) AheadOf(ctx context.Context, head smriti.ID, base *smriti.ID) (int, error) {
	var n int
	b := smriti.NilID
	if base != nil {
		b = *base
	}
	err := s.read.QueryRowContext(ctx, s.d.rebind(`WITH RECURSIVE a (id) AS (
			SELECT id FROM checkpoints WHERE id = ?
			UNION SELECT p.id FROM a JOIN checkpoints c ON c.id = a.id JOIN checkpoints p ON p.id IN (c.parent_id, c.merge_parent_id)
		), b (id) AS (
			SELECT id FROM checkpoints WHERE id = ?
			UNION SELECT p.id FROM b JOIN checkpoints c ON c.id = b.id JOIN checkpoints p ON p.id IN (c.parent_id, c.merge_parent_id)
		)
		SELECT COUNT(*) FROM a WHERE id NOT IN (SELECT id FROM b)`), head, b).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count ahead: %w", err)
	}
	return n, nil
}

// syncApply writes received records into the space's tables inside one
// transaction: what is stored already is skipped (a checkpoint only when
// its hash is the same), the rest verified and logged in arrival order.
type syncApply struct {
	s       *Store
	ctx     context.Context
	tx      *sql.Tx
	space   smriti.ID
	lastSeq map[smriti.ID]int64
	counts  remote.Counts
}

func (a *syncApply) record(rec *records.BundleRecord) error {
	switch rec.Type {
	case records.RecordCheckpoint:
		return a.checkpoint(rec.Checkpoint)
	case records.RecordSession:
		return a.session(rec.Session)
	case records.RecordTurn:
		return a.turn(rec.Turn)
	}
	return nil
}

func (a *syncApply) checkpoint(b *records.BundleCheckpoint) error {
	s, ctx, tx := a.s, a.ctx, a.tx
	c := b.CheckpointOf(a.space)
	var stored string
	var space smriti.ID
	err := tx.QueryRowContext(ctx, s.d.rebind(`SELECT commit_hash, space_id FROM checkpoints WHERE id = ?`), c.ID).Scan(&stored, &space)
	if err == nil {
		if space != a.space {
			return smriti.Errorf(smriti.ECONFLICT, "checkpoint %s belongs to another space on this server", c.ID)
		}
		return sameHash(c, stored)
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("apply checkpoint: %w", err)
	}
	if err := verifySyncCheckpoint(c, func(p smriti.ID) (string, bool, error) { return s.localHash(ctx, tx, a.space, p) }); err != nil {
		return err
	}
	if c.LogPos, err = s.nextLogPositions(ctx, tx, a.space, 1); err != nil {
		return err
	}
	if err := s.writeCheckpointRow(ctx, tx, c); err != nil {
		return importConflict(err)
	}
	if c.HashVersion >= 2 {
		err = s.writeItems(ctx, tx, c)
	} else {
		err = s.deriveItems(ctx, tx, c)
	}
	if err != nil {
		return importConflict(err)
	}
	for _, n := range b.Notes {
		if _, err := tx.ExecContext(ctx, s.d.rebind(`INSERT INTO checkpoint_notes (id, checkpoint_id, author, text, kind, created_at) VALUES (?, ?, ?, ?, ?, ?)`),
			n.ID, c.ID, n.Author, n.Text, n.Kind, s.d.t(n.CreatedAt)); err != nil {
			return importConflict(fmt.Errorf("apply note: %w", err))
		}
	}
	a.counts.Checkpoints++
	return nil
}

func (a *syncApply) session(b *records.BundleSession) error {
	s, ctx, tx := a.s, a.ctx, a.tx
	if ok, err := s.exists(ctx, tx, "sessions", b.ID); err != nil || ok {
		return err
	}
	for _, ref := range []*smriti.ID{b.SeededCheckpointID, b.ForkedFromCheckpointID} {
		if ref == nil {
			continue
		}
		if _, ok, err := s.localHash(ctx, tx, a.space, *ref); err != nil {
			return err
		} else if !ok {
			return smriti.Errorf(smriti.EUNPROCESSABLE, "session %s starts from checkpoint %s, which has not arrived", b.ID, *ref)
		}
	}
	se := &smriti.Session{ID: b.ID, SpaceID: &a.space, OwnerID: smriti.UserFromContext(ctx), Title: b.Title, ActiveProvider: b.ActiveProvider,
		ActiveModel: b.ActiveModel, SeededCheckpointID: b.SeededCheckpointID, ForkedFromCheckpointID: b.ForkedFromCheckpointID,
		BranchName: b.BranchName, BranchDisposition: b.BranchDisposition, Metadata: nonnil.Map(b.Metadata), LastSeq: -1,
		CreatedAt: b.CreatedAt.UTC(), UpdatedAt: b.UpdatedAt.UTC()}
	if err := s.insertSession(ctx, tx, se); err != nil {
		return importConflict(err)
	}
	a.lastSeq[se.ID] = -1
	a.counts.Sessions++
	return nil
}

func (a *syncApply) turn(b *records.BundleTurn) error {
	s, ctx, tx := a.s, a.ctx, a.tx
	if ok, err := s.exists(ctx, tx, "turns", b.ID); err != nil || ok {
		return err
	}
	last, ok := a.lastSeq[b.SessionID]
	if !ok {
		var space uuid.NullUUID
		err := tx.QueryRowContext(ctx, s.d.rebind(`SELECT last_seq, space_id FROM sessions WHERE id = ?`), b.SessionID).Scan(&last, &space)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && (!space.Valid || space.UUID != a.space)) {
			return smriti.Errorf(smriti.EUNPROCESSABLE, "turn %s arrived before its session %s", b.ID, b.SessionID)
		}
		if err != nil {
			return fmt.Errorf("apply turn: %w", err)
		}
		a.lastSeq[b.SessionID] = last
	}
	switch {
	case b.Seq <= last:
		// Both copies added a turn at this place in the session: the
		// session's line is not one any more. Keep ours, say so.
		a.counts.Skipped = append(a.counts.Skipped, fmt.Sprintf("turn %d of session %s (this copy has another turn there)", b.Seq, b.SessionID))
		return nil
	case b.Seq > last+1:
		if last >= 0 && len(a.counts.Skipped) > 0 {
			a.counts.Skipped = append(a.counts.Skipped, fmt.Sprintf("turn %d of session %s (follows a skipped turn)", b.Seq, b.SessionID))
			return nil
		}
		return smriti.Errorf(smriti.EUNPROCESSABLE, "turn %d of session %s arrived before turn %d", b.Seq, b.SessionID, last+1)
	}
	t := &smriti.Turn{ID: b.ID, SessionID: b.SessionID, SpaceID: &a.space, Role: b.Role, Content: b.Content,
		Provider: b.Provider, Model: b.Model, Seq: b.Seq, Tokens: b.Tokens, Metadata: nonnil.Map(b.Metadata), CreatedAt: b.CreatedAt.UTC()}
	var err error
	if t.LogPos, err = s.nextLogPositions(ctx, tx, a.space, 1); err != nil {
		return err
	}
	if err := s.insertTurn(ctx, tx, t); err != nil {
		return importConflict(err)
	}
	if _, err := tx.ExecContext(ctx, s.d.rebind(`UPDATE sessions SET last_seq = ?, updated_at = ? WHERE id = ?`), t.Seq, s.d.t(s.Now()), t.SessionID); err != nil {
		return fmt.Errorf("apply turn: %w", err)
	}
	a.lastSeq[b.SessionID] = t.Seq
	a.counts.Turns++
	return nil
}

func (a *syncApply) dropCached() {
	for id := range a.lastSeq {
		a.s.cache.drop(id)
	}
}

// ApplyPush stores a pushed stream and moves the branch by fast-forward
// only, in one transaction: the branch's head must be the one the pusher
// saw (push.Expect), and after the records it must be push.Head, a
// descendant of it; else ECONFLICT naming both heads (remote.MovedError)
// and nothing is stored. A push whose head is already the branch's head is
// answered as done, so a retried push stores nothing twice.
func (s *Store) ApplyPush(ctx context.Context, space smriti.ID, push remote.Push, rd records.Reader) (remote.Counts, error) {
	var a *syncApply
	err := s.tx(ctx, func(tx *sql.Tx) error {
		a = &syncApply{s: s, ctx: ctx, tx: tx, space: space, lastSeq: map[smriti.ID]int64{}}
		if err := s.lockSpace(ctx, tx, space, s.Now()); err != nil {
			return err
		}
		head, err := s.branchHead(ctx, tx, space, push.Branch)
		if err != nil {
			return err
		}
		var have *string
		if head != nil {
			have = &head.hash
		}
		already := head != nil && head.hash == push.Head
		if !already && !(head == nil && push.Expect == nil) && !(head != nil && push.Expect != nil && head.hash == *push.Expect) {
			return remote.MovedError(push.Branch, have, push.Expect, "")
		}
		for {
			rec, err := rd.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return err
			}
			if err := a.record(rec); err != nil {
				return err
			}
		}
		after, err := s.branchHead(ctx, tx, space, push.Branch)
		if err != nil {
			return err
		}
		if after == nil || after.hash != push.Head {
			return smriti.Errorf(smriti.EUNPROCESSABLE, "the push names %s as the new head of %s, but its records do not end there", smriti.ShortHash(push.Head), push.Branch)
		}
		if head != nil && !already {
			ok, err := s.descends(ctx, tx, after.id, head.id)
			if err != nil {
				return err
			}
			if !ok {
				return remote.MovedError(push.Branch, have, push.Expect, "")
			}
		}
		return nil
	})
	if a != nil {
		a.dropCached()
	}
	if err != nil {
		return remote.Counts{}, err
	}
	return a.counts, nil
}

// descends reports whether ancestor is in id's history. The walk stops at
// checkpoints logged before the ancestor (log order is parent order), so
// its cost follows what was added since.
func (s *Store) descends(ctx context.Context, q querier, id, ancestor smriti.ID) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, s.d.rebind(`WITH RECURSIVE floor (pos) AS (SELECT log_pos FROM checkpoints WHERE id = ?),
		walk (id) AS (
			SELECT id FROM checkpoints WHERE id = ?
			UNION SELECT p.id FROM walk w JOIN checkpoints c ON c.id = w.id JOIN checkpoints p ON p.id IN (c.parent_id, c.merge_parent_id)
			WHERE p.log_pos >= (SELECT pos FROM floor)
		)
		SELECT COUNT(*) FROM walk WHERE id = ?`), ancestor, id, ancestor).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("ancestry: %w", err)
	}
	return n > 0, nil
}

// IntegrateStaged applies what was fetched from a remote — checkpoints,
// sessions and turns, in the order they arrived — and writes the plan's
// merge checkpoint, all in one transaction. It returns the merge
// checkpoint (nil for a fast-forward) and what was applied.
func (s *Store) IntegrateStaged(ctx context.Context, space smriti.ID, name string, plan remote.Integration) (*smriti.Checkpoint, remote.Counts, error) {
	var a *syncApply
	var out *smriti.Checkpoint
	err := s.tx(ctx, func(tx *sql.Tx) error {
		out = nil
		a = &syncApply{s: s, ctx: ctx, tx: tx, space: space, lastSeq: map[smriti.ID]int64{}}
		now := s.Now()
		if err := s.lockSpace(ctx, tx, space, now); err != nil {
			return err
		}
		head, err := s.branchHead(ctx, tx, space, plan.Branch)
		if err != nil {
			return err
		}
		if (head == nil) != (plan.ExpectHead == nil) || (head != nil && head.id != *plan.ExpectHead) {
			return smriti.Errorf(smriti.ECONFLICT, "Branch '%s' moved while the pull was being prepared; run the pull again", plan.Branch)
		}
		after := int64(0)
		for {
			rows, err := tx.QueryContext(ctx, s.d.rebind(`SELECT seq, record FROM sync_staged WHERE space_id = ? AND remote = ? AND seq > ?
				ORDER BY seq LIMIT ?`), space, name, after, syncPage)
			if err != nil {
				return fmt.Errorf("read staged: %w", err)
			}
			var page []string
			for rows.Next() {
				var body string
				if err := rows.Scan(&after, &body); err != nil {
					rows.Close()
					return fmt.Errorf("read staged: %w", err)
				}
				page = append(page, body)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return fmt.Errorf("read staged: %w", err)
			}
			for _, body := range page {
				var rec records.BundleRecord
				if err := json.Unmarshal([]byte(body), &rec); err != nil {
					return fmt.Errorf("read staged: %w", err)
				}
				if err := a.record(&rec); err != nil {
					return err
				}
			}
			if len(page) < syncPage {
				break
			}
		}
		if _, err := tx.ExecContext(ctx, s.d.rebind(`DELETE FROM sync_staged WHERE space_id = ? AND remote = ?`), space, name); err != nil {
			return fmt.Errorf("clear staged: %w", err)
		}
		if plan.Merge == nil {
			return nil
		}
		in := *plan.Merge
		parent, err := s.refInSpace(ctx, tx, space, *in.ParentID)
		if err != nil {
			return err
		}
		merge, err := s.refInSpace(ctx, tx, space, *in.MergeParentID)
		if err != nil {
			return err
		}
		if parent == nil || merge == nil {
			return smriti.Errorf(smriti.EUNPROCESSABLE, "the merge's parents are not both stored after the fetched records were applied")
		}
		in.Content.Normalize()
		c := &smriti.Checkpoint{ID: smriti.NewID(), SpaceID: space, BranchName: plan.Branch, AuthorAgent: in.AuthorAgent, AuthorType: in.AuthorType,
			ProjectRoot: in.ProjectRoot, Content: in.Content, Metadata: in.Metadata, CreatedAt: now}
		out, err = s.insertCheckpoint(ctx, tx, c, parent, merge, in.Items, in.Model)
		return err
	})
	if a != nil {
		a.dropCached()
	}
	if err != nil {
		return nil, remote.Counts{}, err
	}
	return out, a.counts, nil
}
