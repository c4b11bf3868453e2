package intelligence

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Errors of extractJSONObject. The messages are written for the retry prompt
// that tells a model what was wrong with its reply.
var (
	ErrNoJSONObject  = errors.New("the reply contains no JSON object")
	errJSONArray     = errors.New("expected a JSON object, got an array")
	errJSONTruncated = errors.New("the JSON is incomplete (truncated?)")
	errInvalidJSON   = errors.New("the JSON object is not valid JSON")
)

// extractJSONObject finds the JSON object in a model's reply, which may wrap
// it in a code fence (```json … ```), put prose before or after it, or start
// with a byte-order mark. It returns the first balanced top-level object that
// is valid JSON (brace matching ignores braces inside strings).
//
// A reply whose JSON is an array is errJSONArray; one whose first object
// never closes is errJSONTruncated — its nested objects are not returned in
// its place; an object that is not valid JSON (a trailing comma, say) is
// errInvalidJSON with the decoder's complaint; no object at all is
// ErrNoJSONObject.
func extractJSONObject(text string) ([]byte, error) {
	text = strings.TrimPrefix(text, "\ufeff")
	// A fenced block is what the model meant as its answer; prose around it
	// may contain braces of its own.
	for _, block := range fencedBlocks(text) {
		if obj, err := scanJSONObject(block.content); err == nil || !errors.Is(err, ErrNoJSONObject) {
			return obj, err
		}
	}
	return scanJSONObject(text)
}

func scanJSONObject(s string) ([]byte, error) {
	var invalid error // the first candidate that looked like JSON but was not
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '{' && c != '[' {
			continue
		}
		end := matchBrackets(s, i)
		if end < 0 {
			if c == '{' {
				return nil, errJSONTruncated
			}
			continue // an unclosed "[" in prose
		}
		candidate := s[i : end+1]
		if !json.Valid([]byte(candidate)) {
			if c == '{' {
				if invalid == nil && strings.HasPrefix(strings.TrimLeft(candidate[1:], " \t\r\n"), `"`) {
					var v any
					invalid = fmt.Errorf("%w: %v", errInvalidJSON, json.Unmarshal([]byte(candidate), &v))
				}
				i = end // prose in braces: look after it
			}
			continue // "[x]" in prose: look inside it
		}
		if c == '[' {
			return nil, errJSONArray
		}
		return []byte(candidate), nil
	}
	if invalid != nil {
		return nil, invalid
	}
	return nil, ErrNoJSONObject
}

// matchBrackets returns the index of the bracket closing the one at s[start],
// counting { } and [ ] outside JSON strings, or -1 when it never closes.
func matchBrackets(s string, start int) int {
	depth := 0
	var str jsonStrings
	for i := start; i < len(s); i++ {
		c := s[i]
		if !str.outside(c) {
			continue
		}
		switch c {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// jsonStrings follows JSON text byte by byte to tell its structure from
// the insides of its strings.
type jsonStrings struct{ in, escaped bool }

// outside reads c and reports whether it is structure: not in a string
// and not the quote that opens or closes one.
func (j *jsonStrings) outside(c byte) bool {
	switch {
	case j.in && j.escaped:
		j.escaped = false
	case j.in && c == '\\':
		j.escaped = true
	case j.in && c == '"':
		j.in = false
	case j.in:
	case c == '"':
		j.in = true
	default:
		return true
	}
	return false
}

type fencedBlock struct{ lang, content string }

// fencedBlocks returns the ``` fenced blocks of s in order; an unclosed
// final fence runs to the end of s (a truncated reply).
func fencedBlocks(s string) []fencedBlock {
	var blocks []fencedBlock
	lines := strings.Split(s, "\n")
	var cur *fencedBlock
	var body []string
	for _, line := range lines {
		trimmed := strings.TrimSpace(line)
		if cur == nil {
			if rest, ok := strings.CutPrefix(trimmed, "```"); ok {
				lang := strings.TrimSpace(rest)
				if lang != "" && strings.Contains(lang, "```") {
					continue // a one-line ```…``` span, not a block
				}
				cur, body = &fencedBlock{lang: lang}, nil
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") {
			cur.content = strings.Join(body, "\n")
			blocks = append(blocks, *cur)
			cur = nil
			continue
		}
		body = append(body, line)
	}
	if cur != nil {
		cur.content = strings.Join(body, "\n")
		blocks = append(blocks, *cur)
	}
	return blocks
}
