package dbx

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// CopyFrom writes n rows into table's columns cols with PostgreSQL's COPY,
// on the connection c holds and inside the transaction open on it, if
// any: row(i) is the values of row i, as a statement's arguments would
// be, and they are encoded as they would be.
func CopyFrom(ctx context.Context, c *sql.Conn, table string, cols []string, n int, row func(i int) []any) error {
	return c.Raw(func(dc any) error {
		var pc *pgx.Conn
		switch v := dc.(type) {
		case *Conn:
			pc = v.Conn.Conn()
		case *stdlib.Conn:
			pc = v.Conn()
		default:
			return fmt.Errorf("copy into %s: not a PostgreSQL connection (%T)", table, dc)
		}
		_, err := pc.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromSlice(n, func(i int) ([]any, error) { return row(i), nil }))
		return err
	})
}
