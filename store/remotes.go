package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"smriti"
	"smriti/internal/textutil"
	"smriti/remote"
	"smriti/store/internal/dbx"
)

// AddRemote records another copy of a space. ENOTFOUND for a space the
// caller may not see, EFORBIDDEN without write access, ECONFLICT when the
// space already has a remote of that name.
func (s *Store) AddRemote(ctx context.Context, in remote.Create) (*remote.Remote, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	in.URL = remote.NormalizeURL(in.URL)
	var out *remote.Remote
	err := s.tx(ctx, func(tx *sql.Tx) error {
		now := s.Now()
		if err := s.lockSpace(ctx, tx, in.SpaceID, now); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, s.d.Rebind(`SELECT COUNT(*) FROM remotes WHERE space_id = ? AND name = ?`), in.SpaceID, in.Name).Scan(&n); err != nil {
			return fmt.Errorf("add remote: %w", err)
		}
		if n > 0 {
			return smriti.Errorf(smriti.ECONFLICT, "This space already has a remote named %q; remove it first (smriti remote remove %s)", in.Name, in.Name)
		}
		rs := in.SpaceID
		if in.RemoteSpaceID != nil {
			rs = *in.RemoteSpaceID
		}
		if _, err := tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO remotes (space_id, name, url, remote_space_id, token, created_at)
			VALUES (?, ?, ?, ?, ?, ?)`), in.SpaceID, in.Name, in.URL, rs, in.Token, s.d.T(now)); err != nil {
			return fmt.Errorf("add remote: %w", err)
		}
		out = &remote.Remote{SpaceID: in.SpaceID, Name: in.Name, URL: in.URL, RemoteSpaceID: rs, Token: in.Token,
			FetchCursor: -1, PushCursor: -1, CreatedAt: now.UTC(), Heads: []remote.Head{}}
		return nil
	})
	return out, err
}

const remoteCols = `name, url, remote_space_id, token, fetch_cursor, push_cursor, fetched_at, created_at`

func scanRemote(space smriti.ID, row interface{ Scan(...any) error }) (*remote.Remote, error) {
	r := &remote.Remote{SpaceID: space, Heads: []remote.Head{}}
	var fetched, created dbx.Time
	if err := row.Scan(&r.Name, &r.URL, &r.RemoteSpaceID, &r.Token, &r.FetchCursor, &r.PushCursor, &fetched, &created); err != nil {
		return nil, err
	}
	if !fetched.IsZero() {
		t := fetched.Time
		r.FetchedAt = &t
	}
	r.CreatedAt = created.Time
	return r, nil
}

// Remotes lists a space's remotes by name, each with its remote-tracking
// heads. ENOTFOUND for a space the caller may not see.
func (s *Store) Remotes(ctx context.Context, space smriti.ID) ([]*remote.Remote, error) {
	var out []*remote.Remote
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		var err error
		out, err = s.remotes(ctx, tx, space, "")
		return err
	})
	return out, err
}

// Remote returns one remote of a space. ENOTFOUND when the space or the
// remote is missing or unseen.
func (s *Store) Remote(ctx context.Context, space smriti.ID, name string) (*remote.Remote, error) {
	var out []*remote.Remote
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		var err error
		out, err = s.remotes(ctx, tx, space, name)
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, smriti.Errorf(smriti.ENOTFOUND, "This space has no remote named %q (smriti remote list shows them)", textutil.Truncate(name, 64))
	}
	return out[0], nil
}

func (s *Store) remotes(ctx context.Context, q dbx.Querier, space smriti.ID, name string) ([]*remote.Remote, error) {
	if _, err := s.space(ctx, q, space); err != nil {
		return nil, err
	}
	query, args := `SELECT `+remoteCols+` FROM remotes WHERE space_id = ?`, []any{space}
	if name != "" {
		query, args = query+` AND name = ?`, append(args, name)
	}
	rows, err := q.QueryContext(ctx, s.d.Rebind(query+` ORDER BY name`), args...)
	if err != nil {
		return nil, fmt.Errorf("list remotes: %w", err)
	}
	defer rows.Close()
	out := []*remote.Remote{}
	byName := map[string]*remote.Remote{}
	for rows.Next() {
		r, err := scanRemote(space, rows)
		if err != nil {
			return nil, fmt.Errorf("list remotes: %w", err)
		}
		out, byName[r.Name] = append(out, r), r
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list remotes: %w", err)
	}
	hrows, err := q.QueryContext(ctx, s.d.Rebind(`SELECT remote, branch_name, checkpoint_id, commit_hash, updated_at FROM remote_heads
		WHERE space_id = ? ORDER BY remote, branch_name`), space)
	if err != nil {
		return nil, fmt.Errorf("list remote heads: %w", err)
	}
	defer hrows.Close()
	for hrows.Next() {
		var rname string
		var h remote.Head
		var at dbx.Time
		if err := hrows.Scan(&rname, &h.Branch, &h.CheckpointID, &h.Hash, &at); err != nil {
			return nil, fmt.Errorf("list remote heads: %w", err)
		}
		h.UpdatedAt = at.Time
		if r := byName[rname]; r != nil {
			r.Heads = append(r.Heads, h)
		}
	}
	return out, hrows.Err()
}

// RemoveRemote forgets a remote, its remote-tracking heads and what was
// fetched from it and not yet pulled. ENOTFOUND when there is no such
// remote.
func (s *Store) RemoveRemote(ctx context.Context, space smriti.ID, name string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.lockSpace(ctx, tx, space, s.Now()); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.d.Rebind(`DELETE FROM sync_staged WHERE space_id = ? AND remote = ?`), space, name); err != nil {
			return fmt.Errorf("remove remote: %w", err)
		}
		if _, err := tx.ExecContext(ctx, s.d.Rebind(`DELETE FROM remote_heads WHERE space_id = ? AND remote = ?`), space, name); err != nil {
			return fmt.Errorf("remove remote: %w", err)
		}
		res, err := tx.ExecContext(ctx, s.d.Rebind(`DELETE FROM remotes WHERE space_id = ? AND name = ?`), space, name)
		if err != nil {
			return fmt.Errorf("remove remote: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return smriti.Errorf(smriti.ENOTFOUND, "This space has no remote named %q (smriti remote list shows them)", textutil.Truncate(name, 64))
		}
		return nil
	})
}

// SetRemoteHeads records where the remote's branches stand after a fetch
// or a push, and moves the fetch cursor (when fetchCursor is set) or the
// push cursor (pushCursor). Heads of branches not named are kept.
func (s *Store) SetRemoteHeads(ctx context.Context, space smriti.ID, name string, heads []remote.Head, fetchCursor, pushCursor *int64) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		now := s.Now()
		if err := s.lockSpace(ctx, tx, space, now); err != nil {
			return err
		}
		return s.setRemoteHeads(ctx, tx, space, name, heads, fetchCursor, pushCursor, now)
	})
}

func (s *Store) setRemoteHeads(ctx context.Context, tx *sql.Tx, space smriti.ID, name string, heads []remote.Head, fetchCursor, pushCursor *int64, now time.Time) error {
	for _, h := range heads {
		if _, err := tx.ExecContext(ctx, s.d.Rebind(`DELETE FROM remote_heads WHERE space_id = ? AND remote = ? AND branch_name = ?`), space, name, h.Branch); err != nil {
			return fmt.Errorf("set remote head: %w", err)
		}
		if _, err := tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO remote_heads (space_id, remote, branch_name, checkpoint_id, commit_hash, updated_at)
			VALUES (?, ?, ?, ?, ?, ?)`), space, name, h.Branch, h.CheckpointID, h.Hash, s.d.T(now)); err != nil {
			return fmt.Errorf("set remote head: %w", err)
		}
	}
	if fetchCursor != nil {
		if _, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE remotes SET fetch_cursor = ?, fetched_at = ? WHERE space_id = ? AND name = ?`),
			*fetchCursor, s.d.T(now), space, name); err != nil {
			return fmt.Errorf("set fetch cursor: %w", err)
		}
	}
	if pushCursor != nil {
		if _, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE remotes SET push_cursor = ? WHERE space_id = ? AND name = ?`),
			*pushCursor, space, name); err != nil {
			return fmt.Errorf("set push cursor: %w", err)
		}
	}
	return nil
}

// SetSessionPrivate marks a session private (its turns, the quotes they
// lend to provenance, its receipts and context records never leave this
// server) or shared again. ENOTFOUND for a session the caller may not see.
func (s *Store) SetSessionPrivate(ctx context.Context, id smriti.ID, private bool) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		se, err := s.session(ctx, tx, id, "")
		if err != nil {
			return err
		}
		if se.SpaceID != nil {
			if err := s.lockSpace(ctx, tx, *se.SpaceID, s.Now()); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE sessions SET private = ? WHERE id = ?`), private, id); err != nil {
			return fmt.Errorf("set private: %w", err)
		}
		return nil
	})
}

// SessionPrivate reports whether a session is private. ENOTFOUND for a
// session the caller may not see.
func (s *Store) SessionPrivate(ctx context.Context, id smriti.ID) (bool, error) {
	if _, err := s.Session(ctx, id); err != nil {
		return false, err
	}
	var private bool
	err := s.read.QueryRowContext(ctx, s.d.Rebind(`SELECT private FROM sessions WHERE id = ?`), id).Scan(&private)
	if errors.Is(err, sql.ErrNoRows) {
		return false, errSessionNotFound
	}
	if err != nil {
		return false, fmt.Errorf("read private: %w", err)
	}
	return private, nil
}

// privateSessions are the ids of the space's private sessions.
func (s *Store) privateSessions(ctx context.Context, q dbx.Querier, space smriti.ID) (map[smriti.ID]bool, error) {
	rows, err := q.QueryContext(ctx, s.d.Rebind(`SELECT id FROM sessions WHERE space_id = ? AND private`), space)
	if err != nil {
		return nil, fmt.Errorf("private sessions: %w", err)
	}
	defer rows.Close()
	out := map[smriti.ID]bool{}
	for rows.Next() {
		var id smriti.ID
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("private sessions: %w", err)
		}
		out[id] = true
	}
	return out, rows.Err()
}

// AllRemotes lists every remote of every space on this server, whoever
// owns it (for the server's own background fetch, not for a caller).
func (s *Store) AllRemotes(ctx context.Context) ([]remote.Ref, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT r.space_id, sp.owner_id, r.name FROM remotes r JOIN spaces sp ON sp.id = r.space_id ORDER BY r.space_id, r.name`)
	if err != nil {
		return nil, fmt.Errorf("list remotes: %w", err)
	}
	defer rows.Close()
	var out []remote.Ref
	for rows.Next() {
		var r remote.Ref
		if err := rows.Scan(&r.SpaceID, &r.Owner, &r.Name); err != nil {
			return nil, fmt.Errorf("list remotes: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
