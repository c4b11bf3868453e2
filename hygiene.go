package smriti

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Input hygiene: rules every text and metadata value obeys, whichever door
// it came in by (HTTP, CLI, MCP).
const (
	// MaxMetadataDepth bounds how deeply metadata objects and arrays nest.
	MaxMetadataDepth = 32
	// MaxMetadataBytes bounds a metadata value's JSON encoding.
	MaxMetadataBytes = 64 << 10
	// maxJSONDepth bounds the nesting of a whole request body; it leaves
	// room for metadata at its own cap inside a request object.
	maxJSONDepth = MaxMetadataDepth + 8
)

// checkText refuses a NUL byte or invalid UTF-8 in a text field: neither
// survives both database engines (PostgreSQL rejects NUL in text), and
// neither is anything a person or a model meant to write.
func checkText(field, s string) error {
	if !utf8.ValidString(s) {
		return Errorf(EUNPROCESSABLE, "%s is not valid UTF-8", field)
	}
	if strings.IndexByte(s, 0) >= 0 {
		return Errorf(EUNPROCESSABLE, "%s contains a NUL character", field)
	}
	return nil
}

// CheckMetadata bounds a metadata value's nesting (MaxMetadataDepth) and
// encoded size (MaxMetadataBytes), and checks its strings with checkText.
func CheckMetadata(field string, m map[string]any) error {
	if m == nil {
		return nil
	}
	if err := checkValue(field, m, 1); err != nil {
		return err
	}
	b, err := json.Marshal(m)
	if err != nil {
		return Errorf(EUNPROCESSABLE, "%s cannot be stored as JSON", field)
	}
	if len(b) > MaxMetadataBytes {
		return Errorf(EUNPROCESSABLE, "%s is %d bytes as JSON; the limit is %d", field, len(b), MaxMetadataBytes)
	}
	return nil
}

func checkValue(path string, v any, depth int) error {
	switch x := v.(type) {
	case string:
		return checkText(path, x)
	case map[string]any:
		if depth > MaxMetadataDepth {
			return Errorf(EUNPROCESSABLE, "%s nests deeper than %d levels", path, MaxMetadataDepth)
		}
		for k, e := range x {
			if err := checkText(path+" key", k); err != nil {
				return err
			}
			if err := checkValue(path+"."+k, e, depth+1); err != nil {
				return err
			}
		}
	case []any:
		if depth > MaxMetadataDepth {
			return Errorf(EUNPROCESSABLE, "%s nests deeper than %d levels", path, MaxMetadataDepth)
		}
		for i, e := range x {
			if err := checkValue(fmt.Sprintf("%s[%d]", path, i), e, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// CheckJSONText walks a JSON document before it is decoded and refuses,
// naming the field, any string (key or value) holding invalid UTF-8 or a
// NUL character, and nesting deeper than maxJSONDepth. The standard decoder
// would quietly turn invalid UTF-8 into U+FFFD, so this must see the raw
// bytes. Syntax errors are left for the decoder to report.
func CheckJSONText(body []byte) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	type frame struct {
		object bool
		key    string
		index  int
		onKey  bool
	}
	var stack []frame
	path := func() string {
		var b strings.Builder
		for _, f := range stack {
			if f.object {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(f.key)
			} else {
				fmt.Fprintf(&b, "[%d]", f.index)
			}
		}
		if b.Len() == 0 {
			return "body"
		}
		return b.String()
	}
	// after moves the innermost container past one value.
	after := func() {
		if n := len(stack); n > 0 {
			if stack[n-1].object {
				stack[n-1].onKey = true
			} else {
				stack[n-1].index++
			}
		}
	}
	for {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return nil
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				if len(stack) >= maxJSONDepth {
					return Errorf(EUNPROCESSABLE, "%s nests deeper than %d levels", path(), maxJSONDepth)
				}
				stack = append(stack, frame{object: t == '{', onKey: t == '{'})
			default:
				stack = stack[:len(stack)-1]
				after()
			}
		case string:
			raw := body[start:dec.InputOffset()]
			top := len(stack) - 1
			if top >= 0 && stack[top].object && stack[top].onKey {
				stack[top].key = t
				stack[top].onKey = false
				if !utf8.Valid(raw) {
					return Errorf(EUNPROCESSABLE, "%s: a key is not valid UTF-8", path())
				}
				if strings.IndexByte(t, 0) >= 0 {
					return Errorf(EUNPROCESSABLE, "%s: a key contains a NUL character", path())
				}
				continue
			}
			if !utf8.Valid(raw) {
				return Errorf(EUNPROCESSABLE, "%s is not valid UTF-8", path())
			}
			if err := checkText(path(), t); err != nil {
				return err
			}
			after()
		default:
			after()
		}
	}
}

// CheckSourceTurns checks that st names turns that exist in se, the session
// it names (nil when no such session is visible to the caller).
func CheckSourceTurns(st SourceTurns, se *Session) error {
	if se == nil || se.ID != st.SessionID {
		return Errorf(EUNPROCESSABLE, "source_turns.session_id %s names no session of yours", st.SessionID)
	}
	if st.FromSeq < 0 || st.ToSeq < st.FromSeq {
		return Errorf(EUNPROCESSABLE, "source_turns needs from_seq and to_seq with 0 <= from_seq <= to_seq")
	}
	if st.ToSeq > se.LastSeq {
		if se.LastSeq < 0 {
			return Errorf(EUNPROCESSABLE, "source_turns names turns %d..%d, but session %s has no turns", st.FromSeq, st.ToSeq, se.ID)
		}
		return Errorf(EUNPROCESSABLE, "source_turns names turns %d..%d, but session %s ends at turn %d", st.FromSeq, st.ToSeq, se.ID, se.LastSeq)
	}
	return nil
}
