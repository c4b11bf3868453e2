package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"

	"smriti/store/internal/dbx"
)

// importCopy writes the rows of a space import into PostgreSQL with COPY
// instead of multi-row inserts: the same rows, columns and values, but
// streamed in the binary format, so the server neither parses nor plans a
// statement per batch nor evaluates a VALUES list row by row, and this
// process encodes each value once instead of building a statement's
// arguments. Triggers, foreign keys and the generated search columns act
// on each row as they do on an insert's.
//
// COPY needs the connection itself, not database/sql's transaction: the
// import's transaction is begun on a connection of its own (beginTx), and
// the COPY runs on that connection, inside the transaction.
type importCopy struct {
	conn *sql.Conn
	// min is the fewest pending rows that go by COPY.
	min int
	// targets is each insert's table and columns, by the insert's head.
	targets map[string]copyTarget
	// copied counts the rows copied into each table.
	copied map[string]int
}

type copyTarget struct {
	table string
	cols  []string
}

// copyMinRows: fewer pending rows than this go by insert; a COPY takes
// more round trips than one prepared statement. (Store.copyMinRows, set by
// tests, replaces it: negative, no COPY.)
const copyMinRows = 8

// txConns is the connection each PostgreSQL write transaction was begun
// on, by transaction.
type txConns struct{ m sync.Map }

func (c *txConns) hold(tx *sql.Tx, conn *sql.Conn) { c.m.Store(tx, conn) }
func (c *txConns) drop(tx *sql.Tx)                 { c.m.Delete(tx) }

func (c *txConns) of(tx *sql.Tx) *sql.Conn {
	if v, ok := c.m.Load(tx); ok {
		return v.(*sql.Conn)
	}
	return nil
}

// importCopier is the COPY writer of an import running in tx: nil on
// SQLite, and when tx was not begun on a connection of its own (the rows
// then go by insert).
func (s *Store) importCopier(tx *sql.Tx) *importCopy {
	if s.d.Name != "postgres" || s.copyMinRows < 0 {
		return nil
	}
	conn := s.conns.of(tx)
	if conn == nil {
		return nil
	}
	min := copyMinRows
	if s.copyMinRows > 0 {
		min = s.copyMinRows
	}
	return &importCopy{conn: conn, min: min, targets: map[string]copyTarget{}, copied: map[string]int{}}
}

// write copies p's rows, cols values each, into the table and columns
// head (an INSERT … VALUES) names, and empties p.
func (c *importCopy) write(ctx context.Context, p *pendingRows, head string, cols int, what string) error {
	t, ok := c.targets[head]
	if !ok {
		var err error
		if t, err = parseInsertHead(head); err != nil {
			return err
		}
		c.targets[head] = t
	}
	if len(t.cols) != cols {
		return fmt.Errorf("%s: %d columns named, %d values a row", what, len(t.cols), cols)
	}
	args := p.args
	if err := dbx.CopyFrom(ctx, c.conn, t.table, t.cols, p.rows, func(i int) []any { return args[i*cols : (i+1)*cols] }); err != nil {
		return importConflict(fmt.Errorf("%s: %w", what, err))
	}
	c.copied[t.table] += p.rows
	clear(p.args)
	p.args, p.rows = p.args[:0], 0
	return nil
}

// parseInsertHead reads the table and columns of "INSERT INTO table (a,
// b, …) VALUES ".
func parseInsertHead(head string) (copyTarget, error) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(head), "INSERT INTO ")
	table, rest, ok2 := strings.Cut(rest, "(")
	list, tail, ok3 := strings.Cut(rest, ")")
	if !ok || !ok2 || !ok3 || strings.TrimSpace(tail) != "VALUES" {
		return copyTarget{}, fmt.Errorf("import: cannot copy by %q", head)
	}
	t := copyTarget{table: strings.TrimSpace(table)}
	for _, c := range strings.Split(list, ",") {
		t.cols = append(t.cols, strings.TrimSpace(c))
	}
	return t, nil
}

// analyzeMinRows: an import that copied fewer rows into a table leaves its
// statistics to autovacuum.
const analyzeMinRows = 1000

// analyzeCopied refreshes the planner's statistics of each table an
// import (committed) copied many rows into: at least analyzeMinRows and a
// tenth of the rows the table was last counted to hold, or any number if
// it was never counted. Autovacuum would, within a minute or so; until
// then a table that was empty before a clone (a new server's) has no
// statistics, and reads of the cloned space (a page of items by
// checkpoint) scan the whole table instead of its index. Best effort: a
// failure is logged, the import stands.
func (s *Store) analyzeCopied(ctx context.Context, c *importCopy) {
	if c == nil {
		return
	}
	for table, n := range c.copied {
		if n < analyzeMinRows {
			continue
		}
		var counted float64
		if err := s.write.QueryRowContext(ctx, `SELECT reltuples FROM pg_class WHERE oid = to_regclass($1)`, table).Scan(&counted); err != nil {
			s.log.WarnContext(ctx, "import: read the table's statistics", "table", table, "err", err)
			continue
		}
		if counted >= 0 && float64(n) < counted/10 {
			continue
		}
		if _, err := s.write.ExecContext(ctx, `ANALYZE `+table); err != nil {
			s.log.WarnContext(ctx, "import: analyze", "table", table, "err", err)
		}
	}
}
