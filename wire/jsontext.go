package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"smriti"
)

// maxJSONDepth bounds the nesting of a whole request body; it leaves room
// for metadata at its own cap (smriti.MaxMetadataDepth) inside a request
// object.
const maxJSONDepth = smriti.MaxMetadataDepth + 8

// checkJSONText walks a JSON document before it is decoded and refuses,
// naming the field, any string (key or value) holding invalid UTF-8 or a
// NUL character, and nesting deeper than maxJSONDepth. The standard decoder
// would quietly turn invalid UTF-8 into U+FFFD, so this must see the raw
// bytes. Syntax errors are left for the decoder to report.
func checkJSONText(body []byte) error {
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
					return smriti.Errorf(smriti.EUNPROCESSABLE, "%s nests deeper than %d levels", path(), maxJSONDepth)
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
					return smriti.Errorf(smriti.EUNPROCESSABLE, "%s: a key is not valid UTF-8", path())
				}
				if strings.IndexByte(t, 0) >= 0 {
					return smriti.Errorf(smriti.EUNPROCESSABLE, "%s: a key contains a NUL character", path())
				}
				continue
			}
			if !utf8.Valid(raw) {
				return smriti.Errorf(smriti.EUNPROCESSABLE, "%s is not valid UTF-8", path())
			}
			if err := smriti.CheckText(path(), t); err != nil {
				return err
			}
			after()
		default:
			after()
		}
	}
}
