package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"time"

	"smriti"
	"smriti/contract"
	"smriti/store/internal/dbx"
)

// Group commit: concurrent plain sends (no idempotency key, no new mount)
// are written in one transaction. Whoever finds no transaction running
// leads: it takes every exchange queued so far, writes them together and
// hands the lead to the first exchange queued meanwhile. A lone send is
// written at once, so nothing waits for a batch to fill; under load one
// commit (and, on PostgreSQL, one hold of each space's log row) serves
// many sends.
//
// Each exchange keeps the semantics of writing it alone: its session's row
// is bumped under the session's lock (taken in session-id order within a
// batch, then the spaces' log rows in space-id order, so lock order stays
// fixed across replicas), its
// two turns take consecutive sequence numbers and log positions, and an
// unknown session fails only that exchange. Any other error fails the
// batch's transaction, and then each exchange is written on its own.
// The batching itself is a groupcommit.Queue (s.group).

// maxGroup bounds the exchanges written in one transaction.
const maxGroup = 64

// groupWait bounds how long a leader waits for its batch to fill. It only
// waits after a batch of more than one exchange, so a lone send never does.
// On PostgreSQL a leader does not wait (see waitsForBatch).
const groupWait = time.Millisecond

// waitsForBatch reports whether a leader waits for its batch to fill. On
// SQLite every batch queues for the one writer, and a fuller one saves a
// COMMIT. On PostgreSQL, where batches of several replicas commit in
// parallel, measured with replicas held to a CPU quota the wait grew batches
// by less than 3 % and cost each send more replica CPU (the leader parks,
// and its replica idles and wakes again) than the saved commits gave back.
func (s *Store) waitsForBatch() bool { return !s.d.WideWrites }

type pendingExchange struct {
	ctx context.Context
	ex  contract.Exchange
	res *contract.ExchangeResult
	err error
	// retry: after the batch failed, write this exchange on its own.
	retry bool
}

// grouped reports whether an exchange may be written in a group.
func grouped(ex contract.Exchange) bool {
	return ex.IdempotencyKey == "" && ex.Mount == nil && !ex.Unmount
}

func (s *Store) appendGrouped(ctx context.Context, ex contract.Exchange) (*contract.ExchangeResult, error) {
	p := &pendingExchange{ctx: ctx, ex: ex}
	s.group.Do(p, s.writeGroup)
	return p.res, p.err
}

// writeGroup writes a batch and leaves every exchange's result in it.
func (s *Store) writeGroup(batch []*pendingExchange) {
	live := make([]*pendingExchange, 0, len(batch))
	for _, p := range batch {
		if err := p.ctx.Err(); err != nil {
			p.err = fmt.Errorf("append exchange: %w", err)
			continue
		}
		live = append(live, p)
	}
	// Session locks in id order; one session's exchanges keep their order.
	sort.SliceStable(live, func(i, j int) bool {
		a, b := live[i].ex.SessionID, live[j].ex.SessionID
		return bytes.Compare(a[:], b[:]) < 0
	})
	if len(live) > 0 {
		for _, p := range live {
			p.retry = true
		}
		ctx := context.WithoutCancel(live[0].ctx)
		var err error
		done := false
		if s.pipelines(ctx) {
			done, err = s.writeGroupPipelined(ctx, live)
		}
		if !done {
			err = s.tx(ctx, func(tx *sql.Tx) error { return s.writeGroupTx(tx, live) })
		}
		if err != nil && dbx.Ambiguous(err) {
			// COMMIT failed after it was sent: the batch may be stored.
			// Writing it again would store it twice; answer from what is
			// there, and write again only what is surely not.
			live = s.settleGroup(live, err)
		}
		if err != nil {
			// Write each on its own: the error goes to the exchange it
			// belongs to, and the others are not held back by it.
			for _, p := range live {
				if p.retry {
					p.res, p.err = s.appendOne(p.ctx, p.ex)
				}
			}
		}
		for _, p := range live {
			if p.err == nil {
				s.cache.Extend(p.ex.SessionID, p.res.User.SpaceID, []*smriti.Turn{promptTurn(p.res.User), promptTurn(p.res.Assistant)})
			}
		}
	}
}

// settleGroup looks up a batch whose COMMIT failed, once the transaction
// has ended (the sessions' rows it locked are free again): an exchange
// whose turns are stored succeeds with them, one whose turns are not is
// written again on its own. When the look-up fails too, nobody can tell,
// and every exchange gets the error.
func (s *Store) settleGroup(live []*pendingExchange, commitErr error) []*pendingExchange {
	var sessions, turns []smriti.ID
	for _, p := range live {
		if p.res != nil {
			sessions = append(sessions, p.ex.SessionID)
			turns = append(turns, p.res.User.ID)
		}
	}
	found, err := s.stored(live[0].ctx, "sessions", sessions, "turns", turns)
	for _, p := range live {
		switch {
		case p.res == nil:
			// Failed inside the batch (unknown session): that answer stands.
			p.retry = false
		case err != nil:
			p.res, p.err, p.retry = nil, errors.Join(commitErr, err), false
		case found[p.res.User.ID]:
			p.retry = false
		default:
			p.res, p.retry = nil, true
		}
	}
	if err == nil && len(found) > 0 {
		s.log.Warn("commit reported an error but the batch is stored", "exchanges", len(found), "err", commitErr)
	}
	return live
}

// writeGroupTx writes a batch sorted by session: each run of one session's
// exchanges (for one caller) bumps the session's row once, each space's log
// row is taken once for the batch, and the turns are inserted together.
func (s *Store) writeGroupTx(tx *sql.Tx, live []*pendingExchange) error {
	ctx := context.WithoutCancel(live[0].ctx)
	now := s.Now()
	runs := groupRuns(live)
	if err := s.bumpRuns(ctx, tx, runs, now); err != nil {
		return err
	}
	turns, totals := s.groupTurns(live, runs, now)
	if len(turns) == 0 {
		return nil
	}
	if err := s.batchPositions(ctx, tx, turns); err != nil {
		return err
	}
	return s.insertTurns(ctx, tx, turns, totals)
}

// groupTurns makes the turns of a bumped batch's runs, with their running
// token totals, and each written exchange's result; an exchange whose
// run failed gets the run's error.
func (s *Store) groupTurns(live []*pendingExchange, runs []*sessionRun, now time.Time) ([]*smriti.Turn, []int64) {
	turns := make([]*smriti.Turn, 0, 2*len(live))
	totals := make([]int64, 0, 2*len(live))
	for _, r := range runs {
		if r.err != nil {
			for _, p := range r.ps {
				p.err = r.err
			}
			continue
		}
		se := &smriti.Session{ID: r.session, SpaceID: r.space}
		seq, sum := r.last-int64(2*len(r.ps)), r.total-int64(r.tokens)
		for _, p := range r.ps {
			user := s.newTurn(se, smriti.RoleUser, p.ex.User, seq+1, 0, now)
			asst := s.newTurn(se, smriti.RoleAssistant, p.ex.Assistant, seq+2, 0, now)
			seq += 2
			sum += int64(user.Tokens)
			totals = append(totals, sum)
			sum += int64(asst.Tokens)
			totals = append(totals, sum)
			turns = append(turns, user, asst)
			p.res = &contract.ExchangeResult{User: user, Assistant: asst, RequestHash: p.ex.RequestHash}
		}
	}
	return turns, totals
}

// batchPositions gives a batch's turns their log positions: each space's log
// is taken once, in space-id order (lock order stays fixed however batches
// mix spaces), and a space's turns take its positions in batch order, so a
// session's turns stay in sequence order. Turns of sessions without a space
// are numbered by their sequence number (from 1) where each space has its
// own log.
func (s *Store) batchPositions(ctx context.Context, tx *sql.Tx, turns []*smriti.Turn) error {
	if !s.d.SpaceLog {
		pos, err := s.nextLogPositions(ctx, tx, smriti.ID{}, len(turns))
		if err != nil {
			return err
		}
		pos -= int64(len(turns))
		for _, t := range turns {
			pos++
			t.LogPos = pos
		}
		return nil
	}
	spaces, counts := spaceCounts(turns)
	next := make(map[smriti.ID]int64, len(spaces))
	if s.d.WideWrites && len(spaces) > 1 {
		// One statement (one round trip) for every space's log.
		last, err := s.nextSpacePositions(ctx, tx, spaces, counts)
		if err != nil {
			return err
		}
		for _, sp := range spaces {
			next[sp] = last[sp] - int64(counts[sp]) + 1
		}
	}
	for _, sp := range spaces {
		if _, ok := next[sp]; ok {
			continue
		}
		last, err := s.nextLogPositions(ctx, tx, sp, counts[sp])
		if err != nil {
			return err
		}
		next[sp] = last - int64(counts[sp]) + 1
	}
	assignPositions(turns, next)
	return nil
}

// spaceCounts lists the spaces of a batch's turns in space-id order, with
// the positions each needs; a turn of a session without a space is
// numbered by its sequence number (from 1) here.
func spaceCounts(turns []*smriti.Turn) ([]smriti.ID, map[smriti.ID]int) {
	counts := map[smriti.ID]int{}
	var spaces []smriti.ID
	for _, t := range turns {
		if t.SpaceID == nil {
			t.LogPos = t.Seq + 1
			continue
		}
		if counts[*t.SpaceID] == 0 {
			spaces = append(spaces, *t.SpaceID)
		}
		counts[*t.SpaceID]++
	}
	sort.Slice(spaces, func(i, j int) bool { return bytes.Compare(spaces[i][:], spaces[j][:]) < 0 })
	return spaces, counts
}

// assignPositions gives each space's turns, in batch order, the positions
// from next[space] on.
func assignPositions(turns []*smriti.Turn, next map[smriti.ID]int64) {
	for _, t := range turns {
		if t.SpaceID != nil {
			t.LogPos = next[*t.SpaceID]
			next[*t.SpaceID]++
		}
	}
}
