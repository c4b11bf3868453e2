package store

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// dialect is every difference between the two engines, by name.
type dialect struct {
	name string
	// forUpdate locks the selected rows until the transaction ends. SQLite
	// has one writer, so it needs no row locks.
	forUpdate string
	// numbered placeholders ($1, $2 …) instead of ?.
	numbered bool
	// native time: PostgreSQL keeps timestamptz; SQLite keeps fixed-width
	// UTC text, which sorts in time order.
	nativeTime bool
	// wideWrites: every statement is a network round trip, so a group of
	// rows is written with one statement; SQLite runs in-process and reuses
	// a prepared statement per row group instead of parsing a wide one.
	wideWrites bool
	// spaceLog: each space has a log row of its own (space_log), so writes
	// to different spaces never wait on one row, and a session without a
	// space numbers its turns by sequence number. SQLite has one writer at
	// a time: the store-wide row (store_log) costs nothing there and is the
	// full-text index's key, so every position comes from it.
	spaceLog bool
}

var (
	sqliteDialect   = dialect{name: "sqlite"}
	postgresDialect = dialect{name: "postgres", forUpdate: " FOR UPDATE", numbered: true, nativeTime: true, wideWrites: true, spaceLog: true}
)

const sqliteTimeLayout = "2006-01-02T15:04:05.000000Z"

// rebind rewrites ? placeholders to $N for PostgreSQL, leaving quoted
// literals alone.
func (d dialect) rebind(q string) string {
	if !d.numbered {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	n := 0
	inQuote := false
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'':
			inQuote = !inQuote
			b.WriteByte(c)
		case c == '?' && !inQuote:
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// jsonText is a JSON column as text, for a LIKE over it.
func (d dialect) jsonText(col string) string {
	if d.name == "postgres" {
		return col + "::text"
	}
	return col
}

// t converts a time to the engine's argument form.
func (d dialect) t(t time.Time) any {
	t = t.UTC()
	if d.nativeTime {
		return t
	}
	return t.Format(sqliteTimeLayout)
}

// placeholders returns "?, ?, …" for n arguments.
func placeholders(n int) string {
	if n <= 0 {
		return ""
	}
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// dbTime scans a timestamp from either engine.
type dbTime struct{ time.Time }

func (t *dbTime) Scan(v any) error {
	switch x := v.(type) {
	case time.Time:
		t.Time = x.UTC()
	case string:
		return t.parse(x)
	case []byte:
		return t.parse(string(x))
	case nil:
		t.Time = time.Time{}
	default:
		return fmt.Errorf("cannot scan %T into time", v)
	}
	return nil
}

func (t *dbTime) parse(s string) error {
	p, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("parse time %q: %w", s, err)
	}
	t.Time = p.UTC()
	return nil
}

// jsonArg encodes v for a JSON column (TEXT on SQLite, JSONB on PostgreSQL).
func jsonArg(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encode json column: %w", err)
	}
	return string(b), nil
}

// jsonCol scans a JSON column into a destination pointer.
type jsonCol struct{ dst any }

func (j jsonCol) Scan(v any) error {
	var b []byte
	switch x := v.(type) {
	case string:
		b = []byte(x)
	case []byte:
		b = x
	case nil:
		return nil
	default:
		return fmt.Errorf("cannot scan %T into json", v)
	}
	if len(b) == 0 {
		return nil
	}
	return json.Unmarshal(b, j.dst)
}

// idArg passes an optional id.
func idArg(id *uuid.UUID) driver.Valuer {
	if id == nil {
		return uuid.NullUUID{}
	}
	return uuid.NullUUID{UUID: *id, Valid: true}
}

// nullID scans an optional id.
func nullID(n uuid.NullUUID) *uuid.UUID {
	if !n.Valid {
		return nil
	}
	id := n.UUID
	return &id
}

func strPtr(n *string) *string {
	if n == nil {
		return nil
	}
	s := *n
	return &s
}

// idType is the column type of ids, for casts.
func (d dialect) idType() string {
	if d.name == "postgres" {
		return "UUID"
	}
	return "TEXT"
}
