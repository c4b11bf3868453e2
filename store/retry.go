package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"smriti"
	"smriti/store/internal/dbx"
)

// After a failover every pooled connection points at a server that is gone;
// the connections themselves notice (see dbx.Conn), a transaction whose
// connection broke before COMMIT runs again on a fresh one (see Store.tx),
// and any connection-class failure the store reports closes the idle
// connections, so the next requests connect afresh.
//
// A wait for a pooled connection is bounded (Options.AcquireTimeout): a
// pool held by transactions stuck on the database answers ETRYAGAIN (503)
// instead of queueing requests until their clients give up.

// Classify returns err as a smriti.ETRYAGAIN error when it is a
// connection-class database failure, and err unchanged otherwise. Domain
// errors the store raised keep their code.
// A broken connection also closes the idle pooled connections.
func (s *Store) Classify(err error) error {
	err = dbx.Classify(err)
	if smriti.ErrorCode(err) == smriti.ETRYAGAIN {
		var de *smriti.Error
		if errors.As(err, &de) && de.Err != nil && dbx.BrokenConn(de.Err) {
			s.dropIdle()
		}
	}
	return err
}

// dropIdle closes the idle pooled connections.
func (s *Store) dropIdle() {
	if s.d.Name != "postgres" {
		return
	}
	s.read.SetMaxIdleConns(0)
	s.read.SetMaxIdleConns(s.readIdle)
}

// DefaultAcquireTimeout bounds the wait for a pooled connection.
const DefaultAcquireTimeout = 3 * time.Second

func (o Options) acquireTimeout() time.Duration {
	switch {
	case o.AcquireTimeout < 0:
		return 0
	case o.AcquireTimeout == 0:
		return DefaultAcquireTimeout
	}
	return o.AcquireTimeout
}

// errPoolExhausted is a wait for a pooled connection past the bound.
var errPoolExhausted = errors.New("no database connection became free in time")

// beginTx starts a write transaction. On PostgreSQL it first takes a
// connection from the pool within the acquire timeout; the transaction
// gives it back when it ends.
func (s *Store) beginTx(ctx context.Context) (*sql.Tx, func(), error) {
	d := s.opts.acquireTimeout()
	if s.d.Name != "postgres" || d <= 0 {
		tx, err := s.write.BeginTx(ctx, nil)
		return tx, func() {}, err
	}
	c, err := s.writeConn(ctx, d)
	if err != nil {
		return nil, nil, err
	}
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	s.conns.hold(tx, c)
	return tx, func() { s.conns.drop(tx); c.Close() }, nil
}

// writeConn takes a connection from the write pool, waiting at most d for
// one to become free (then smriti.ETRYAGAIN).
func (s *Store) writeConn(ctx context.Context, d time.Duration) (*sql.Conn, error) {
	actx, cancel := context.WithTimeout(ctx, d)
	c, err := s.write.Conn(actx)
	cancel()
	if err != nil {
		if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			return nil, &smriti.Error{Code: smriti.ETRYAGAIN, Message: dbx.UnavailableMessage,
				Err: fmt.Errorf("%w (waited %s for one of %d)", errPoolExhausted, d, s.opts.maxConns())}
		}
		return nil, err
	}
	return c, nil
}
