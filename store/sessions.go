package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"smriti/account"
	"smriti/internal/textutil"
	"strings"

	"github.com/google/uuid"

	"smriti"
	"smriti/store/internal/dbx"
)

const sessionCols = `id, space_id, owner_id, title, active_provider, active_model, seeded_checkpoint_id,
	forked_from_checkpoint_id, branch_name, branch_disposition, last_seq, metadata, created_at, updated_at,
	mounted_checkpoint_id, mount_base_seq`

var errSessionNotFound = smriti.Errorf(smriti.ENOTFOUND, "Session not found")

func scanSession(row interface{ Scan(...any) error }) (*smriti.Session, error) {
	return scanSessionWith(row)
}

// scanSessionWith reads sessionCols, then into extra the columns after them.
func scanSessionWith(row interface{ Scan(...any) error }, extra ...any) (*smriti.Session, error) {
	var se smriti.Session
	var space, seeded, forked, mounted uuid.NullUUID
	var base sql.NullInt64
	var created, updated dbx.Time
	if err := row.Scan(append([]any{&se.ID, &space, &se.OwnerID, &se.Title, &se.ActiveProvider, &se.ActiveModel, &seeded,
		&forked, &se.BranchName, &se.BranchDisposition, &se.LastSeq, dbx.JSONCol{Dst: &se.Metadata}, &created, &updated,
		&mounted, &base}, extra...)...); err != nil {
		return nil, err
	}
	if mounted.Valid && base.Valid {
		se.Mount = &smriti.Mount{CheckpointID: mounted.UUID, BaseSeq: base.Int64}
	}
	se.SpaceID, se.SeededCheckpointID, se.ForkedFromCheckpointID = dbx.NullID(space), dbx.NullID(seeded), dbx.NullID(forked)
	if se.Metadata == nil {
		se.Metadata = map[string]any{}
	}
	se.CreatedAt, se.UpdatedAt = created.Time, updated.Time
	return &se, nil
}

// CreateSession implements contract.SessionService.
func (s *Store) CreateSession(ctx context.Context, in smriti.SessionCreate) (*smriti.Session, error) {
	now := s.Now()
	se := &smriti.Session{
		ID: smriti.NewID(), SpaceID: in.SpaceID, OwnerID: smriti.UserFromContext(ctx), Title: in.Title,
		ActiveProvider: in.Provider, ActiveModel: in.Model, BranchName: smriti.MainBranch,
		BranchDisposition: smriti.DispositionActive, LastSeq: -1, Metadata: map[string]any{},
		CreatedAt: now, UpdatedAt: now,
	}
	if se.Title == "" {
		se.Title = "Session " + now.Format("Jan 02 15:04")
	}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if in.SpaceID != nil {
			if err := s.requireRole(ctx, tx, *in.SpaceID, account.NeedWrite); err != nil {
				return err
			}
			seed, err := s.resolveSeed(ctx, tx, *in.SpaceID, in.SeedFrom)
			if err != nil {
				return err
			}
			se.SeededCheckpointID = seed
			if seed != nil && seededByID(in.SeedFrom) {
				// A named checkpoint is mounted from the start, every turn
				// included; "head" keeps following the newest main one.
				se.Mount = &smriti.Mount{CheckpointID: *seed, BaseSeq: -1}
			}
		}
		return s.insertSession(ctx, tx, se)
	})
	if err != nil {
		return nil, err
	}
	return se, nil
}

// resolveSeed turns seed_from into a checkpoint id: "head" (or empty) is the
// newest main checkpoint, "none" is nothing, anything else must be a
// checkpoint of the space.
func (s *Store) resolveSeed(ctx context.Context, q dbx.Querier, spaceID smriti.ID, seedFrom string) (*smriti.ID, error) {
	switch strings.TrimSpace(seedFrom) {
	case "none":
		return nil, nil
	case "", "head":
		head, err := s.branchHead(ctx, q, spaceID, smriti.MainBranch)
		if err != nil || head == nil {
			return nil, err
		}
		return &head.id, nil
	}
	id, err := smriti.ParseID("seed_from", seedFrom)
	if err != nil {
		return nil, smriti.Errorf(smriti.EINVALID, `seed_from must be "head", "none" or a checkpoint id; got %q`, textutil.Truncate(seedFrom, 64))
	}
	var got smriti.ID
	err = q.QueryRowContext(ctx, s.d.Rebind(`SELECT id FROM checkpoints WHERE id = ? AND space_id = ?`), id, spaceID).Scan(&got)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, smriti.Errorf(smriti.ENOTFOUND, "seed_from: checkpoint %s not found in this space", id)
	}
	if err != nil {
		return nil, fmt.Errorf("resolve seed: %w", err)
	}
	return &got, nil
}

// seededByID reports whether seed_from names a checkpoint rather than
// "head", "none" or nothing.
func seededByID(seedFrom string) bool {
	switch strings.TrimSpace(seedFrom) {
	case "", "head", "none":
		return false
	}
	return true
}

// mountArgs are the column values of a mount (NULLs for none).
func mountArgs(m *smriti.Mount) (checkpoint, base any) {
	if m == nil {
		return nil, nil
	}
	return m.CheckpointID, m.BaseSeq
}

func (s *Store) insertSession(ctx context.Context, tx *sql.Tx, se *smriti.Session) error {
	meta, err := dbx.JSONArg(se.Metadata)
	if err != nil {
		return err
	}
	mounted, base := mountArgs(se.Mount)
	_, err = tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO sessions (id, space_id, owner_id, title, active_provider, active_model,
		seeded_checkpoint_id, forked_from_checkpoint_id, branch_name, branch_disposition, last_seq, metadata, created_at, updated_at,
		mounted_checkpoint_id, mount_base_seq)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		se.ID, dbx.IDArg(se.SpaceID), se.OwnerID, se.Title, se.ActiveProvider, se.ActiveModel, dbx.IDArg(se.SeededCheckpointID),
		dbx.IDArg(se.ForkedFromCheckpointID), se.BranchName, se.BranchDisposition, se.LastSeq, meta, s.d.T(se.CreatedAt), s.d.T(se.UpdatedAt),
		mounted, base)
	if err != nil {
		return fmt.Errorf("insert session: %w", err)
	}
	return nil
}

// Session implements contract.SessionService.
func (s *Store) Session(ctx context.Context, id smriti.ID) (*smriti.Session, error) {
	// Every send starts here: the statement is prepared once, not parsed
	// per call.
	st, err := s.stmts.Prepared(ctx, s.read, sqlSession)
	if err != nil {
		return nil, err
	}
	return s.sessionRow(st.QueryRowContext(ctx, id, smriti.UserFromContext(ctx), smriti.UserFromContext(ctx)))
}

const sqlSession = `SELECT ` + sessionCols + ` FROM sessions WHERE id = ? AND ` + sessionVisible

// sqlSessionHead is sqlSession with what names the head of main in the
// session's space (see headKey): NULLs when it has no space or main no
// checkpoint, and its message. A member of the space sees its
// checkpoints, so the session's visibility is theirs; each sub-select reads
// one entry of the index on (space_id, branch_name, log_pos).
const sqlSessionHead = `SELECT ` + sessionCols + `,
	(SELECT c.id ` + mainHeadOfSession + `),
	(SELECT c.commit_hash ` + mainHeadOfSession + `),
	(SELECT c.log_pos ` + mainHeadOfSession + `),
	(SELECT c.message ` + mainHeadOfSession + `)
	FROM sessions WHERE id = ? AND ` + sessionVisible

const mainHeadOfSession = `FROM checkpoints c WHERE c.space_id = sessions.space_id AND c.branch_name = '` + smriti.MainBranch + `'
		ORDER BY c.log_pos DESC LIMIT 1`

// SessionHead is Session with, for a session in a space, the head of main
// there as CheckpointHeads(space, main, 1) reads it (nil when main has no
// checkpoint), read with the session in one statement: what a send in HEAD
// mode needs before it can resolve its context. ENOTFOUND as Session.
func (s *Store) SessionHead(ctx context.Context, id smriti.ID) (*smriti.Session, *smriti.Checkpoint, error) {
	st, err := s.stmts.Prepared(ctx, s.read, sqlSessionHead)
	if err != nil {
		return nil, nil, err
	}
	var headID uuid.NullUUID
	var hash, message sql.NullString
	var pos sql.NullInt64
	user := smriti.UserFromContext(ctx)
	se, err := s.sessionRow(st.QueryRowContext(ctx, id, user, user), &headID, &hash, &pos, &message)
	if err != nil || !headID.Valid || se.SpaceID == nil {
		return se, nil, err
	}
	h, err := s.head(ctx, headRead{headKey{id: headID.UUID, hash: hash.String, pos: pos.Int64}, message.String})
	if err != nil || h != nil {
		return se, h, err
	}
	// Deleted since: the head now.
	heads, err := s.CheckpointHeads(ctx, *se.SpaceID, smriti.MainBranch, 1)
	if err != nil || len(heads) == 0 {
		return se, nil, err
	}
	return se, heads[0], nil
}

func (s *Store) session(ctx context.Context, q dbx.Querier, id smriti.ID, lock string) (*smriti.Session, error) {
	return s.sessionRow(s.stmtOn(ctx, q, sqlSession+lock).QueryRowContext(ctx, id, smriti.UserFromContext(ctx), smriti.UserFromContext(ctx)))
}

func (s *Store) sessionRow(row *sql.Row, extra ...any) (*smriti.Session, error) {
	se, err := scanSessionWith(row, extra...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errSessionNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("get session: %w", err)
	}
	return se, nil
}

// Sessions implements contract.SessionService.
func (s *Store) Sessions(ctx context.Context, spaceID *smriti.ID, page smriti.Page) ([]*smriti.Session, string, error) {
	q := `SELECT ` + sessionCols + ` FROM sessions WHERE ` + sessionVisible
	args := []any{smriti.UserFromContext(ctx), smriti.UserFromContext(ctx)}
	if spaceID != nil {
		if _, err := s.Space(ctx, *spaceID); err != nil {
			return nil, "", err
		}
		q += ` AND space_id = ?`
		args = append(args, *spaceID)
	}
	k := dbx.TimeKeyset(page, "updated_at", "id")
	q, args, err := k.Apply(s.d, q, args)
	if err != nil {
		return nil, "", err
	}
	out, err := s.querySessions(ctx, s.read, q, args...)
	if err != nil {
		return nil, "", err
	}
	out, next := dbx.PageOf(k, out, func(se *smriti.Session) string { return dbx.TimeCursor(se.UpdatedAt, se.ID) })
	return out, next, nil
}

func (s *Store) querySessions(ctx context.Context, q dbx.Querier, query string, args ...any) ([]*smriti.Session, error) {
	return dbx.QueryAll(ctx, s.d, q, "list sessions", scanSession, query, args...)
}

// DeleteSession implements contract.SessionService.
func (s *Store) DeleteSession(ctx context.Context, id smriti.ID) error {
	defer s.cache.Drop(id)
	return s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.d.Rebind(`DELETE FROM sessions WHERE id = ? AND `+sessionWritable), id, smriti.UserFromContext(ctx), smriti.UserFromContext(ctx))
		if err != nil {
			return fmt.Errorf("delete session: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return s.whyNotWritable(ctx, tx, id)
		}
		return nil
	})
}

// AttachSession implements contract.SessionService.
func (s *Store) AttachSession(ctx context.Context, id, spaceID smriti.ID) (*smriti.Session, error) {
	var se *smriti.Session
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var err error
		if se, err = s.sessionForWrite(ctx, tx, id, s.d.ForUpdate); err != nil {
			return err
		}
		if err := s.requireRole(ctx, tx, spaceID, account.NeedWrite); err != nil {
			return err
		}
		now := s.Now()
		if _, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE sessions SET space_id = ?, updated_at = ? WHERE id = ?`), spaceID, s.d.T(now), id); err != nil {
			return fmt.Errorf("attach session: %w", err)
		}
		if !se.InSpace(spaceID) {
			if err := s.renumberTurns(ctx, tx, id, spaceID, se.LastSeq+1); err != nil {
				return err
			}
		}
		se.SpaceID, se.UpdatedAt = &spaceID, now
		return nil
	})
	if err == nil {
		s.cache.Drop(id)
	}
	return se, err
}

// renumberTurns moves a session's n turns into a space: they take the next
// n positions of the space's log, in sequence order, after everything
// already in it — positions from another space's log (or a session's own
// numbering) mean nothing against this space's checkpoints, and the turns
// were written before any checkpoint the space will get.
func (s *Store) renumberTurns(ctx context.Context, tx *sql.Tx, session, space smriti.ID, n int64) error {
	if n <= 0 {
		return nil
	}
	last, err := s.nextLogPositions(ctx, tx, space, int(n))
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE turns SET space_id = ?, log_pos = ? + r.n
		FROM (SELECT id, row_number() OVER (ORDER BY sequence_number) AS n FROM turns WHERE session_id = ?) AS r
		WHERE turns.id = r.id`), space, last-n, session); err != nil {
		return fmt.Errorf("attach turns: %w", err)
	}
	return nil
}

// SetSessionTitle implements contract.SessionService.
func (s *Store) SetSessionTitle(ctx context.Context, id smriti.ID, title string) (*smriti.Session, error) {
	var se *smriti.Session
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var err error
		if se, err = s.sessionForWrite(ctx, tx, id, s.d.ForUpdate); err != nil {
			return err
		}
		now := s.Now()
		if _, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE sessions SET title = ?, updated_at = ? WHERE id = ?`), title, s.d.T(now), id); err != nil {
			return fmt.Errorf("set title: %w", err)
		}
		se.Title, se.UpdatedAt = title, now
		return nil
	})
	return se, err
}

// SetMount implements contract.SessionService.
func (s *Store) SetMount(ctx context.Context, id smriti.ID, m *smriti.Mount) (*smriti.Session, error) {
	if m != nil {
		if err := m.Validate(); err != nil {
			return nil, err
		}
	}
	var out *smriti.Session
	err := s.tx(ctx, func(tx *sql.Tx) error {
		se, err := s.sessionForWrite(ctx, tx, id, s.d.ForUpdate)
		if err != nil {
			return err
		}
		if m != nil {
			if err := s.checkMountable(ctx, tx, se, m.CheckpointID); err != nil {
				return err
			}
		}
		if err := s.setMount(ctx, tx, se.ID, m); err != nil {
			return err
		}
		se.Mount = m
		out = se
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// checkMountable verifies the checkpoint exists and is in the session's
// space.
func (s *Store) checkMountable(ctx context.Context, q dbx.Querier, se *smriti.Session, checkpoint smriti.ID) error {
	var space smriti.ID
	err := q.QueryRowContext(ctx, s.d.Rebind(`SELECT space_id FROM checkpoints WHERE id = ?`), checkpoint).Scan(&space)
	if errors.Is(err, sql.ErrNoRows) {
		return smriti.Errorf(smriti.ENOTFOUND, "mounted checkpoint %s not found", checkpoint)
	}
	if err != nil {
		return fmt.Errorf("look up mounted checkpoint: %w", err)
	}
	if !se.InSpace(space) {
		return smriti.Errorf(smriti.EINVALID, "mounted_checkpoint_id must be a checkpoint of the session's space")
	}
	return nil
}

func (s *Store) setMount(ctx context.Context, tx *sql.Tx, sessionID smriti.ID, m *smriti.Mount) error {
	mounted, base := mountArgs(m)
	if _, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE sessions SET mounted_checkpoint_id = ?, mount_base_seq = ? WHERE id = ?`),
		mounted, base, sessionID); err != nil {
		return fmt.Errorf("set mount: %w", err)
	}
	return nil
}
