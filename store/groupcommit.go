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

	"smriti"
)

// Group commit: concurrent plain sends (no idempotency key, no new mount)
// are written in one transaction. Whoever finds no transaction running
// leads: it takes every exchange queued so far, writes them together and
// hands the lead to the first exchange queued meanwhile. A lone send is
// written at once, so nothing waits for a batch to fill; under load one
// commit (and, on PostgreSQL, one hold of the store-wide log row) serves
// many sends.
//
// Each exchange keeps the semantics of writing it alone: its session's row
// is bumped under the session's lock (taken in session-id order within a
// batch, then the log row, so lock order stays fixed across replicas), its
// two turns take consecutive sequence numbers and log positions, and an
// unknown session fails only that exchange. Any other error fails the
// batch's transaction, and then each exchange is written on its own.
type groupCommit struct {
	mu    sync.Mutex
	queue []*pendingExchange
	busy  bool
}

// maxGroup bounds the exchanges written in one transaction.
const maxGroup = 64

type pendingExchange struct {
	ctx  context.Context
	ex   smriti.Exchange
	done chan groupResult // buffered: the lead, then the result
	res  *smriti.ExchangeResult
	err  error
}

type groupResult struct {
	lead bool
	res  *smriti.ExchangeResult
	err  error
}

// grouped reports whether an exchange may be written in a group.
func grouped(ex smriti.Exchange) bool { return ex.IdempotencyKey == "" && ex.Mount == nil }

func (s *Store) appendGrouped(ctx context.Context, ex smriti.Exchange) (*smriti.ExchangeResult, error) {
	p := &pendingExchange{ctx: ctx, ex: ex, done: make(chan groupResult, 1)}
	g := &s.group
	g.mu.Lock()
	g.queue = append(g.queue, p)
	lead := !g.busy
	g.busy = true
	g.mu.Unlock()
	if !lead {
		if r := <-p.done; !r.lead {
			return r.res, r.err
		}
	}
	// Leading: p is at the head of the queue.
	g.mu.Lock()
	batch := g.queue[:min(len(g.queue), maxGroup)]
	g.queue = append([]*pendingExchange(nil), g.queue[len(batch):]...)
	g.mu.Unlock()
	s.writeGroup(batch)
	g.mu.Lock()
	if len(g.queue) > 0 {
		g.queue[0].done <- groupResult{lead: true}
	} else {
		g.busy = false
	}
	g.mu.Unlock()
	r := <-p.done
	return r.res, r.err
}

// writeGroup writes a batch and delivers every exchange's result.
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
		err := s.tx(context.WithoutCancel(live[0].ctx), func(tx *sql.Tx) error { return s.writeGroupTx(tx, live) })
		if err != nil {
			// Write each on its own: the error goes to the exchange it
			// belongs to, and the others are not held back by it.
			for _, p := range live {
				p.res, p.err = s.appendOne(p.ctx, p.ex)
			}
		}
		for _, p := range live {
			if p.err == nil {
				s.cache.extend(p.ex.SessionID, []*smriti.Turn{promptTurn(p.res.User), promptTurn(p.res.Assistant)})
			}
		}
	}
	for _, p := range batch {
		p.done <- groupResult{res: p.res, err: p.err}
	}
}

func (s *Store) writeGroupTx(tx *sql.Tx, live []*pendingExchange) error {
	ctx := context.WithoutCancel(live[0].ctx)
	upd, err := s.txStmt(ctx, tx, sqlBumpSession)
	if err != nil {
		return err
	}
	type bumped struct {
		p           *pendingExchange
		last, total int64
		space       uuid.NullUUID
	}
	rows := make([]bumped, 0, len(live))
	now := s.Now()
	for _, p := range live {
		p.res, p.err = nil, nil
		ex := p.ex
		var provider, model any = ex.Assistant.Provider, ex.Assistant.Model
		if ex.KeepSessionModel {
			provider, model = nil, nil
		}
		b := bumped{p: p}
		err := upd.QueryRowContext(ctx, ex.User.Tokens+ex.Assistant.Tokens, provider, model, s.d.t(now),
			ex.SessionID, smriti.UserFromContext(p.ctx)).Scan(&b.last, &b.total, &b.space)
		if errors.Is(err, sql.ErrNoRows) {
			p.err = errSessionNotFound
			continue
		}
		if err != nil {
			return fmt.Errorf("update session: %w", err)
		}
		rows = append(rows, b)
	}
	if len(rows) == 0 {
		return nil
	}
	pos, err := s.nextLogPositions(ctx, tx, 2*len(rows))
	if err != nil {
		return err
	}
	pos -= int64(2 * len(rows))
	for _, b := range rows {
		ex := b.p.ex
		se := &smriti.Session{ID: ex.SessionID, SpaceID: nullID(b.space)}
		user := s.newTurn(se, smriti.RoleUser, ex.User, b.last-1, pos+1, now)
		asst := s.newTurn(se, smriti.RoleAssistant, ex.Assistant, b.last, pos+2, now)
		pos += 2
		if err := s.insertTurns(ctx, tx, [2]*smriti.Turn{user, asst}, [2]int64{b.total - int64(asst.Tokens), b.total}); err != nil {
			return err
		}
		b.p.res = &smriti.ExchangeResult{User: user, Assistant: asst, RequestHash: ex.RequestHash}
	}
	return nil
}
