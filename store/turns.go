package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"smriti"
	"smriti/contract"
	"smriti/store/internal/dbx"
)

const turnCols = `id, session_id, space_id, role, content, provider, model, sequence_number, log_pos, tokens, metadata, created_at`

func scanTurn(row interface{ Scan(...any) error }) (*smriti.Turn, error) {
	var t smriti.Turn
	var space uuid.NullUUID
	var created dbx.Time
	if err := row.Scan(&t.ID, &t.SessionID, &space, &t.Role, &t.Content, &t.Provider, &t.Model, &t.Seq, &t.LogPos,
		&t.Tokens, dbx.JSONCol{Dst: &t.Metadata}, &created); err != nil {
		return nil, err
	}
	t.SpaceID = dbx.NullID(space)
	if t.Metadata == nil {
		t.Metadata = map[string]any{}
	}
	t.CreatedAt = created.Time
	return &t, nil
}

// Turns implements contract.SessionService.
func (s *Store) Turns(ctx context.Context, sessionID smriti.ID, q contract.TurnQuery) ([]*smriti.Turn, error) {
	cols := turnCols
	if q.PromptOnly {
		cols = promptTurnCols
	}
	// The caller's visibility is part of the query; only an empty answer
	// needs a second look to tell "no turns" from "no such session".
	query := `SELECT ` + cols + ` FROM turns WHERE session_id = ? AND EXISTS (SELECT 1 FROM sessions WHERE id = ? AND ` + sessionVisible + `)`
	args := []any{sessionID, sessionID, smriti.UserFromContext(ctx), smriti.UserFromContext(ctx)}
	if q.AfterSeq != nil {
		query += ` AND sequence_number > ?`
		args = append(args, *q.AfterSeq)
	}
	if q.BeforeSeq != nil {
		query += ` AND sequence_number < ?`
		args = append(args, *q.BeforeSeq)
	}
	if q.AfterLogPos != nil {
		// Within a session, sequence numbers and log positions grow
		// together (both are taken under the session's lock), so the log
		// bound becomes a sequence bound and every query below walks the
		// (session_id, sequence_number) index instead of sorting.
		var first sql.NullInt64
		if err := s.read.QueryRowContext(ctx, s.d.Rebind(`SELECT sequence_number FROM turns WHERE session_id = ? AND log_pos > ? ORDER BY log_pos LIMIT 1`),
			sessionID, *q.AfterLogPos).Scan(&first); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("resolve log bound: %w", err)
		}
		if !first.Valid {
			if _, err := s.session(ctx, s.read, sessionID, ""); err != nil {
				return nil, err
			}
			return []*smriti.Turn{}, nil
		}
		query += ` AND sequence_number >= ?`
		args = append(args, first.Int64)
	}
	if q.ExcludeSystem {
		query += ` AND role <> 'system'`
	}
	if q.Newest {
		query += ` ORDER BY sequence_number DESC`
	} else {
		query += ` ORDER BY sequence_number ASC`
	}
	if q.Limit > 0 {
		query += ` LIMIT ?`
		args = append(args, q.Limit)
	}
	var out []*smriti.Turn
	var err error
	if q.PromptOnly {
		out, err = s.queryPromptTurns(ctx, sessionID, query, args...)
	} else {
		out, err = s.queryTurns(ctx, s.read, query, args...)
	}
	if err == nil && len(out) == 0 {
		_, err = s.session(ctx, s.read, sessionID, "")
	}
	return out, err
}

const promptTurnCols = `sequence_number, log_pos, role, content, tokens`

func (s *Store) queryPromptTurns(ctx context.Context, sessionID smriti.ID, query string, args ...any) ([]*smriti.Turn, error) {
	rows, err := s.read.QueryContext(ctx, s.d.Rebind(query), args...)
	if err != nil {
		return nil, fmt.Errorf("list turns: %w", err)
	}
	defer rows.Close()
	out := []*smriti.Turn{}
	for rows.Next() {
		t := &smriti.Turn{SessionID: sessionID}
		if err := rows.Scan(&t.Seq, &t.LogPos, &t.Role, &t.Content, &t.Tokens); err != nil {
			return nil, fmt.Errorf("list turns: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

func (s *Store) queryTurns(ctx context.Context, q dbx.Querier, query string, args ...any) ([]*smriti.Turn, error) {
	return dbx.QueryAll(ctx, s.d, q, "list turns", scanTurn, query, args...)
}

// AppendExchange implements contract.SessionService. The session row is
// locked first (by its UPDATE: a row lock on PostgreSQL; the single writer on
// SQLite), so concurrent sends to one session — from any number of server
// replicas — take consecutive sequence numbers and never collide. The
// session's running token total moves with it, and each turn stores the
// total up to and including itself.
func (s *Store) AppendExchange(ctx context.Context, ex contract.Exchange) (*contract.ExchangeResult, error) {
	if grouped(ex) {
		return s.appendGrouped(ctx, ex)
	}
	res, err := s.appendOne(ctx, ex)
	if err == nil && !res.Replayed {
		// Committed: a session already in the cache gets its new turns
		// without reading them back.
		s.cache.Extend(ex.SessionID, res.User.SpaceID, []*smriti.Turn{promptTurn(res.User), promptTurn(res.Assistant)})
	}
	return res, err
}

// appendOne writes one exchange in its own transaction.
func (s *Store) appendOne(ctx context.Context, ex contract.Exchange) (*contract.ExchangeResult, error) {
	var res *contract.ExchangeResult
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res = nil
		if ex.IdempotencyKey != "" {
			if _, err := s.sessionForWrite(ctx, tx, ex.SessionID, s.d.ForUpdate); err != nil {
				return err
			}
			prev, err := s.replay(ctx, tx, ex.SessionID, ex.IdempotencyKey)
			if err != nil || prev != nil {
				res = prev
				return err
			}
			// Any row left under the key is past retention: the key is free.
			if _, err := tx.ExecContext(ctx, s.d.Rebind(`DELETE FROM send_keys WHERE session_id = ? AND idempotency_key = ?`),
				ex.SessionID, ex.IdempotencyKey); err != nil {
				return fmt.Errorf("free expired idempotency key: %w", err)
			}
		}
		now := s.Now()
		upd, err := s.stmts.TxStmt(ctx, tx, sqlBumpSession)
		if err != nil {
			return err
		}
		// A one-off provider (use_mock) leaves the session's own in place:
		// NULL keeps the stored value.
		var provider, model any = ex.Assistant.Provider, ex.Assistant.Model
		if ex.KeepSessionModel {
			provider, model = nil, nil
		}
		var last, total int64
		var space uuid.NullUUID
		err = upd.QueryRowContext(ctx, 2, ex.User.Tokens+ex.Assistant.Tokens, provider, model, s.d.T(now),
			ex.SessionID, smriti.UserFromContext(ctx), smriti.UserFromContext(ctx)).Scan(&last, &total, &space)
		if errors.Is(err, sql.ErrNoRows) {
			return s.whyNotWritable(ctx, tx, ex.SessionID)
		}
		if err != nil {
			return fmt.Errorf("update session: %w", err)
		}
		se := &smriti.Session{ID: ex.SessionID, SpaceID: dbx.NullID(space)}
		pos, err := s.turnPositions(ctx, tx, se.SpaceID, 2, last)
		if err != nil {
			return err
		}
		if ex.Unmount {
			if err := s.setMount(ctx, tx, ex.SessionID, nil); err != nil {
				return err
			}
		}
		if ex.Mount != nil {
			if err := ex.Mount.Validate(); err != nil {
				return err
			}
			if err := s.checkMountable(ctx, tx, se, ex.Mount.CheckpointID); err != nil {
				return err
			}
			if err := s.setMount(ctx, tx, ex.SessionID, ex.Mount); err != nil {
				return err
			}
		}
		user := s.newTurn(se, smriti.RoleUser, ex.User, last-1, pos-1, now)
		asst := s.newTurn(se, smriti.RoleAssistant, ex.Assistant, last, pos, now)
		if err := s.insertTurns(ctx, tx, []*smriti.Turn{user, asst}, []int64{total - int64(asst.Tokens), total}); err != nil {
			return err
		}
		if ex.IdempotencyKey != "" {
			if _, err := tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO send_keys (session_id, idempotency_key, user_turn_id, assistant_turn_id, created_at, request_hash)
				VALUES (?, ?, ?, ?, ?, ?)`), se.ID, ex.IdempotencyKey, user.ID, asst.ID, s.d.T(now), ex.RequestHash); err != nil {
				return fmt.Errorf("record idempotency key: %w", err)
			}
		}
		res = &contract.ExchangeResult{User: user, Assistant: asst, RequestHash: ex.RequestHash}
		return nil
	})
	if err != nil && dbx.Ambiguous(err) && res != nil && !res.Replayed {
		// The COMMIT's answer was lost: the exchange may be stored.
		found, lerr := s.stored(ctx, "sessions", []smriti.ID{ex.SessionID}, "turns", []smriti.ID{res.User.ID})
		switch {
		case lerr != nil:
			err = errors.Join(err, lerr)
		case found[res.User.ID]:
			s.log.WarnContext(ctx, "commit reported an error but the exchange is stored", "session", ex.SessionID, "err", err)
			err = nil
		}
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// promptTurn copies what a prompt needs of a turn, for the cache.
func promptTurn(t *smriti.Turn) *smriti.Turn {
	return &smriti.Turn{SessionID: t.SessionID, Seq: t.Seq, LogPos: t.LogPos, Role: t.Role, Content: t.Content, Tokens: t.Tokens}
}

// DefaultKeyRetention is how long an idempotency key is kept.
const DefaultKeyRetention = 24 * time.Hour

// keyRetention is the store's retention, DefaultKeyRetention unless set.
func (s *Store) keyRetention() time.Duration {
	if s.KeyRetention > 0 {
		return s.KeyRetention
	}
	return DefaultKeyRetention
}

// PurgeSendKeys deletes the idempotency keys older than the retention, of
// sends and of the other creating writes, and returns how many went.
// Expired keys are already ignored by a replay; purging only reclaims their
// rows.
func (s *Store) PurgeSendKeys(ctx context.Context) (int64, error) {
	res, err := s.write.ExecContext(ctx, s.d.Rebind(`DELETE FROM send_keys WHERE created_at < ?`), s.d.T(s.Now().Add(-s.keyRetention())))
	if err != nil {
		return 0, fmt.Errorf("purge idempotency keys: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, err
	}
	m, err := s.purgeIdempotencyKeys(ctx)
	return n + m, err
}

// ReplayExchange returns the exchange stored under an idempotency key, or
// nil when there is none within the retention.
func (s *Store) ReplayExchange(ctx context.Context, sessionID smriti.ID, key string) (*contract.ExchangeResult, error) {
	if _, err := s.session(ctx, s.read, sessionID, ""); err != nil {
		return nil, err
	}
	return s.replay(ctx, s.read, sessionID, key)
}

func (s *Store) replay(ctx context.Context, q dbx.Querier, sessionID smriti.ID, key string) (*contract.ExchangeResult, error) {
	var userID, asstID smriti.ID
	var hash string
	err := q.QueryRowContext(ctx, s.d.Rebind(`SELECT user_turn_id, assistant_turn_id, request_hash FROM send_keys
		WHERE session_id = ? AND idempotency_key = ? AND created_at >= ?`),
		sessionID, key, s.d.T(s.Now().Add(-s.keyRetention()))).Scan(&userID, &asstID, &hash)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("look up idempotency key: %w", err)
	}
	turns, err := s.queryTurns(ctx, q, `SELECT `+turnCols+` FROM turns WHERE id IN (?, ?) ORDER BY sequence_number`, userID, asstID)
	if err != nil {
		return nil, err
	}
	if len(turns) != 2 {
		return nil, fmt.Errorf("idempotency key %q points at %d turns", key, len(turns))
	}
	return &contract.ExchangeResult{User: turns[0], Assistant: turns[1], Replayed: true, RequestHash: hash}, nil
}

func (s *Store) newTurn(se *smriti.Session, role string, w contract.TurnWrite, seq, pos int64, now time.Time) *smriti.Turn {
	t := &smriti.Turn{
		ID: smriti.NewID(), SessionID: se.ID, SpaceID: se.SpaceID, Role: role, Content: w.Content,
		Provider: w.Provider, Model: w.Model, Seq: seq, LogPos: pos, Tokens: w.Tokens, Metadata: w.Metadata,
	}
	if t.Metadata == nil {
		t.Metadata = map[string]any{}
	}
	t.CreatedAt = now
	return t
}

// insertTurns writes exchanges' turns (user and assistant pairs); totals
// are their running token totals. On an engine with wideWrites they are
// one statement; otherwise prepared inserts of 16, 8 … 1 exchanges write
// them in as few statements as that allows (on SQLite every statement also
// flushes the full-text index's pending terms into a new segment).
func (s *Store) insertTurns(ctx context.Context, tx *sql.Tx, ts []*smriti.Turn, totals []int64) error {
	args, err := s.turnArgs(ts, totals)
	if err != nil {
		return err
	}
	if len(ts) > 2 && s.d.WideWrites {
		if _, err := tx.ExecContext(ctx, s.d.Rebind(sqlInsertTurns(len(ts)/2)), args...); err != nil {
			return fmt.Errorf("insert turns: %w", err)
		}
		return nil
	}
	for pairs := len(ts) / 2; pairs > 0; {
		n := maxInsertPairs
		for n > pairs {
			n /= 2
		}
		st, err := s.stmts.TxStmt(ctx, tx, sqlInsertTurns(n))
		if err != nil {
			return err
		}
		if _, err := st.ExecContext(ctx, args[:26*n]...); err != nil {
			return fmt.Errorf("insert turns: %w", err)
		}
		args, pairs = args[26*n:], pairs-n
	}
	return nil
}

// turnArgs are the arguments of sqlInsertTurns for ts.
func (s *Store) turnArgs(ts []*smriti.Turn, totals []int64) ([]any, error) {
	args := make([]any, 0, 13*len(ts))
	for i, t := range ts {
		meta, err := dbx.JSONArg(t.Metadata)
		if err != nil {
			return nil, err
		}
		args = append(args, t.ID, t.SessionID, dbx.IDArg(t.SpaceID), t.Role, t.Content, t.Provider, t.Model, t.Seq, t.LogPos,
			t.Tokens, totals[i], meta, s.d.T(t.CreatedAt))
	}
	return args, nil
}

// insertTurn writes one turn appended to its session (imports write turns
// one by one, in sequence order): its running token total continues the
// previous turn's, and the session's total grows with it.
func (s *Store) insertTurn(ctx context.Context, tx *sql.Tx, t *smriti.Turn) error {
	meta, err := dbx.JSONArg(t.Metadata)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO turns (id, session_id, space_id, role, content, provider, model,
		sequence_number, log_pos, tokens, token_total, metadata, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
		? + COALESCE((SELECT p.token_total FROM turns p WHERE p.session_id = ? AND p.sequence_number = ?), 0), ?, ?)`),
		t.ID, t.SessionID, dbx.IDArg(t.SpaceID), t.Role, t.Content, t.Provider, t.Model, t.Seq, t.LogPos, t.Tokens,
		t.Tokens, t.SessionID, t.Seq-1, meta, s.d.T(t.CreatedAt))
	if err != nil {
		return fmt.Errorf("insert turn: %w", err)
	}
	if _, err := tx.ExecContext(ctx, s.d.Rebind(`UPDATE sessions SET token_total = token_total + ? WHERE id = ?`), t.Tokens, t.SessionID); err != nil {
		return fmt.Errorf("update session: %w", err)
	}
	return nil
}
