package portability

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"

	"smriti"
	"smriti/records"
)

// lineEncoder writes the records that make up most of a bundle — a
// checkpoint with its items and notes, a turn — without reflection, byte
// for byte as encoding/json writes them with HTML left unescaped. A field
// whose type has a shape of its own (tasks, artifacts, purged fields, a
// change record, refs, a map that is not empty) goes through encoding/json
// on its own, and any other record whole; a value encoding/json would
// refuse (a time it cannot write) sends the record back to it too, so the
// error is its own. bundleencode_test.go holds the two to the same bytes,
// every field of every type filled.
type lineEncoder struct {
	line []byte
	alt  bytes.Buffer
	enc  *json.Encoder
}

func newLineEncoder() *lineEncoder {
	e := &lineEncoder{}
	e.enc = json.NewEncoder(&e.alt)
	e.enc.SetEscapeHTML(false)
	return e
}

// encode returns rec's line (with its newline); ok is false for a record
// it leaves to encoding/json.
func (e *lineEncoder) encode(rec *records.BundleRecord) (line []byte, ok bool) {
	others := rec.Header == nil && rec.Space == nil && rec.Session == nil && rec.Claim == nil && rec.Receipt == nil &&
		rec.Proposal == nil && rec.End == nil && rec.SyncEnd == nil
	if !others || (rec.Checkpoint == nil) == (rec.Turn == nil) {
		return nil, false
	}
	b := append(e.line[:0], `{"type":`...)
	b = appendString(b, rec.Type)
	if rec.Checkpoint != nil {
		b = append(b, `,"checkpoint":`...)
		b, ok = e.checkpoint(b, rec.Checkpoint)
	} else {
		b = append(b, `,"turn":`...)
		b, ok = e.turn(b, rec.Turn)
	}
	if !ok {
		return nil, false
	}
	b = append(b, "}\n"...)
	e.line = b
	return b, true
}

func (e *lineEncoder) checkpoint(b []byte, c *records.BundleCheckpoint) ([]byte, bool) {
	ok, done := true, false
	b = append(b, `{"id":`...)
	b = appendID(b, c.ID)
	b = append(b, `,"commit_hash":`...)
	b = appendString(b, c.CommitHash)
	b = append(b, `,"parent_id":`...)
	b = appendOptID(b, c.ParentID)
	b = append(b, `,"merge_parent_id":`...)
	b = appendOptID(b, c.MergeParentID)
	b = append(b, `,"branch_name":`...)
	b = appendString(b, c.BranchName)
	b = append(b, `,"author_agent":`...)
	b = appendOptString(b, c.AuthorAgent)
	b = append(b, `,"author_type":`...)
	b = appendString(b, c.AuthorType)
	b = append(b, `,"project_root":`...)
	b = appendOptString(b, c.ProjectRoot)
	b = append(b, `,"message":`...)
	b = appendString(b, c.Message)
	b = append(b, `,"objective":`...)
	b = appendString(b, c.Objective)
	b = append(b, `,"summary":`...)
	b = appendString(b, c.Summary)
	b = append(b, `,"decisions":`...)
	b = appendStrings(b, c.Decisions)
	b = append(b, `,"assumptions":`...)
	b = appendStrings(b, c.Assumptions)
	b = append(b, `,"tasks":`...)
	if b, done = nullOrEmpty(b, c.Tasks == nil, len(c.Tasks), "[]"); !done {
		b = e.other(b, c.Tasks, &ok)
	}
	b = append(b, `,"open_questions":`...)
	b = appendStrings(b, c.OpenQuestions)
	b = append(b, `,"entities":`...)
	b = appendStrings(b, c.Entities)
	b = append(b, `,"artifacts":`...)
	if b, done = nullOrEmpty(b, c.Artifacts == nil, len(c.Artifacts), "[]"); !done {
		b = e.other(b, c.Artifacts, &ok)
	}
	b = append(b, `,"context_blob":`...)
	b = e.object(b, c.ContextBlob, &ok)
	b = append(b, `,"raw_source_text":`...)
	b = appendOptString(b, c.RawSourceText)
	b = append(b, `,"metadata":`...)
	b = e.object(b, c.Metadata, &ok)
	b = append(b, `,"created_at":`...)
	b = appendTime(b, c.CreatedAt, &ok)
	b = append(b, `,"notes":`...)
	if c.Notes == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range c.Notes {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendNote(b, &c.Notes[i], &ok)
		}
		b = append(b, ']')
	}
	if c.HashVersion != 0 {
		b = append(b, `,"hash_version":`...)
		b = strconv.AppendInt(b, int64(c.HashVersion), 10)
	}
	if len(c.Items) > 0 {
		b = append(b, `,"items":[`...)
		for i := range c.Items {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.item(b, &c.Items[i], &ok)
		}
		b = append(b, ']')
	}
	if len(c.Purged) > 0 {
		b = append(b, `,"purged":`...)
		b = e.other(b, c.Purged, &ok)
	}
	if c.LogOrder != nil {
		b = append(b, `,"log_order":`...)
		b = strconv.AppendInt(b, *c.LogOrder, 10)
	}
	return append(b, '}'), ok
}

func appendNote(b []byte, n *records.BundleNote, ok *bool) []byte {
	b = append(b, `{"id":`...)
	b = appendID(b, n.ID)
	b = append(b, `,"author":`...)
	b = appendString(b, n.Author)
	b = append(b, `,"text":`...)
	b = appendString(b, n.Text)
	b = append(b, `,"kind":`...)
	b = appendString(b, n.Kind)
	b = append(b, `,"created_at":`...)
	b = appendTime(b, n.CreatedAt, ok)
	return append(b, '}')
}

func (e *lineEncoder) item(b []byte, it *records.BundleItem, ok *bool) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, it.ID)
	b = append(b, `,"kind":`...)
	b = appendString(b, string(it.Kind))
	b = append(b, `,"text":`...)
	b = appendString(b, it.Text)
	b = append(b, `,"status":`...)
	b = appendString(b, it.Status)
	b = append(b, `,"supersedes":`...)
	b = appendStrings(b, it.Supersedes)
	o := &it.Origin
	b = append(b, `,"origin":{"checkpoint_id":`...)
	b = appendOptID(b, o.CheckpointID)
	b = append(b, `,"session_id":`...)
	b = appendOptID(b, o.SessionID)
	b = append(b, `,"from_seq":`...)
	b = appendOptInt(b, o.FromSeq)
	b = append(b, `,"to_seq":`...)
	b = appendOptInt(b, o.ToSeq)
	b = append(b, `,"quote":`...)
	b = appendOptString(b, o.Quote)
	b = append(b, `,"author_agent":`...)
	b = appendOptString(b, o.AuthorAgent)
	b = append(b, `,"model":`...)
	b = appendOptString(b, o.Model)
	b = append(b, `},"change":`...)
	if it.Change == nil {
		b = append(b, "null"...)
	} else {
		b = e.other(b, it.Change, ok)
	}
	if len(it.Refs) > 0 {
		b = append(b, `,"refs":`...)
		b = e.other(b, it.Refs, ok)
	}
	return append(b, '}')
}

func (e *lineEncoder) turn(b []byte, t *records.BundleTurn) ([]byte, bool) {
	ok := true
	b = append(b, `{"id":`...)
	b = appendID(b, t.ID)
	b = append(b, `,"session_id":`...)
	b = appendID(b, t.SessionID)
	b = append(b, `,"sequence_number":`...)
	b = strconv.AppendInt(b, t.Seq, 10)
	b = append(b, `,"role":`...)
	b = appendString(b, t.Role)
	b = append(b, `,"content":`...)
	b = appendString(b, t.Content)
	b = append(b, `,"provider":`...)
	b = appendString(b, t.Provider)
	b = append(b, `,"model":`...)
	b = appendString(b, t.Model)
	b = append(b, `,"tokens":`...)
	b = strconv.AppendInt(b, int64(t.Tokens), 10)
	b = append(b, `,"metadata":`...)
	b = e.object(b, t.Metadata, &ok)
	b = append(b, `,"created_at":`...)
	b = appendTime(b, t.CreatedAt, &ok)
	if t.LogOrder != nil {
		b = append(b, `,"log_order":`...)
		b = strconv.AppendInt(b, *t.LogOrder, 10)
	}
	return append(b, '}'), ok
}

// object writes a JSON object field: null, {} or, through encoding/json,
// its keys.
func (e *lineEncoder) object(b []byte, m map[string]any, ok *bool) []byte {
	if b, done := nullOrEmpty(b, m == nil, len(m), "{}"); done {
		return b
	}
	return e.other(b, m, ok)
}

// nullOrEmpty writes null for a nil value and empty for one of no
// elements, and reports whether it wrote.
func nullOrEmpty(b []byte, isNil bool, n int, empty string) ([]byte, bool) {
	switch {
	case isNil:
		return append(b, "null"...), true
	case n == 0:
		return append(b, empty...), true
	}
	return b, false
}

// other writes v through encoding/json; a failure clears ok.
func (e *lineEncoder) other(b []byte, v any, ok *bool) []byte {
	e.alt.Reset()
	if err := e.enc.Encode(v); err != nil {
		*ok = false
		return b
	}
	out := e.alt.Bytes()
	return append(b, out[:len(out)-1]...)
}

func appendID(b []byte, id smriti.ID) []byte {
	var text [36]byte
	hex.Encode(text[0:8], id[0:4])
	text[8] = '-'
	hex.Encode(text[9:13], id[4:6])
	text[13] = '-'
	hex.Encode(text[14:18], id[6:8])
	text[18] = '-'
	hex.Encode(text[19:23], id[8:10])
	text[23] = '-'
	hex.Encode(text[24:], id[10:])
	b = append(b, '"')
	b = append(b, text[:]...)
	return append(b, '"')
}

func appendOptID(b []byte, id *smriti.ID) []byte {
	if id == nil {
		return append(b, "null"...)
	}
	return appendID(b, *id)
}

func appendOptInt(b []byte, n *int64) []byte {
	if n == nil {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, *n, 10)
}

func appendOptString(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendString(b, *s)
}

func appendStrings(b []byte, xs []string) []byte {
	if xs == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, x)
	}
	return append(b, ']')
}

// appendTime writes t as time.Time's MarshalJSON does; a time that cannot
// be written clears ok.
func appendTime(b []byte, t time.Time, ok *bool) []byte {
	b = append(b, '"')
	out, err := t.AppendText(b)
	if err != nil {
		*ok = false
		return b
	}
	return append(out, '"')
}

// appendString writes s as a JSON string: '"' and '\' escaped, control
// characters as \b, \f, \n, \r, \t or \u00XX, a byte that is not UTF-8 as
// \ufffd, and U+2028 and U+2029 as \u2028 and \u2029 — what encoding/json
// writes with HTML left unescaped.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	from := 0 // s[from:i] is yet to be copied
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		var esc string
		size := 1
		switch {
		case c == '"':
			esc = `\"`
		case c == '\\':
			esc = `\\`
		case c == '\n':
			esc = `\n`
		case c == '\r':
			esc = `\r`
		case c == '\t':
			esc = `\t`
		case c == '\b':
			esc = `\b`
		case c == '\f':
			esc = `\f`
		case c < 0x20:
			b = append(b, s[from:i]...)
			b = append(b, `\u00`...)
			b = append(b, hexDigits[c>>4], hexDigits[c&0xf])
			i++
			from = i
			continue
		default:
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				esc = `\ufffd`
			case r == '\u2028':
				esc = `\u2028`
			case r == '\u2029':
				esc = `\u2029`
			default:
				i += size
				continue
			}
		}
		b = append(b, s[from:i]...)
		b = append(b, esc...)
		i += size
		from = i
	}
	b = append(b, s[from:]...)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"
