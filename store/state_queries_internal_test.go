package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"path/filepath"
	"smriti/coord"
	"sync/atomic"
	"testing"

	"smriti"
)

// countingConnector wraps the engine's driver so a test can count the
// statements a store method runs.
type countingConnector struct {
	dsn string
	d   driver.Driver
	n   *atomic.Int64
}

func (c countingConnector) Connect(context.Context) (driver.Conn, error) {
	conn, err := c.d.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	return countingConn{conn, c.n}, nil
}

func (c countingConnector) Driver() driver.Driver { return c.d }

type countingConn struct {
	driver.Conn
	n *atomic.Int64
}

func (c countingConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	c.n.Add(1)
	return c.Conn.(driver.QueryerContext).QueryContext(ctx, q, args)
}

func (c countingConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	c.n.Add(1)
	return c.Conn.(driver.ExecerContext).ExecContext(ctx, q, args)
}

func (c countingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

func (c countingConn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	c.n.Add(1)
	return c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, q)
}

// The state brief runs the same number of queries whatever the number of
// branches, claims and checkpoints: no query per branch.
func TestSpaceStateQueryCountIsBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q.db")
	s, err := Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var n atomic.Int64
	conn := "file:" + path + "?_pragma=foreign_keys(1)&_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)"
	counted := sql.OpenDB(countingConnector{dsn: conn, d: s.read.Driver(), n: &n})
	defer counted.Close()
	ctx := context.Background()
	sp, _ := s.CreateSpace(ctx, smriti.SpaceCreate{Name: "q"})
	se, _ := s.CreateSession(ctx, smriti.SessionCreate{SpaceID: &sp.ID, Provider: "mock", Model: "m"})
	commit := func(se *smriti.Session, d string) *smriti.Checkpoint {
		c, err := s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: se.ID,
			Content: smriti.Content{Message: "m", Decisions: []string{d}}})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	base := commit(se, "main")
	for i := 0; i < 6; i++ {
		commit(se, "main")
	}
	measure := func() int64 {
		plain := s.read
		s.read = counted
		defer func() { s.read = plain }()
		n.Store(0)
		if _, err := s.SpaceState(ctx, sp.ID, coord.StateQuery{Since: &base.ID, SessionID: &se.ID}); err != nil {
			t.Fatal(err)
		}
		return n.Load()
	}
	var counts []int64
	for round, branches := range []int{1, 30} {
		for b := 0; b < branches; b++ {
			fork, err := s.ForkSession(ctx, smriti.ForkCreate{SpaceID: sp.ID, CheckpointID: base.ID, BranchName: fmt.Sprintf("r%d-b%d", round, b)})
			if err != nil {
				t.Fatal(err)
			}
			commit(fork, fmt.Sprintf("branch %d", b))
		}
		for c := 0; c < 12; c++ {
			if _, _, err := s.CreateClaim(ctx, coord.ClaimCreate{SpaceID: sp.ID, Agent: "a", Scope: fmt.Sprintf("s%d-%d", round, c)}); err != nil {
				t.Fatal(err)
			}
		}
		counts = append(counts, measure())
	}
	// space, main head, latest session, session, branch heads, claims (+count
	// when cut), since checkpoint, main checkpoints after it (+count when cut).
	if counts[0] != counts[1] || counts[1] != 10 {
		t.Fatalf("queries with 1 and 31 branches = %v, want 10 both times", counts)
	}
}
