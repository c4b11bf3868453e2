// Package dbx is the store's database machinery, apart from the domain's
// queries: the differences between the two engines, column types both
// understand, the classes of database errors, the connections that notice
// a failover, prepared statements, keyset paging, the group commit queue,
// the watch on the database's identity and SQLite's WAL checkpoints.
package dbx

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Dialect is every difference between the two engines, by name.
type Dialect struct {
	Name string
	// ForUpdate locks the selected rows until the transaction ends. SQLite
	// has one writer, so it needs no row locks.
	ForUpdate string
	// Numbered: placeholders ($1, $2 …) instead of ?.
	Numbered bool
	// NativeTime: PostgreSQL keeps timestamptz; SQLite keeps fixed-width
	// UTC text, which sorts in time order.
	NativeTime bool
	// WideWrites: every statement is a network round trip, so a group of
	// rows is written with one statement; SQLite runs in-process and reuses
	// a prepared statement per row group instead of parsing a wide one.
	WideWrites bool
	// SpaceLog: each space has a log row of its own (space_log), so writes
	// to different spaces never wait on one row, and a session without a
	// space numbers its turns by sequence number. SQLite has one writer at
	// a time: the store-wide row (store_log) costs nothing there and is the
	// full-text index's key, so every position comes from it.
	SpaceLog bool
}

var (
	// SQLite is the embedded engine.
	SQLite = Dialect{Name: "sqlite"}
	// Postgres is PostgreSQL.
	Postgres = Dialect{Name: "postgres", ForUpdate: " FOR UPDATE", Numbered: true, NativeTime: true, WideWrites: true, SpaceLog: true}
)

// SQLiteTimeLayout is how SQLite keeps a time: fixed-width UTC text.
const SQLiteTimeLayout = "2006-01-02T15:04:05.000000Z"

// Rebind rewrites ? placeholders to $N for PostgreSQL, leaving quoted
// literals alone.
func (d Dialect) Rebind(q string) string {
	if !d.Numbered {
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

// JSONText is a JSON column as text, for a LIKE over it.
func (d Dialect) JSONText(col string) string {
	if d.Name == "postgres" {
		return col + "::text"
	}
	return col
}

// T converts a time to the engine's argument form.
func (d Dialect) T(t time.Time) any {
	t = t.UTC()
	if d.NativeTime {
		return t
	}
	return t.Format(SQLiteTimeLayout)
}

// Placeholders returns "?, ?, …" for n arguments.
func Placeholders(n int) string {
	if n <= 0 {
		return ""
	}
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// Time scans a timestamp from either engine.
type Time struct{ time.Time }

func (t *Time) Scan(v any) error {
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

func (t *Time) parse(s string) error {
	p, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("parse time %q: %w", s, err)
	}
	t.Time = p.UTC()
	return nil
}

// JSONArg encodes v for a JSON column (TEXT on SQLite, JSONB on PostgreSQL).
func JSONArg(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encode json column: %w", err)
	}
	return string(b), nil
}

// JSONCol scans a JSON column into a destination pointer.
type JSONCol struct{ Dst any }

func (j JSONCol) Scan(v any) error {
	var text string
	switch x := v.(type) {
	case string:
		text = x
	case []byte:
		if len(x) == 0 {
			return nil
		}
		if len(x) == 2 && readEmptyJSON(string(x), j.Dst) {
			return nil
		}
		if _, ok := j.Dst.(*[]string); !ok {
			return json.Unmarshal(x, j.Dst)
		}
		// The strings are cut from text: a copy, as the driver may
		// reuse x.
		text = string(x)
	case nil:
		return nil
	default:
		return fmt.Errorf("cannot scan %T into json", v)
	}
	if text == "" || readEmptyJSON(text, j.Dst) {
		return nil
	}
	if d, ok := j.Dst.(*[]string); ok {
		if out, ok := plainStrings(text); ok {
			*d = out
			return nil
		}
	}
	return json.Unmarshal([]byte(text), j.Dst)
}

// readEmptyJSON reads b into dst as encoding/json would when b is [] and
// dst a slice, or b is {} and dst a map — most of a checkpoint's JSON
// columns — and reports whether it did.
func readEmptyJSON(b string, dst any) bool {
	if len(b) != 2 {
		return false
	}
	v := reflect.ValueOf(dst)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return false
	}
	v = v.Elem()
	switch {
	case b[0] == '[' && b[1] == ']' && v.Kind() == reflect.Slice:
		if v.IsNil() {
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		} else {
			v.SetLen(0)
		}
		return true
	case b[0] == '{' && b[1] == '}' && v.Kind() == reflect.Map:
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
		}
		return true
	}
	return false
}

// IDArg passes an optional id.
func IDArg(id *uuid.UUID) driver.Valuer {
	if id == nil {
		return uuid.NullUUID{}
	}
	return uuid.NullUUID{UUID: *id, Valid: true}
}

// NullID scans an optional id.
func NullID(n uuid.NullUUID) *uuid.UUID {
	if !n.Valid {
		return nil
	}
	id := n.UUID
	return &id
}

// IDType is the column type of ids, for casts.
func (d Dialect) IDType() string {
	if d.Name == "postgres" {
		return "UUID"
	}
	return "TEXT"
}

// OptT converts an optional time to the engine's argument form.
func (d Dialect) OptT(t *time.Time) any {
	if t == nil {
		return nil
	}
	return d.T(*t)
}

// OptTime is an optional scanned time: nil when the column was NULL.
func OptTime(t Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	v := t.Time
	return &v
}
