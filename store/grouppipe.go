package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"smriti"
	"smriti/idempotency"
	"smriti/store/internal/dbx"
)

// Pipelined group commit. Through database/sql a batch's transaction is
// five round trips (BEGIN, the sessions' bump, the logs' positions, the
// turns' insert, COMMIT), and each costs the replica a write and a read on
// the connection, a park and a wake: with several replicas each one's
// batches are small, and that per-batch cost is a large share of a send's.
// On PostgreSQL the batch is written on the connection's own pgx.Conn in
// three: BEGIN with the bump, the positions (which need the bump's
// answer), and the insert with COMMIT. The statements, their order (so the
// locks they take) and their results are writeGroupTx's.
//
// Anything out of the common way before COMMIT is sent (an error, a
// session that may not be written, a space without a log row) rolls the
// transaction back, and the batch is written by writeGroupTx as before,
// which answers it as it always has. A COMMIT sent and not answered is an
// ambiguous commit as writeGroupTx's would be.

// pipelines reports whether writeGroup writes a batch pipelined: on
// PostgreSQL, but not through a transaction-mode pooler (where the store
// prepares nothing), and not with test faults set (they hook s.tx's COMMIT).
func (s *Store) pipelines(ctx context.Context) bool {
	return s.d.Name == "postgres" && s.d.WideWrites && s.d.SpaceLog && !s.unprepared() &&
		s.faults.beforeCommit == nil && s.faults.afterCommit == nil && idempotency.ClaimFrom(ctx) == nil
}

// errNotPgx: the pool's connection is not a pgx one.
var errNotPgx = errors.New("not a pgx connection")

// writeGroupPipelined writes a sorted batch as writeGroupTx does, pipelined.
// done is false when nothing was stored and the batch is still to be
// written; with done, err is the transaction's error (an ambiguous commit,
// or no connection free in time).
func (s *Store) writeGroupPipelined(ctx context.Context, live []*pendingExchange) (done bool, err error) {
	var c *sql.Conn
	if d := s.opts.acquireTimeout(); d > 0 {
		c, err = s.writeConn(ctx, d)
	} else {
		c, err = s.write.Conn(ctx)
	}
	if err != nil {
		if errors.Is(err, errPoolExhausted) {
			return true, fmt.Errorf("begin: %w", err)
		}
		return false, nil
	}
	defer c.Close()
	rawErr := c.Raw(func(dc any) error {
		pc, ok := dc.(*dbx.Conn)
		if !ok {
			return errNotPgx
		}
		done, err = s.pipelineGroup(ctx, pc.Conn.Conn(), live)
		return nil
	})
	if rawErr != nil {
		return false, nil
	}
	if done && err == nil {
		s.ckpt.Wrote()
	}
	return done, err
}

// pipelineGroup runs the batch's transaction on pc.
func (s *Store) pipelineGroup(ctx context.Context, pc *pgx.Conn, live []*pendingExchange) (done bool, err error) {
	defer func() {
		if !done {
			// Nothing is stored: end the transaction, or the connection.
			if !pc.IsClosed() && pc.PgConn().TxStatus() != 'I' {
				if _, err := pc.Exec(ctx, "rollback"); err != nil {
					pc.Close(ctx)
				}
			}
		} else if err != nil && !pc.IsClosed() && pc.PgConn().TxStatus() != 'I' {
			pc.Close(ctx)
		}
	}()
	now := s.Now()
	runs := groupRuns(live)
	for i := 1; i < len(runs); i++ {
		if runs[i].session == runs[i-1].session {
			return false, nil // one statement per run: writeGroupTx's way
		}
	}
	// 1: BEGIN and the sessions' bump, and when every session's space is
	// known from earlier batches, the logs' positions.
	b := &pgx.Batch{}
	b.Queue("begin")
	var byID map[smriti.ID]*sessionRun
	if len(runs) > 1 {
		var args []any
		args, byID = s.wideBumpArgs(runs, now)
		b.Queue(sqlGenericPlans)
		b.Queue(s.d.Rebind(sqlBumpSessions), args...)
	} else {
		b.Queue(s.d.Rebind(sqlBumpSession), s.bumpArgs(runs[0], now)...)
	}
	guess, guessed := s.spaceOf.guess(runs)
	var spaces []smriti.ID
	var counts map[smriti.ID]int
	if guessed {
		spaces, counts = guessCounts(runs, guess)
		s.queuePositions(b, spaces, counts)
	}
	br := pc.SendBatch(ctx, b)
	ok := readBump(br, runs, byID)
	var next map[smriti.ID]int64
	if ok && guessed {
		next, ok = readPositions(br, spaces, counts)
	}
	if err := br.Close(); err != nil || !ok {
		return false, nil
	}
	for _, r := range runs {
		if r.err != nil {
			return false, nil
		}
	}
	s.spaceOf.learn(runs)
	for i, r := range runs {
		if guessed && !sameSpace(r.space, guess[i]) {
			return false, nil // the session moved: its positions are another log's
		}
	}
	turns, totals := s.groupTurns(live, runs, now)
	if guessed {
		for _, t := range turns {
			if t.SpaceID == nil {
				t.LogPos = t.Seq + 1
			}
		}
		assignPositions(turns, next)
	} else if spaces, counts = spaceCounts(turns); len(spaces) > 0 {
		// 2: the logs' positions.
		b = &pgx.Batch{}
		s.queuePositions(b, spaces, counts)
		br = pc.SendBatch(ctx, b)
		next, ok = readPositions(br, spaces, counts)
		if err := br.Close(); err != nil || !ok {
			return false, nil
		}
		assignPositions(turns, next)
	}
	args, err := s.turnArgs(turns, totals)
	if err != nil {
		return false, nil
	}
	// 3: the turns and COMMIT.
	b = &pgx.Batch{}
	b.Queue(s.d.Rebind(sqlInsertTurns(len(turns)/2)), args...)
	b.Queue("commit")
	br = pc.SendBatch(ctx, b)
	if _, err := br.Exec(); err != nil {
		br.Close()
		var pg *pgconn.PgError
		if errors.As(err, &pg) || pgconn.SafeToRetry(err) {
			// The insert failed (the server skipped COMMIT after it), or
			// nothing was sent.
			return false, nil
		}
		return true, &dbx.CommitError{Err: err}
	}
	_, err = br.Exec()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return true, &dbx.CommitError{Err: err}
	}
	return true, nil
}

// sqlGenericPlans has the transaction run its prepared statements on their
// generic plans. The wide bump's custom plan (the arrays' lengths known)
// looks cheaper to PostgreSQL's planner than its generic one, so it is
// planned again on every execution, which cost as much CPU as executing it
// (about 0.6 ms a batch); its generic plan is the same plan: the sessions'
// rows by their key, locked in id order, the members by user.
const sqlGenericPlans = `SET LOCAL plan_cache_mode = force_generic_plan`

// readBump reads BEGIN's and the bump's results into runs (byID set: the
// wide bump, after sqlGenericPlans), false on an error.
func readBump(br pgx.BatchResults, runs []*sessionRun, byID map[smriti.ID]*sessionRun) bool {
	if _, err := br.Exec(); err != nil {
		return false
	}
	if byID != nil {
		if _, err := br.Exec(); err != nil {
			return false
		}
	}
	if byID == nil {
		r := runs[0]
		var space uuid.NullUUID
		if err := br.QueryRow().Scan(&r.last, &r.total, &space); err != nil {
			return false // no row: writeGroupTx tells why
		}
		r.space = dbx.NullID(space)
		return true
	}
	rows, err := br.Query()
	if err != nil {
		return false
	}
	defer rows.Close()
	for rows.Next() {
		var id smriti.ID
		var last, total int64
		var space uuid.NullUUID
		if err := rows.Scan(&id, &last, &total, &space); err != nil {
			return false
		}
		if r := byID[id]; r != nil {
			r.last, r.total, r.space, r.err = last, total, dbx.NullID(space), nil
		}
	}
	rows.Close()
	return rows.Err() == nil
}

// queuePositions queues the statement that reserves counts[sp] positions
// in each space's log (spaces sorted by id), as batchPositions runs it.
func (s *Store) queuePositions(b *pgx.Batch, spaces []smriti.ID, counts map[smriti.ID]int) {
	if len(spaces) == 0 {
		return
	}
	if len(spaces) == 1 {
		b.Queue(s.d.Rebind(sqlNextSpaceLogPos), counts[spaces[0]], spaces[0])
		return
	}
	ids, ns := make([]string, len(spaces)), make([]int64, len(spaces))
	for i, sp := range spaces {
		ids[i], ns[i] = sp.String(), int64(counts[sp])
	}
	b.Queue(s.d.Rebind(sqlNextSpacePositions), ids, ns, ids)
}

// readPositions reads queuePositions' answer: each space's first reserved
// position.
func readPositions(br pgx.BatchResults, spaces []smriti.ID, counts map[smriti.ID]int) (map[smriti.ID]int64, bool) {
	next := make(map[smriti.ID]int64, len(spaces))
	if len(spaces) == 0 {
		return next, true
	}
	if len(spaces) == 1 {
		sp := spaces[0]
		var last int64
		if err := br.QueryRow().Scan(&last); err != nil {
			return nil, false
		}
		next[sp] = last - int64(counts[sp]) + 1
		return next, true
	}
	rows, err := br.Query()
	if err != nil {
		return nil, false
	}
	defer rows.Close()
	for rows.Next() {
		var sp smriti.ID
		var last int64
		if err := rows.Scan(&sp, &last); err != nil {
			return nil, false
		}
		next[sp] = last - int64(counts[sp]) + 1
	}
	rows.Close()
	if rows.Err() != nil || len(next) != len(spaces) {
		return nil, false
	}
	return next, true
}

// sessionSpaces remembers each session's space as the group commit's bump
// last returned it, so the next batch can reserve the logs' positions in
// the bump's round trip. A guess is checked against the bump's answer (a
// session moved to another space sends its batch the longer way); the
// memory is bounded and forgotten when full.
type sessionSpaces struct {
	mu sync.Mutex
	m  map[smriti.ID]*smriti.ID
}

const maxSessionSpaces = 1 << 14

// guess returns each run's session's space, ok when every one is known.
func (ss *sessionSpaces) guess(runs []*sessionRun) ([]*smriti.ID, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	out := make([]*smriti.ID, len(runs))
	for i, r := range runs {
		sp, ok := ss.m[r.session]
		if !ok {
			return nil, false
		}
		out[i] = sp
	}
	return out, true
}

// learn notes the spaces the bump returned.
func (ss *sessionSpaces) learn(runs []*sessionRun) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.m == nil || len(ss.m)+len(runs) > maxSessionSpaces {
		ss.m = make(map[smriti.ID]*smriti.ID, len(runs))
	}
	for _, r := range runs {
		ss.m[r.session] = r.space
	}
}

// guessCounts is spaceCounts for the guessed spaces: each run's exchanges
// take two positions each in its session's space's log.
func guessCounts(runs []*sessionRun, guess []*smriti.ID) ([]smriti.ID, map[smriti.ID]int) {
	counts := map[smriti.ID]int{}
	var spaces []smriti.ID
	for i, r := range runs {
		sp := guess[i]
		if sp == nil {
			continue
		}
		if counts[*sp] == 0 {
			spaces = append(spaces, *sp)
		}
		counts[*sp] += 2 * len(r.ps)
	}
	sort.Slice(spaces, func(i, j int) bool { return bytes.Compare(spaces[i][:], spaces[j][:]) < 0 })
	return spaces, counts
}

func sameSpace(a, b *smriti.ID) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
