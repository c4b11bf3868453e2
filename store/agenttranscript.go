package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"smriti"
	"smriti/internal/estimate"
	"smriti/internal/textutil"
	"smriti/records"
)

// AppendAgentEntries implements portability.AgentTranscriptStore.
func (s *Store) AppendAgentEntries(ctx context.Context, spaceID smriti.ID, source, key, title string, entries []records.AgentEntry) (*smriti.Session, bool, int, error) {
	if !records.ValidAgentFormat(source) {
		return nil, false, 0, smriti.Errorf(smriti.EINVALID, "unknown transcript format %q", textutil.Truncate(source, 40))
	}
	var out *smriti.Session
	created, added := false, 0
	err := s.tx(ctx, func(tx *sql.Tx) error {
		created, added = false, 0
		now := s.Now()
		if err := s.lockSpace(ctx, tx, spaceID, now); err != nil {
			return err
		}
		se, err := s.agentSession(ctx, tx, spaceID, source, key)
		if err != nil {
			return err
		}
		if se == nil {
			se = &smriti.Session{ID: smriti.NewID(), SpaceID: &spaceID, OwnerID: smriti.UserFromContext(ctx), Title: title,
				ActiveProvider: "import", ActiveModel: source, BranchName: smriti.MainBranch, BranchDisposition: smriti.DispositionActive,
				Metadata: map[string]any{"import": map[string]any{"source": source, "session_key": key}}, LastSeq: -1, CreatedAt: now, UpdatedAt: now}
			if err := s.insertSession(ctx, tx, se); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO agent_sessions (space_id, source, session_key, session_id, created_at)
				VALUES (?, ?, ?, ?, ?)`), spaceID, source, key, se.ID, s.d.T(now)); err != nil {
				return fmt.Errorf("record agent session: %w", err)
			}
			created = true
		}
		var fresh []records.AgentEntry
		for _, e := range entries {
			// One statement decides whether the entry is new: a second
			// import racing this one cannot write it twice.
			res, err := tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO agent_entries (session_id, entry_key) VALUES (?, ?) ON CONFLICT DO NOTHING`),
				se.ID, textutil.Truncate(e.Key, 300))
			if err != nil {
				return fmt.Errorf("record agent entry: %w", err)
			}
			n, _ := res.RowsAffected()
			if n == 1 && e.Covers != "" {
				// The real message of a stand-in imported before: recorded,
				// no second turn; the stand-in's key is free again.
				res, err := tx.ExecContext(ctx, s.d.Rebind(`DELETE FROM agent_entries WHERE session_id = ? AND entry_key = ?`),
					se.ID, textutil.Truncate(e.Covers, 300))
				if err != nil {
					return fmt.Errorf("release stand-in: %w", err)
				}
				if covered, _ := res.RowsAffected(); covered == 1 {
					continue
				}
			}
			if n == 1 && e.Content != "" {
				fresh = append(fresh, e)
			}
		}
		if len(fresh) > 0 {
			last, err := s.nextLogPositions(ctx, tx, spaceID, len(fresh))
			if err != nil {
				return err
			}
			first := last - int64(len(fresh)) + 1
			for i, e := range fresh {
				imp := map[string]any{"source": source, "kind": e.Kind, "key": e.Key}
				if e.CreatedAt != nil {
					imp["original_created_at"] = e.CreatedAt.UTC().Format(time.RFC3339Nano)
				}
				t := &smriti.Turn{ID: smriti.NewID(), SessionID: se.ID, SpaceID: &spaceID, Role: e.Role, Content: e.Content,
					Provider: "import", Model: source, Seq: se.LastSeq + 1 + int64(i), LogPos: first + int64(i),
					Tokens: estimate.Tokens(e.Content), Metadata: map[string]any{"import": imp}, CreatedAt: now}
				if err := s.insertTurn(ctx, tx, t); err != nil {
					return err
				}
			}
			se.LastSeq += int64(len(fresh))
			if _, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE sessions SET last_seq = ?, updated_at = ? WHERE id = ?`),
				se.LastSeq, s.d.T(now), se.ID); err != nil {
				return fmt.Errorf("update session: %w", err)
			}
			se.UpdatedAt = now
		}
		out, added = se, len(fresh)
		return nil
	})
	if err != nil {
		return nil, false, 0, err
	}
	if added > 0 {
		s.cache.Drop(out.ID)
	}
	return out, created, added, nil
}

// agentSession is the space's session for an agent session, nil when there
// is none yet (or it was deleted, which also removed the mapping).
func (s *Store) agentSession(ctx context.Context, tx *sql.Tx, spaceID smriti.ID, source, key string) (*smriti.Session, error) {
	var id smriti.ID
	err := tx.QueryRowContext(ctx, s.d.Rebind(`SELECT session_id FROM agent_sessions WHERE space_id = ? AND source = ? AND session_key = ?`),
		spaceID, source, key).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("look up agent session: %w", err)
	}
	return s.session(ctx, tx, id, s.d.ForUpdate)
}
