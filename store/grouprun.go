package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"smriti"
	"smriti/store/internal/dbx"
)

// sessionRun is a run of one session's exchanges in a sorted batch, all for
// one caller: its row is bumped once for all of them.
type sessionRun struct {
	ps      []*pendingExchange
	session smriti.ID
	owner   smriti.ID
	tokens  int
	// provider and model are what the run leaves on the session, nil to
	// keep the stored value (a one-off provider, use_mock): the run's last
	// other send sets them.
	provider, model any
	// What the bump returned, or why the session may not be written.
	last, total int64
	space       *smriti.ID
	err         error
}

// groupRuns splits a batch sorted by session into runs.
func groupRuns(live []*pendingExchange) []*sessionRun {
	var runs []*sessionRun
	for i := 0; i < len(live); {
		r := &sessionRun{session: live[i].ex.SessionID, owner: smriti.UserFromContext(live[i].ctx)}
		for _, p := range live[i:] {
			if p.ex.SessionID != r.session || smriti.UserFromContext(p.ctx) != r.owner {
				break
			}
			p.res, p.err = nil, nil
			r.ps = append(r.ps, p)
			r.tokens += p.ex.User.Tokens + p.ex.Assistant.Tokens
			if !p.ex.KeepSessionModel {
				r.provider, r.model = p.ex.Assistant.Provider, p.ex.Assistant.Model
			}
		}
		i += len(r.ps)
		runs = append(runs, r)
	}
	return runs
}

// bumpRuns bumps every run's session row, in session-id order: on an engine
// with wideWrites in one statement when the runs' sessions are distinct
// (every statement is a round trip there), else one statement per run.
func (s *Store) bumpRuns(ctx context.Context, tx *sql.Tx, runs []*sessionRun, now time.Time) error {
	distinct := true
	for i := 1; i < len(runs); i++ {
		distinct = distinct && runs[i].session != runs[i-1].session
	}
	if s.d.WideWrites && len(runs) > 1 && distinct {
		return s.bumpRunsWide(ctx, tx, runs, now)
	}
	upd, err := s.stmts.TxStmt(ctx, tx, sqlBumpSession)
	if err != nil {
		return err
	}
	for _, r := range runs {
		var space uuid.NullUUID
		err := upd.QueryRowContext(ctx, s.bumpArgs(r, now)...).Scan(&r.last, &r.total, &space)
		if errors.Is(err, sql.ErrNoRows) {
			r.err = s.whyNotWritable(smriti.WithUser(ctx, r.owner), tx, r.session)
			continue
		}
		if err != nil {
			return fmt.Errorf("update session: %w", err)
		}
		r.space = dbx.NullID(space)
	}
	return nil
}

// bumpArgs are sqlBumpSession's arguments for a run.
func (s *Store) bumpArgs(r *sessionRun, now time.Time) []any {
	return []any{2 * len(r.ps), r.tokens, r.provider, r.model, s.d.T(now), r.session, r.owner, r.owner}
}

// sqlBumpSessions is sqlBumpSession for many sessions at once (PostgreSQL):
// the arrays hold, per session, its id, the turns and tokens it gains, the
// provider and model it gets unless keep, and the caller, whose right to
// write it is checked as sessionWritable checks it. The sub-select locks the
// rows in id order before any is changed (rows are locked as the sort hands
// them out), the order single bumps take them in, so batches of any mix of
// sessions, from any number of replicas, cannot deadlock.
const sqlBumpSessions = `UPDATE sessions SET last_seq = sessions.last_seq + v.n, token_total = sessions.token_total + v.tokens,
	active_provider = CASE WHEN v.keep THEN sessions.active_provider ELSE v.provider END,
	active_model = CASE WHEN v.keep THEN sessions.active_model ELSE v.model END, updated_at = ?
FROM unnest(?::text[]::uuid[], ?::bigint[], ?::bigint[], ?::text[], ?::text[], ?::bool[], ?::text[]::uuid[]) AS v (id, n, tokens, provider, model, keep, owner)
WHERE sessions.id = v.id
	AND sessions.id IN (SELECT l.id FROM sessions l WHERE l.id = ANY(?::text[]::uuid[]) ORDER BY l.id FOR UPDATE)
	AND (sessions.space_id IN (SELECT m.space_id FROM space_members m WHERE m.user_id = v.owner AND m.role <> 'viewer')
		OR (sessions.space_id IS NULL AND sessions.owner_id = v.owner))
RETURNING sessions.id, sessions.last_seq, sessions.token_total, sessions.space_id`

func (s *Store) bumpRunsWide(ctx context.Context, tx *sql.Tx, runs []*sessionRun, now time.Time) error {
	args, byID := s.wideBumpArgs(runs, now)
	rows, err := s.stmts.WriteStmt(ctx, tx, sqlBumpSessions).QueryContext(ctx, args...)
	if err != nil {
		return fmt.Errorf("update sessions: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id smriti.ID
		var last, total int64
		var space uuid.NullUUID
		if err := rows.Scan(&id, &last, &total, &space); err != nil {
			return fmt.Errorf("update sessions: %w", err)
		}
		if r := byID[id]; r != nil {
			r.last, r.total, r.space, r.err = last, total, dbx.NullID(space), nil
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("update sessions: %w", err)
	}
	rows.Close()
	for _, r := range runs {
		if r.err != nil {
			r.err = s.whyNotWritable(smriti.WithUser(ctx, r.owner), tx, r.session)
		}
	}
	return nil
}

// wideBumpArgs are sqlBumpSessions' arguments for runs of distinct
// sessions, and the runs by session; each run's err is errSessionNotFound
// until the bump returns its row.
func (s *Store) wideBumpArgs(runs []*sessionRun, now time.Time) ([]any, map[smriti.ID]*sessionRun) {
	n := len(runs)
	ids, owners, providers, models := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	turns, tokens, keep := make([]int64, n), make([]int64, n), make([]bool, n)
	byID := make(map[smriti.ID]*sessionRun, n)
	for i, r := range runs {
		ids[i], owners[i] = r.session.String(), r.owner.String()
		turns[i], tokens[i] = int64(2*len(r.ps)), int64(r.tokens)
		if r.provider == nil {
			keep[i] = true
		} else {
			providers[i], models[i] = r.provider.(string), r.model.(string)
		}
		byID[r.session] = r
		r.err = errSessionNotFound // until the bump returns its row
	}
	return []any{s.d.T(now), ids, turns, tokens, providers, models, keep, owners, ids}, byID
}

// sqlNextSpacePositions is sqlNextSpaceLogPos for many spaces at once
// (PostgreSQL), locking their rows in space-id order first as
// sqlBumpSessions locks sessions.
const sqlNextSpacePositions = `UPDATE space_log SET position = space_log.position + v.n
FROM unnest(?::text[]::uuid[], ?::bigint[]) AS v (space_id, n)
WHERE space_log.space_id = v.space_id
	AND space_log.space_id IN (SELECT l.space_id FROM space_log l WHERE l.space_id = ANY(?::text[]::uuid[]) ORDER BY l.space_id FOR UPDATE)
RETURNING space_log.space_id, space_log.position`

// nextSpacePositions reserves counts[sp] positions in each space's log
// (spaces sorted by id) in one statement and returns each space's last.
func (s *Store) nextSpacePositions(ctx context.Context, tx *sql.Tx, spaces []smriti.ID, counts map[smriti.ID]int) (map[smriti.ID]int64, error) {
	ids, ns := make([]string, len(spaces)), make([]int64, len(spaces))
	for i, sp := range spaces {
		ids[i], ns[i] = sp.String(), int64(counts[sp])
	}
	rows, err := s.stmts.WriteStmt(ctx, tx, sqlNextSpacePositions).QueryContext(ctx, ids, ns, ids)
	if err != nil {
		return nil, fmt.Errorf("reserve log positions: %w", err)
	}
	defer rows.Close()
	out := make(map[smriti.ID]int64, len(spaces))
	for rows.Next() {
		var sp smriti.ID
		var pos int64
		if err := rows.Scan(&sp, &pos); err != nil {
			return nil, fmt.Errorf("reserve log positions: %w", err)
		}
		out[sp] = pos
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reserve log positions: %w", err)
	}
	if len(out) != len(spaces) {
		return nil, smriti.Errorf(smriti.ENOTFOUND, "space not found")
	}
	return out, nil
}
