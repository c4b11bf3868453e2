package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"smriti/account"
	"smriti/contract"
	"strconv"

	"github.com/google/uuid"

	"smriti"
	"smriti/store/internal/dbx"
)

const checkpointCols = `c.id, c.space_id, c.commit_hash, c.parent_id, c.merge_parent_id, c.branch_name, c.author_agent,
	c.author_type, c.project_root, c.message, c.summary, c.objective, c.decisions, c.assumptions, c.tasks,
	c.open_questions, c.entities, c.artifacts, c.context_blob, c.raw_source_text, c.metadata, c.log_pos, c.created_at,
	c.hash_version`

// visibleCheckpoint joins a checkpoint to its space so that every query is
// scoped to the caller: "c" is the checkpoint, "sp" its space.
const visibleCheckpoint = ` FROM checkpoints c JOIN spaces sp ON sp.id = c.space_id WHERE sp.id` + memberSpace

var errCheckpointNotFound = smriti.Errorf(smriti.ENOTFOUND, "Checkpoint not found")

func scanCheckpoint(row interface{ Scan(...any) error }) (*smriti.Checkpoint, error) {
	var c smriti.Checkpoint
	var parent, merge uuid.NullUUID
	var agent, root, raw sql.NullString
	var created dbx.Time
	if err := row.Scan(&c.ID, &c.SpaceID, &c.Hash, &parent, &merge, &c.BranchName, &agent, &c.AuthorType, &root,
		&c.Message, &c.Summary, &c.Objective, dbx.JSONCol{Dst: &c.Decisions}, dbx.JSONCol{Dst: &c.Assumptions}, dbx.JSONCol{Dst: &c.Tasks},
		dbx.JSONCol{Dst: &c.OpenQuestions}, dbx.JSONCol{Dst: &c.Entities}, dbx.JSONCol{Dst: &c.Artifacts}, dbx.JSONCol{Dst: &c.ContextBlob}, &raw,
		dbx.JSONCol{Dst: &c.Metadata}, &c.LogPos, &created, &c.HashVersion); err != nil {
		return nil, err
	}
	c.ParentID, c.MergeParentID = dbx.NullID(parent), dbx.NullID(merge)
	if agent.Valid {
		c.AuthorAgent = &agent.String
	}
	if root.Valid {
		c.ProjectRoot = &root.String
	}
	if raw.Valid {
		c.RawSourceText = &raw.String
	}
	c.CreatedAt = created.Time
	normalizeCheckpoint(&c)
	return &c, nil
}

// normalizeCheckpoint replaces nil collections with empty ones, so the wire
// shows [] and {} and the hash sees the same values it saw at write time.
func normalizeCheckpoint(c *smriti.Checkpoint) {
	if c.Decisions == nil {
		c.Decisions = []string{}
	}
	if c.Assumptions == nil {
		c.Assumptions = []string{}
	}
	if c.Tasks == nil {
		c.Tasks = []smriti.Task{}
	}
	if c.OpenQuestions == nil {
		c.OpenQuestions = []string{}
	}
	if c.Entities == nil {
		c.Entities = []string{}
	}
	if c.Artifacts == nil {
		c.Artifacts = []smriti.Artifact{}
	}
	if c.ContextBlob == nil {
		c.ContextBlob = map[string]any{}
	}
	if c.Metadata == nil {
		c.Metadata = map[string]any{}
	}
	if c.Notes == nil {
		c.Notes = []*smriti.Note{}
	}
}

// headRef is what choosing a parent needs to know about a checkpoint.
type headRef struct {
	id   smriti.ID
	hash string
}

func (s *Store) branchHead(ctx context.Context, q dbx.Querier, spaceID smriti.ID, branch string) (*headRef, error) {
	var h headRef
	err := s.stmtOn(ctx, q, `SELECT id, commit_hash FROM checkpoints WHERE space_id = ? AND branch_name = ?
		ORDER BY log_pos DESC LIMIT 1`).QueryRowContext(ctx, spaceID, branch).Scan(&h.id, &h.hash)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("branch head: %w", err)
	}
	return &h, nil
}

func (s *Store) refInSpace(ctx context.Context, q dbx.Querier, spaceID, id smriti.ID) (*headRef, error) {
	var h headRef
	err := s.stmtOn(ctx, q, `SELECT id, commit_hash FROM checkpoints WHERE id = ? AND space_id = ?`).QueryRowContext(ctx, id, spaceID).Scan(&h.id, &h.hash)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("look up checkpoint: %w", err)
	}
	return &h, nil
}

// commitFacts is what smriti.PlanCommit reads, inside the writing
// transaction; it keeps the head it read, so the parent's hash costs no
// second query in the common case.
type commitFacts struct {
	s     *Store
	ctx   context.Context
	tx    *sql.Tx
	space smriti.ID
	head  *headRef
}

func (f *commitFacts) Session(id smriti.ID) (*smriti.Session, error) {
	return f.s.session(f.ctx, f.tx, id, "")
}

func (f *commitFacts) BranchHead(branch string) (*smriti.ID, error) {
	h, err := f.s.branchHead(f.ctx, f.tx, f.space, branch)
	if err != nil || h == nil {
		return nil, err
	}
	f.head = h
	return &h.id, nil
}

// parent is the planned parent with its hash (nil when there is none, or
// when a fork's source is not a checkpoint of the space).
func (f *commitFacts) parent(id *smriti.ID) (*headRef, error) {
	switch {
	case id == nil:
		return nil, nil
	case f.head != nil && f.head.id == *id:
		return f.head, nil
	}
	return f.s.refInSpace(f.ctx, f.tx, f.space, *id)
}

// CommitCheckpoint implements contract.CheckpointService: what the commit
// writes is decided by smriti.PlanCommit, in the writing transaction.
func (s *Store) CommitCheckpoint(ctx context.Context, in smriti.CheckpointCommit) (*smriti.Checkpoint, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	in.Content.Normalize()
	var out *smriti.Checkpoint
	err := s.groupedTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		out = nil
		now := s.Now()
		if err := s.lockSpace(ctx, tx, in.SpaceID, now); err != nil {
			return err
		}
		facts := &commitFacts{s: s, ctx: ctx, tx: tx, space: in.SpaceID}
		plan, err := smriti.PlanCommit(in, facts)
		if err != nil {
			return err
		}
		parent, err := facts.parent(plan.Parent)
		if err != nil {
			return err
		}
		branch := plan.Branch
		c := &smriti.Checkpoint{
			ID: smriti.NewID(), SpaceID: in.SpaceID, BranchName: branch, AuthorAgent: plan.Author.Agent,
			AuthorType: plan.Author.Type, ProjectRoot: in.ProjectRoot, Content: in.Content, Metadata: plan.Meta.Into(nil), CreatedAt: now,
		}
		hints := in.Items
		if in.BaseCheckpointID != nil && parent != nil && *in.BaseCheckpointID != parent.id {
			rebased, err := s.rebaseOntoHead(ctx, tx, in, branch, parent)
			if err != nil {
				return err
			}
			c.Content, hints = rebased.Merged, rebased.Items
			c.RebasedFrom = in.BaseCheckpointID
		}
		if out, err = s.insertCheckpoint(ctx, tx, c, parent, nil, hints, in.Model); err != nil {
			return err
		}
		return s.renewHolderClaims(ctx, tx, in.SpaceID, in.SessionID, in.AuthorAgent, now)
	})
	return s.settleCheckpoint(ctx, in.SpaceID, out, err)
}

// rebaseOntoHead applies the commit's change over its base onto the branch
// head, in the writing transaction (see smriti.RebaseChange): the rebased
// content and items, or ECONFLICT with a *smriti.CommitConflict when both
// changed the same items and in.Resolutions does not settle them all.
// EUNPROCESSABLE for a base that is not a checkpoint of the space.
func (s *Store) rebaseOntoHead(ctx context.Context, tx *sql.Tx, in smriti.CheckpointCommit, branch string, head *headRef) (smriti.MergeResult, error) {
	base := *in.BaseCheckpointID
	cs, err := s.queryCheckpoints(ctx, tx, `SELECT `+checkpointCols+` FROM checkpoints c WHERE c.space_id = ? AND c.id IN (?, ?)`, in.SpaceID, base, head.id)
	if err != nil {
		return smriti.MergeResult{}, err
	}
	if err := s.attachItems(ctx, tx, cs...); err != nil {
		return smriti.MergeResult{}, err
	}
	var baseSide, headSide *smriti.MergeSide
	for _, c := range cs {
		side := &smriti.MergeSide{Content: c.Content, Items: c.Items}
		if len(side.Items) == 0 {
			side.Items = nil // not derived yet: read the content's lists
		}
		switch c.ID {
		case base:
			baseSide = side
		case head.id:
			headSide = side
		}
	}
	if baseSide == nil {
		return smriti.MergeResult{}, smriti.Errorf(smriti.EUNPROCESSABLE, "base_checkpoint_id %s is not a checkpoint of this space", base)
	}
	res, err := smriti.RebaseChange(baseSide, headSide, &in.Content, in.Items, in.Resolutions)
	if err != nil {
		return res, err
	}
	if len(res.Conflicts) > 0 {
		what := "1 item you changed was"
		if n := len(res.Conflicts); n > 1 {
			what = fmt.Sprintf("%d items you changed were", n)
		}
		msg := fmt.Sprintf("Branch '%s' moved on since checkpoint %s, and %s changed there too (the head is now %s): "+
			"send the same commit again with resolutions for these conflicts (ours: the head's value, theirs: yours), or draft again from the head",
			branch, base, what, head.id)
		return res, &smriti.Error{Code: smriti.ECONFLICT, Message: msg, Data: &smriti.CommitConflict{
			Message: msg, Conflicts: res.Conflicts, HeadCheckpointID: head.id, BaseCheckpointID: base}}
	}
	return res, nil
}

// CreateCheckpoint implements contract.CheckpointService.
func (s *Store) CreateCheckpoint(ctx context.Context, in smriti.CheckpointCreate) (*smriti.Checkpoint, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	if err := smriti.CheckMetadata("metadata", in.Metadata); err != nil {
		return nil, err
	}
	in.Content.Normalize()
	var out *smriti.Checkpoint
	err := s.tx(ctx, func(tx *sql.Tx) error {
		now := s.Now()
		if err := s.lockSpace(ctx, tx, in.SpaceID, now); err != nil {
			return err
		}
		var parent, merge *headRef
		var err error
		if in.ParentID != nil {
			if parent, err = s.refInSpace(ctx, tx, in.SpaceID, *in.ParentID); err != nil {
				return err
			}
			if parent == nil {
				return smriti.Errorf(smriti.EINVALID, "Invalid parent commit: %s is not a checkpoint of this space", *in.ParentID)
			}
		}
		if in.MergeParentID != nil {
			if merge, err = s.refInSpace(ctx, tx, in.SpaceID, *in.MergeParentID); err != nil {
				return err
			}
			if merge == nil {
				return smriti.Errorf(smriti.EINVALID, "Invalid merge parent: %s is not a checkpoint of this space", *in.MergeParentID)
			}
		}
		branch, author := smriti.PlanCreate(in)
		if in.ParentMustBeHead {
			head, err := s.branchHead(ctx, tx, in.SpaceID, branch)
			if err != nil {
				return err
			}
			if head == nil || parent == nil || head.id != parent.id {
				return smriti.Errorf(smriti.ECONFLICT, "Branch '%s' moved while this was being written (its head is no longer the parent); preview again and retry", branch)
			}
		}
		if in.IntegrateBranch != "" {
			if _, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE sessions SET branch_disposition = ?, updated_at = ? WHERE space_id = ? AND branch_name = ?`),
				smriti.DispositionIntegrated, s.d.T(now), in.SpaceID, in.IntegrateBranch); err != nil {
				return fmt.Errorf("integrate branch: %w", err)
			}
		}
		c := &smriti.Checkpoint{
			ID: smriti.NewID(), SpaceID: in.SpaceID, BranchName: branch, AuthorAgent: author.Agent, AuthorType: author.Type,
			ProjectRoot: in.ProjectRoot, Content: in.Content, ContextBlob: in.ContextBlob, RawSourceText: in.RawSourceText,
			Metadata: in.Metadata, CreatedAt: now,
		}
		out, err = s.insertCheckpoint(ctx, tx, c, parent, merge, in.Items, in.Model)
		return err
	})
	return s.settleCheckpoint(ctx, in.SpaceID, out, err)
}

// insertCheckpoint writes a new checkpoint: its items are assigned against
// its parents' (hints and model as in smriti.CheckpointCommit) and covered
// by its hash.
func (s *Store) insertCheckpoint(ctx context.Context, tx *sql.Tx, c *smriti.Checkpoint, parent, merge *headRef, hints []smriti.Item, model *string) (*smriti.Checkpoint, error) {
	normalizeCheckpoint(c)
	parentHash, mergeHash := "", ""
	if parent != nil {
		c.ParentID, parentHash = &parent.id, parent.hash
	}
	if merge != nil {
		c.MergeParentID, mergeHash = &merge.id, merge.hash
	}
	pos, err := s.nextLogPositions(ctx, tx, c.SpaceID, 1)
	if err != nil {
		return nil, err
	}
	c.LogPos = pos
	if err := s.assignItems(ctx, tx, c, hints, model); err != nil {
		return nil, err
	}
	c.Hash = c.ComputeHash(parentHash, mergeHash)
	if err := s.writeCheckpointRow(ctx, tx, c); err != nil {
		return nil, err
	}
	if err := s.writeItems(ctx, tx, c); err != nil {
		return c, err
	}
	s.wroteItems(tx, c)
	return c, nil
}

// checkpointRowArgs is the number of columns sqlInsertCheckpoint writes.
const checkpointRowArgs = 27

const sqlInsertCheckpointHead = `INSERT INTO checkpoints (id, space_id, commit_hash, parent_id, merge_parent_id,
		branch_name, author_agent, author_type, project_root, message, summary, objective, decisions, assumptions, tasks,
		open_questions, entities, artifacts, context_blob, raw_source_text, metadata, log_pos, created_at, depth, skip_id,
		hash_version, items_ready)
		VALUES `

var sqlInsertCheckpoint = sqlInsertCheckpointHead + `(` + dbx.Placeholders(checkpointRowArgs) + `)`

// writeCheckpointRow stores a checkpoint whose hash and log position are
// already set, with its place in the ancestry index. A checkpoint with
// HashVersion 2 is stored with its items ready (the caller writes them); an
// older one is left for deriveItems.
func (s *Store) writeCheckpointRow(ctx context.Context, tx *sql.Tx, c *smriti.Checkpoint) error {
	depth, skip, placed, err := s.newAncestry(tx).placement(ctx, c.ParentID)
	if err != nil {
		return err
	}
	args, err := s.checkpointRowArgs(c, depth, skip, placed)
	if err != nil {
		return err
	}
	_, err = s.stmts.WriteStmt(ctx, tx, sqlInsertCheckpoint).ExecContext(ctx, args...)
	if err != nil {
		return fmt.Errorf("insert checkpoint: %w", err)
	}
	return nil
}

// checkpointRowArgs are the arguments of sqlInsertCheckpoint for c at its
// place in the ancestry index (placed false: its parent predates it).
func (s *Store) checkpointRowArgs(c *smriti.Checkpoint, depth int64, skip *smriti.ID, placed bool) ([]any, error) {
	var depthArg sql.NullInt64
	if placed {
		depthArg = sql.NullInt64{Int64: depth, Valid: true}
	}
	args := make([]any, 0, checkpointRowArgs)
	args = append(args, c.ID, c.SpaceID, c.Hash, dbx.IDArg(c.ParentID), dbx.IDArg(c.MergeParentID), c.BranchName, c.AuthorAgent,
		c.AuthorType, c.ProjectRoot, c.Message, c.Summary, c.Objective)
	for _, v := range []any{c.Decisions, c.Assumptions, c.Tasks, c.OpenQuestions, c.Entities, c.Artifacts, c.ContextBlob} {
		j, err := dbx.JSONArg(v)
		if err != nil {
			return nil, err
		}
		args = append(args, j)
	}
	meta, err := dbx.JSONArg(c.Metadata)
	if err != nil {
		return nil, err
	}
	hv, ready := c.HashVersion, 0
	if hv < 1 {
		hv = 1
	}
	if hv >= 2 {
		ready = 1
	}
	return append(args, c.RawSourceText, meta, c.LogPos, s.d.T(c.CreatedAt), depthArg, dbx.IDArg(skip), hv, ready), nil
}

// Checkpoint implements contract.CheckpointService.
func (s *Store) Checkpoint(ctx context.Context, id smriti.ID) (*smriti.Checkpoint, error) {
	c, err := s.checkpoint(ctx, s.read, id)
	if err != nil {
		return nil, err
	}
	if err := s.attachNotes(ctx, s.read, []*smriti.Checkpoint{c}); err != nil {
		return nil, err
	}
	return c, nil
}

func (s *Store) checkpoint(ctx context.Context, q dbx.Querier, id smriti.ID) (*smriti.Checkpoint, error) {
	c, err := scanCheckpoint(q.QueryRowContext(ctx, s.d.Rebind(`SELECT `+checkpointCols+visibleCheckpoint+` AND c.id = ?`),
		smriti.UserFromContext(ctx), id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errCheckpointNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("get checkpoint: %w", err)
	}
	return c, nil
}

func (s *Store) queryCheckpoints(ctx context.Context, q dbx.Querier, query string, args ...any) ([]*smriti.Checkpoint, error) {
	return dbx.QueryAll(ctx, s.d, q, "list checkpoints", scanCheckpoint, query, args...)
}

// Checkpoints implements contract.CheckpointService.
func (s *Store) Checkpoints(ctx context.Context, spaceID smriti.ID, q contract.CheckpointQuery) ([]*smriti.Checkpoint, string, error) {
	query := `SELECT ` + checkpointCols + visibleCheckpoint + ` AND c.space_id = ?`
	args := []any{smriti.UserFromContext(ctx), spaceID}
	if q.Branch != nil {
		query += ` AND c.branch_name = ?`
		args = append(args, *q.Branch)
	}
	k := dbx.LogKeyset(q.Page, "c.log_pos")
	query, args, err := k.Apply(s.d, query, args)
	if err != nil {
		return nil, "", err
	}
	out, err := s.queryCheckpoints(ctx, s.read, query, args...)
	if err != nil {
		return nil, "", err
	}
	if len(out) == 0 {
		// The query is scoped to the caller; tell an empty space from one
		// the caller may not see.
		if _, err := s.Space(ctx, spaceID); err != nil {
			return nil, "", err
		}
	}
	out, next := dbx.PageOf(k, out, func(c *smriti.Checkpoint) string { return strconv.FormatInt(c.LogPos, 10) })
	if err := s.attachNotes(ctx, s.read, out); err != nil {
		return nil, "", err
	}
	return out, next, nil
}

// LatestCheckpoints implements contract.CheckpointService.
func (s *Store) LatestCheckpoints(ctx context.Context, spaceID smriti.ID, branch string, n int) ([]*smriti.Checkpoint, error) {
	if n <= 0 {
		n = 1
	}
	out, _, err := s.Checkpoints(ctx, spaceID, contract.CheckpointQuery{Branch: &branch, Page: smriti.Page{Limit: n}})
	return out, err
}

// Ancestors implements contract.CheckpointService. One recursive query walks
// the parent chain, bounded by n, so a deep chain costs one round trip.
func (s *Store) Ancestors(ctx context.Context, id smriti.ID, n int) ([]*smriti.Checkpoint, error) {
	if n <= 0 {
		n = 1
	}
	out, err := s.queryCheckpoints(ctx, s.read, `WITH RECURSIVE chain (id, depth) AS (
			SELECT id, 0 FROM checkpoints WHERE id = ?
			UNION ALL
			SELECT p.parent_id, chain.depth + 1 FROM chain JOIN checkpoints p ON p.id = chain.id
			WHERE p.parent_id IS NOT NULL AND chain.depth + 1 < ?
		)
		SELECT `+checkpointCols+` FROM chain JOIN checkpoints c ON c.id = chain.id JOIN spaces sp ON sp.id = c.space_id
		WHERE sp.id`+memberSpace+` ORDER BY chain.depth DESC`, id, n, smriti.UserFromContext(ctx))
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errCheckpointNotFound
	}
	return out, nil
}

// AddNote implements contract.CheckpointService.
func (s *Store) AddNote(ctx context.Context, checkpointID smriti.ID, in smriti.NoteCreate) (*smriti.Note, error) {
	in.Normalize()
	if err := in.Validate(); err != nil {
		return nil, err
	}
	n := &smriti.Note{ID: smriti.NewID(), CheckpointID: checkpointID, Author: in.Author, Text: in.Text, Kind: in.Kind, CreatedAt: s.Now()}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		c, err := s.checkpoint(ctx, tx, checkpointID)
		if err != nil {
			return err
		}
		if err := s.requireRole(ctx, tx, c.SpaceID, account.NeedWrite); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO checkpoint_notes (id, checkpoint_id, author, text, kind, created_at) VALUES (?, ?, ?, ?, ?, ?)`),
			n.ID, n.CheckpointID, n.Author, n.Text, n.Kind, s.d.T(n.CreatedAt))
		if err != nil {
			return fmt.Errorf("add note: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return n, nil
}

// attachNotes loads the notes of a page of checkpoints in one query.
func (s *Store) attachNotes(ctx context.Context, q dbx.Querier, cs []*smriti.Checkpoint) error {
	if len(cs) == 0 {
		return nil
	}
	byID := make(map[smriti.ID]*smriti.Checkpoint, len(cs))
	args := make([]any, 0, len(cs))
	for _, c := range cs {
		byID[c.ID] = c
		args = append(args, c.ID)
	}
	rows, err := q.QueryContext(ctx, s.d.Rebind(`SELECT id, checkpoint_id, author, text, kind, created_at FROM checkpoint_notes
		WHERE checkpoint_id IN (`+dbx.Placeholders(len(args))+`) ORDER BY created_at, id`), args...)
	if err != nil {
		return fmt.Errorf("load notes: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var n smriti.Note
		var created dbx.Time
		if err := rows.Scan(&n.ID, &n.CheckpointID, &n.Author, &n.Text, &n.Kind, &created); err != nil {
			return fmt.Errorf("load notes: %w", err)
		}
		n.CreatedAt = created.Time
		if c := byID[n.CheckpointID]; c != nil {
			c.Notes = append(c.Notes, &n)
		}
	}
	return rows.Err()
}

// noteKinds returns, per checkpoint of a space, how many notes it has and
// of which kinds. The lineage tree shows them as badges.
func (s *Store) noteKinds(ctx context.Context, q dbx.Querier, spaceID smriti.ID) (map[smriti.ID]map[string]int, error) {
	rows, err := q.QueryContext(ctx, s.d.Rebind(`SELECT n.checkpoint_id, n.kind, COUNT(*) FROM checkpoint_notes n
		JOIN checkpoints c ON c.id = n.checkpoint_id WHERE c.space_id = ? GROUP BY n.checkpoint_id, n.kind`), spaceID)
	if err != nil {
		return nil, fmt.Errorf("count notes: %w", err)
	}
	defer rows.Close()
	out := map[smriti.ID]map[string]int{}
	for rows.Next() {
		var id smriti.ID
		var kind string
		var n int
		if err := rows.Scan(&id, &kind, &n); err != nil {
			return nil, fmt.Errorf("count notes: %w", err)
		}
		if out[id] == nil {
			out[id] = map[string]int{}
		}
		out[id][kind] = n
	}
	return out, rows.Err()
}
