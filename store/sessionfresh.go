package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"smriti"
)

// A send reads its session and then the turns its cached history lacks:
// with several replicas on one database, the turns another replica wrote
// since this one last served the session. When the session is in the turn
// cache, Session reads both in one statement (one snapshot, so the turns
// are exactly those up to the row's last_seq) and extends the cache, and the
// History that follows finds it current without a second round trip.

// freshTurns bounds the turns one session read brings along; History reads
// any further ones (within its budget) as before.
const freshTurns = 64

// sqlSessionFresh is sqlSession with the session's turns numbered (T, T+n]
// and at most its last_seq (arguments T, T+n, then sqlSession's), one row
// per turn, oldest first, or one row of NULL turn columns when there are
// none.
var sqlSessionFresh = `SELECT ` + qualified("sessions", sessionCols) + `, t.sequence_number, t.log_pos, t.role, t.content, t.tokens
FROM sessions LEFT JOIN turns t ON t.session_id = sessions.id AND t.sequence_number > ? AND t.sequence_number <= ?
	AND t.sequence_number <= sessions.last_seq
WHERE sessions.id = ? AND ` + sessionVisible + ` ORDER BY t.sequence_number`

// qualified prefixes each of a comma-separated column list with table.
func qualified(table, cols string) string {
	parts := strings.Split(cols, ",")
	for i, c := range parts {
		parts[i] = table + "." + strings.TrimSpace(c)
	}
	return strings.Join(parts, ", ")
}

// withExtra scans a row into a session's columns and then into extra.
type withExtra struct {
	rows  *sql.Rows
	extra []any
}

func (w withExtra) Scan(dest ...any) error { return w.rows.Scan(append(dest, w.extra...)...) }

// sessionFresh is Session for a session whose turns the cache holds up to
// sequence number top.
func (s *Store) sessionFresh(ctx context.Context, id smriti.ID, top int64) (*smriti.Session, error) {
	st, err := s.prepared(ctx, s.read, sqlSessionFresh)
	if err != nil {
		return nil, err
	}
	user := smriti.UserFromContext(ctx)
	rows, err := st.QueryContext(ctx, top, top+freshTurns, id, user, user)
	if err != nil {
		return nil, fmt.Errorf("get session: %w", err)
	}
	defer rows.Close()
	var se *smriti.Session
	var turns []*smriti.Turn
	for rows.Next() {
		var seq, pos, tokens sql.NullInt64
		var role, content sql.NullString
		row, err := scanSession(withExtra{rows, []any{&seq, &pos, &role, &content, &tokens}})
		if err != nil {
			return nil, fmt.Errorf("get session: %w", err)
		}
		se = row
		if seq.Valid {
			turns = append(turns, &smriti.Turn{SessionID: id, Seq: seq.Int64, LogPos: pos.Int64, Role: internRole(role.String),
				Content: content.String, Tokens: int(tokens.Int64)})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("get session: %w", err)
	}
	if se == nil {
		return nil, errSessionNotFound
	}
	if len(turns) > 0 {
		s.historyRows.Add(int64(len(turns)))
		s.cache.extend(id, se.SpaceID, turns)
	}
	return se, nil
}

// top is the newest sequence number cached for the session, false when
// it is not in the cache.
func (c *turnCache) top(id smriti.ID) (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byID[id]
	if !ok {
		return 0, false
	}
	ts := el.Value.(*cacheEntry).turns
	return ts[len(ts)-1].Seq, true
}
