package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"smriti"
	"smriti/store/internal/dbx"
)

// TurnsConsumed implements contract.CheckpointService: the last sequence
// number of the session that a checkpoint of its space accounts for. A
// checkpoint drafted from the session's turns (metadata.source_turns naming
// it) accounts for turns up to its to_seq; one the session committed
// without source turns accounts for every turn the session had written
// before it (log position below the checkpoint's). -1 when no checkpoint
// accounts for any. ENOTFOUND for a session the caller cannot see.
func (s *Store) TurnsConsumed(ctx context.Context, sessionID smriti.ID) (int64, error) {
	se, err := s.session(ctx, s.read, sessionID, "")
	if err != nil {
		return 0, err
	}
	consumed := int64(-1)
	if se.SpaceID == nil {
		return consumed, nil
	}
	// The session id appears in the metadata of every checkpoint that can
	// account for its turns; the text match narrows the scan to those, and
	// the decoded metadata decides.
	rows, err := s.read.QueryContext(ctx, s.d.Rebind(`SELECT metadata, log_pos FROM checkpoints WHERE space_id = ? AND `+
		s.d.JSONText("metadata")+` LIKE ?`), *se.SpaceID, "%"+sessionID.String()+"%")
	if err != nil {
		return 0, fmt.Errorf("find checkpoints of session: %w", err)
	}
	defer rows.Close()
	committedBefore := int64(-1) // newest log position of a commit without source turns
	for rows.Next() {
		var meta map[string]any
		var logPos int64
		if err := rows.Scan(dbx.JSONCol{Dst: &meta}, &logPos); err != nil {
			return 0, fmt.Errorf("read checkpoint metadata: %w", err)
		}
		if to, ok := sourceTurnsOf(meta, sessionID); ok {
			consumed = max(consumed, to)
		} else if sid, _ := meta["session_id"].(string); strings.EqualFold(sid, sessionID.String()) {
			committedBefore = max(committedBefore, logPos)
		}
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("read checkpoints of session: %w", err)
	}
	if committedBefore >= 0 {
		var last sql.NullInt64
		if err := s.read.QueryRowContext(ctx, s.d.Rebind(`SELECT MAX(sequence_number) FROM turns WHERE session_id = ? AND log_pos < ?`),
			sessionID, committedBefore).Scan(&last); err != nil {
			return 0, fmt.Errorf("find turns before checkpoint: %w", err)
		}
		if last.Valid {
			consumed = max(consumed, last.Int64)
		}
	}
	return consumed, nil
}

// sourceTurnsOf is the to_seq of metadata.source_turns when it names the
// session.
func sourceTurnsOf(meta map[string]any, sessionID smriti.ID) (int64, bool) {
	st := smriti.MetaOf(meta).SourceTurns
	if st == nil || st.SessionID != sessionID {
		return 0, false
	}
	return st.ToSeq, true
}
