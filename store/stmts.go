package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
)

// stmts holds the statements of the send path, prepared once per pool and
// reused on every connection (database/sql prepares a statement on a
// connection the first time it runs there), so a send does not pay for
// parsing its SQL again.
type stmts struct {
	mu sync.Mutex
	m  map[stmtKey]*sql.Stmt
}

type stmtKey struct {
	db    *sql.DB
	query string
}

// prepared returns query (written with ? placeholders) prepared on db.
func (s *Store) prepared(ctx context.Context, db *sql.DB, query string) (*sql.Stmt, error) {
	k := stmtKey{db, query}
	s.stmts.mu.Lock()
	defer s.stmts.mu.Unlock()
	if st, ok := s.stmts.m[k]; ok {
		return st, nil
	}
	st, err := db.PrepareContext(ctx, s.d.rebind(query))
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	if s.stmts.m == nil {
		s.stmts.m = map[stmtKey]*sql.Stmt{}
	}
	s.stmts.m[k] = st
	return st, nil
}

// txStmt is query prepared for use inside tx (which runs on the write pool).
func (s *Store) txStmt(ctx context.Context, tx *sql.Tx, query string) (*sql.Stmt, error) {
	st, err := s.prepared(ctx, s.write, query)
	if err != nil {
		return nil, err
	}
	return tx.StmtContext(ctx, st), nil
}

func (s *Store) closeStmts() {
	s.stmts.mu.Lock()
	defer s.stmts.mu.Unlock()
	for k, st := range s.stmts.m {
		st.Close()
		delete(s.stmts.m, k)
	}
}
