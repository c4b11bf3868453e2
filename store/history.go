package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"

	"smriti"
	"smriti/contract"
	"smriti/store/internal/turncache"
)

// historyRange reads a session's turns with sequence numbers in [lo, hi],
// oldest first, starting no earlier than the turn after the newest one whose
// running token total is below (total at seq top) − budget: the turns from
// there to top already hold more than budget tokens, so older ones cannot be
// needed. One lookup on (session_id, token_total) finds that start, and the
// rest is one range scan of (session_id, sequence_number).
const historyRange = `SELECT ` + promptTurnCols + ` FROM turns
WHERE session_id = ? AND sequence_number >= ? AND sequence_number <= ?
AND sequence_number > COALESCE((SELECT b.sequence_number FROM turns b WHERE b.session_id = ?
	AND b.token_total < (SELECT t.token_total FROM turns t WHERE t.session_id = ? AND t.sequence_number = ?) - ?
	ORDER BY b.token_total DESC, b.sequence_number DESC LIMIT 1), -1)
ORDER BY sequence_number`

// History implements contract.SessionService. se must come from Session for
// the same caller (it carries the visibility check and the snapshot's
// newest sequence number). A session served before reads from the
// database only the turns written since (by this server or another).
func (s *Store) History(ctx context.Context, se *smriti.Session, q contract.HistoryQuery) (contract.HistoryWindow, error) {
	out := contract.HistoryWindow{Turns: []*smriti.Turn{}}
	top := se.LastSeq
	floor := int64(0)
	if q.AfterSeq != nil {
		floor = max(0, *q.AfterSeq+1)
	}
	if top < floor {
		return out, nil
	}
	s.checkTopology(ctx)
	view := s.cache.Get(se.ID, se.SpaceID)
	if len(view) == 0 || view[len(view)-1].Seq < top || view[0].Seq > top {
		// Read what the cache lacks: the turns above its newest, or (cold)
		// the whole window.
		from := floor
		if len(view) > 0 && view[0].Seq <= top {
			from = max(from, view[len(view)-1].Seq+1)
		}
		read, err := s.readHistory(ctx, se.ID, from, top, top, q.Budget)
		if err != nil {
			return out, err
		}
		if len(read) == 0 || read[len(read)-1].Seq != top {
			return out, s.historyGone(ctx, se, fmt.Errorf("read history of session %s: turn %d missing", se.ID, top))
		}
		view = s.cache.Add(se.ID, se.SpaceID, read)
		if len(view) == 0 || view[len(view)-1].Seq < top || view[0].Seq > top {
			view = read // the cache is off or did not keep them
		}
	}
	if q.AfterLogPos != nil {
		first, err := s.firstAfterLogPos(ctx, se, view, *q.AfterLogPos, top)
		if err != nil {
			return out, err
		}
		floor = max(floor, first)
		if top < floor {
			return out, nil
		}
	}
	// Walk newest first from top; when the view runs out before the budget
	// does, read the next older range (bounded by the budget left).
	used, next := 0, top
	out.Turns = make([]*smriti.Turn, 0, min(int(top-view[0].Seq)+1, 1024))
	for {
		for i := int(next - view[0].Seq); i >= 0 && next >= floor; i-- {
			t := view[i]
			next--
			if t.Role == smriti.RoleSystem {
				continue
			}
			used += t.TokenCount()
			out.Turns = append(out.Turns, t)
			if used > q.Budget {
				out.Unread = int(t.Seq - floor)
				s.cache.Trim(se.ID, t.Seq, q.Budget)
				return out, nil
			}
		}
		if next < floor {
			return out, nil
		}
		older, err := s.readHistory(ctx, se.ID, floor, next, next, q.Budget-used)
		if err != nil {
			return out, err
		}
		if len(older) == 0 || older[len(older)-1].Seq != next {
			return out, s.historyGone(ctx, se, fmt.Errorf("read history of session %s: turns below %d missing", se.ID, next+1))
		}
		s.cache.Add(se.ID, se.SpaceID, older)
		view = older
	}
}

// historyGone explains turns missing from a session's history: the session
// was deleted since the caller read it (a send racing a delete) — not found —
// or, when it is still there, missing is the internal error it is.
func (s *Store) historyGone(ctx context.Context, se *smriti.Session, missing error) error {
	if _, err := s.session(ctx, s.read, se.ID, ""); err != nil {
		return err
	}
	return missing
}

// firstAfterLogPos is the sequence number of the session's first turn
// after log position pos (top+1 when there is none). Within a session,
// sequence numbers and log positions grow together (both are taken under the
// session's lock), so the cached turns answer it when they reach back far
// enough, and an index lookup does otherwise.
//
// Once found, the bound is remembered with the session's cached turns: the
// first turn after a position never changes (later turns take later
// positions), and a HEAD send asks it for the same checkpoint every time.
func (s *Store) firstAfterLogPos(ctx context.Context, se *smriti.Session, view []*smriti.Turn, pos, top int64) (int64, error) {
	if len(view) > 0 && view[0].LogPos <= pos {
		i := sort.Search(len(view), func(i int) bool { return view[i].LogPos > pos })
		if i < len(view) {
			return view[i].Seq, nil
		}
		if view[len(view)-1].Seq >= top {
			return top + 1, nil
		}
	}
	if first, ok := s.cache.Bound(se.ID, se.SpaceID, pos); ok && first <= top {
		return first, nil
	}
	st, err := s.stmts.Prepared(ctx, s.read, `SELECT sequence_number FROM turns WHERE session_id = ? AND log_pos > ? ORDER BY log_pos LIMIT 1`)
	if err != nil {
		return 0, err
	}
	var first int64
	err = st.QueryRowContext(ctx, se.ID, pos).Scan(&first)
	if errors.Is(err, sql.ErrNoRows) {
		return top + 1, nil
	}
	if err != nil {
		return 0, fmt.Errorf("resolve log bound: %w", err)
	}
	s.cache.SetBound(se.ID, se.SpaceID, pos, first)
	return first, nil
}

// readHistory runs historyRange and counts the rows it read.
func (s *Store) readHistory(ctx context.Context, sessionID smriti.ID, lo, hi, top int64, budget int) ([]*smriti.Turn, error) {
	st, err := s.stmts.Prepared(ctx, s.read, historyRange)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, sessionID, lo, hi, sessionID, sessionID, top, budget)
	if err != nil {
		return nil, fmt.Errorf("read history: %w", err)
	}
	defer rows.Close()
	var out []*smriti.Turn
	for rows.Next() {
		t := &smriti.Turn{SessionID: sessionID}
		if err := rows.Scan(&t.Seq, &t.LogPos, &t.Role, &t.Content, &t.Tokens); err != nil {
			return nil, fmt.Errorf("read history: %w", err)
		}
		t.Role = internRole(t.Role)
		out = append(out, t)
	}
	s.historyRows.Add(int64(len(out)))
	return out, rows.Err()
}

// DefaultTurnCacheBytes is the recent-turns cache's default memory bound:
// with it full, an idle server stays within SPEC's 30 MB resident set.
const DefaultTurnCacheBytes = turncache.DefaultBytes

// SetTurnCacheBytes bounds the memory of the recent-turns cache (0 turns it
// off); the default is DefaultTurnCacheBytes.
func (s *Store) SetTurnCacheBytes(n int64) { s.cache.SetLimit(n) }

// TurnCacheSize reports the sessions and bytes the recent-turns cache holds.
func (s *Store) TurnCacheSize() (sessions int, bytes int64) { return s.cache.Size() }

// HistoryRowsRead counts the turn rows History has read from the database
// since the store was opened.
func (s *Store) HistoryRowsRead() int64 { return s.historyRows.Load() }

// internRole returns the constant for a known role, so that a cached turn
// does not keep a copy of "user" or "assistant" of its own.
func internRole(r string) string {
	switch r {
	case smriti.RoleUser:
		return smriti.RoleUser
	case smriti.RoleAssistant:
		return smriti.RoleAssistant
	case smriti.RoleSystem:
		return smriti.RoleSystem
	}
	return r
}
