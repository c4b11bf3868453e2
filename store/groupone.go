package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/google/uuid"

	"smriti"
)

// On PostgreSQL a batch of distinct sessions is written by one statement:
// the sessions' rows are bumped, the spaces' log rows advanced and the turns
// inserted together, with their sequence numbers, running token totals and
// log positions worked out by the database exactly as writeGroupTx works
// them out. The transaction is then BEGIN, this statement and COMMIT: three
// round trips however many exchanges, sessions and spaces the batch mixes.
//
// Lock order stays that of single sends: the session rows are locked in id
// order (rows are locked as the sort hands them out) and every one of them
// before any space's log row — the log rows' lock sorts every turn row,
// which needs every bumped session — and the log rows in space-id order.
const sqlWriteBatch = `WITH v AS (
	SELECT * FROM unnest(?::text[]::uuid[], ?::bigint[], ?::bigint[], ?::text[], ?::text[], ?::bool[], ?::text[]::uuid[])
		AS v (id, n, tokens, provider, model, keep, owner)
), bump AS (
	UPDATE sessions SET last_seq = sessions.last_seq + v.n, token_total = sessions.token_total + v.tokens,
		active_provider = CASE WHEN v.keep THEN sessions.active_provider ELSE v.provider END,
		active_model = CASE WHEN v.keep THEN sessions.active_model ELSE v.model END, updated_at = ?
	FROM v
	WHERE sessions.id = v.id
		AND sessions.id IN (SELECT l.id FROM sessions l WHERE l.id IN (SELECT id FROM v) ORDER BY l.id FOR UPDATE)
		AND (sessions.space_id IN (SELECT m.space_id FROM space_members m WHERE m.user_id = v.owner AND m.role <> 'viewer')
			OR (sessions.space_id IS NULL AND sessions.owner_id = v.owner))
	RETURNING sessions.id, sessions.last_seq, sessions.token_total, sessions.space_id, v.n, v.tokens
), t AS (
	SELECT * FROM unnest(?::bigint[], ?::text[]::uuid[], ?::text[]::uuid[], ?::text[], ?::text[], ?::text[], ?::text[], ?::bigint[], ?::text[], ?::bigint[])
		AS t (ord, session_id, id, role, content, provider, model, tokens, metadata, k)
), tt AS (
	SELECT t.*, b.space_id, b.last_seq - b.n + t.k AS seq,
		b.token_total - b.tokens + SUM(t.tokens) OVER (PARTITION BY t.session_id ORDER BY t.k) AS total,
		row_number() OVER (PARTITION BY b.space_id ORDER BY t.ord) AS rank
	FROM t JOIN bump b ON b.id = t.session_id
), sl AS (
	UPDATE space_log SET position = space_log.position + c.cnt
	FROM (SELECT space_id, count(*) AS cnt FROM tt WHERE space_id IS NOT NULL GROUP BY space_id) c
	WHERE space_log.space_id = c.space_id
		AND space_log.space_id IN (SELECT l.space_id FROM space_log l WHERE l.space_id IN (SELECT space_id FROM tt) ORDER BY l.space_id FOR UPDATE)
	RETURNING space_log.space_id, space_log.position, c.cnt
), ins AS (
	INSERT INTO turns (id, session_id, space_id, role, content, provider, model, sequence_number, log_pos, tokens, token_total, metadata, created_at)
	SELECT tt.id, tt.session_id, tt.space_id, tt.role, tt.content, tt.provider, tt.model, tt.seq,
		CASE WHEN tt.space_id IS NULL THEN tt.seq + 1 ELSE sl.position - sl.cnt + tt.rank END,
		tt.tokens, tt.total, tt.metadata::jsonb, ?
	FROM tt LEFT JOIN sl ON sl.space_id = tt.space_id
	RETURNING id, sequence_number, log_pos, space_id
)
SELECT id, sequence_number, log_pos, space_id FROM ins`

// writeBatchOne writes runs (distinct sessions, in id order) and their
// turns with sqlWriteBatch and fills in each turn's sequence number, log
// position and space, and each run's error for a session it may not write.
func (s *Store) writeBatchOne(ctx context.Context, tx *sql.Tx, runs []*sessionRun, now time.Time) ([]*smriti.Turn, error) {
	n := len(runs)
	ids, owners, providers, models := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	counts, tokens, keep := make([]int64, n), make([]int64, n), make([]bool, n)
	var turns []*smriti.Turn
	var tOrd, tK, tTokens []int64
	var tSession, tID, tRole, tContent, tProvider, tModel, tMeta []string
	for i, r := range runs {
		ids[i], owners[i] = r.session.String(), r.owner.String()
		counts[i], tokens[i] = int64(2*len(r.ps)), int64(r.tokens)
		if r.provider == nil {
			keep[i] = true
		} else {
			providers[i], models[i] = r.provider.(string), r.model.(string)
		}
		se := &smriti.Session{ID: r.session}
		for j, p := range r.ps {
			for k, t := range []*smriti.Turn{s.newTurn(se, smriti.RoleUser, p.ex.User, 0, 0, now), s.newTurn(se, smriti.RoleAssistant, p.ex.Assistant, 0, 0, now)} {
				meta, err := jsonArg(t.Metadata)
				if err != nil {
					return nil, err
				}
				tOrd, tK, tTokens = append(tOrd, int64(len(turns))), append(tK, int64(2*j+k+1)), append(tTokens, int64(t.Tokens))
				tSession, tID, tRole = append(tSession, ids[i]), append(tID, t.ID.String()), append(tRole, t.Role)
				tContent, tProvider, tModel, tMeta = append(tContent, t.Content), append(tProvider, t.Provider), append(tModel, t.Model), append(tMeta, meta)
				turns = append(turns, t)
			}
		}
	}
	rows, err := s.writeStmt(ctx, tx, sqlWriteBatch).QueryContext(ctx, ids, counts, tokens, providers, models, keep, owners, s.d.t(now),
		tOrd, tSession, tID, tRole, tContent, tProvider, tModel, tTokens, tMeta, tK, s.d.t(now))
	if err != nil {
		return nil, fmt.Errorf("write exchanges: %w", err)
	}
	defer rows.Close()
	byID := make(map[smriti.ID]*smriti.Turn, len(turns))
	for _, t := range turns {
		byID[t.ID] = t
	}
	written := map[smriti.ID]bool{}
	for rows.Next() {
		var id smriti.ID
		var seq, pos int64
		var space uuid.NullUUID
		if err := rows.Scan(&id, &seq, &pos, &space); err != nil {
			return nil, fmt.Errorf("write exchanges: %w", err)
		}
		if t := byID[id]; t != nil {
			t.Seq, t.LogPos, t.SpaceID = seq, pos, nullID(space)
			written[t.SessionID] = true
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("write exchanges: %w", err)
	}
	rows.Close()
	for _, r := range runs {
		if !written[r.session] {
			r.err = s.whyNotWritable(smriti.WithUser(ctx, r.owner), tx, r.session)
		}
	}
	return turns, nil
}
