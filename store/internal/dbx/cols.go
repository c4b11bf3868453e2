package dbx

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Cols converts the values of a row scanned into *any — what the drivers
// give: string, []byte, int64, time.Time or nil — for hot reads that scan
// every column as a plain value instead of through a sql.Scanner each.
// The first value it cannot convert is kept as Err; the conversions after
// it give zero values.
type Cols struct{ err error }

// Err is the first conversion that failed.
func (c *Cols) Err() error { return c.err }

func (c *Cols) fail(what string, v any) {
	if c.err == nil {
		c.err = fmt.Errorf("cannot read %T as %s", v, what)
	}
}

// Str is a text value ("" for NULL).
func (c *Cols) Str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	case nil:
		return ""
	}
	c.fail("text", v)
	return ""
}

// OptStr is a nullable text value.
func (c *Cols) OptStr(v any) *string {
	if v == nil {
		return nil
	}
	s := c.Str(v)
	return &s
}

// OptBytes is a nullable text value's bytes (nil for NULL).
func (c *Cols) OptBytes(v any) []byte {
	switch x := v.(type) {
	case string:
		return []byte(x)
	case []byte:
		return x
	case nil:
		return nil
	}
	c.fail("text", v)
	return nil
}

// Int is a nullable integer.
func (c *Cols) Int(v any) *int64 {
	switch x := v.(type) {
	case int64:
		return &x
	case nil:
		return nil
	}
	c.fail("integer", v)
	return nil
}

// ID is a nullable id, read as uuid.NullUUID reads it.
func (c *Cols) ID(v any) *uuid.UUID {
	if v == nil {
		return nil
	}
	var id uuid.UUID
	if err := id.Scan(v); err != nil {
		if c.err == nil {
			c.err = err
		}
		return nil
	}
	return &id
}

// Strings is a JSON array of strings, as JSONCol reads it into a
// []string: nil for NULL or JSON null, [] for an empty array. An array of
// plain strings (no escapes) is cut out of the text without a decoder.
func (c *Cols) Strings(v any) []string {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case []byte:
		s = string(x)
	case nil:
		return nil
	default:
		c.fail("JSON text", v)
		return nil
	}
	if s == "" {
		return nil
	}
	if out, ok := plainStrings(s); ok {
		return out
	}
	var out []string
	if err := json.Unmarshal([]byte(s), &out); err != nil && c.err == nil {
		c.err = err
	}
	return out
}

// plainStrings reads a JSON array of strings that hold no escape, control
// character or invalid UTF-8 (the strings are slices of s); ok is false
// for anything else, which a JSON decoder then reads.
func plainStrings(s string) (out []string, ok bool) {
	i := skipSpace(s, 0)
	if i >= len(s) || s[i] != '[' {
		return nil, false
	}
	i = skipSpace(s, i+1)
	out = []string{}
	if i < len(s) && s[i] == ']' {
		return out, skipSpace(s, i+1) == len(s)
	}
	for {
		if i >= len(s) || s[i] != '"' {
			return nil, false
		}
		end := strings.IndexByte(s[i+1:], '"')
		if end < 0 {
			return nil, false
		}
		str := s[i+1 : i+1+end]
		for k := 0; k < len(str); k++ {
			if b := str[k]; b == '\\' || b < 0x20 {
				return nil, false
			}
		}
		if !utf8.ValidString(str) {
			return nil, false
		}
		out = append(out, str)
		i = skipSpace(s, i+2+end)
		if i >= len(s) {
			return nil, false
		}
		switch s[i] {
		case ',':
			i = skipSpace(s, i+1)
		case ']':
			return out, skipSpace(s, i+1) == len(s)
		default:
			return nil, false
		}
	}
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}
