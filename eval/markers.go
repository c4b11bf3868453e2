package eval

import (
	"strings"

	"smriti"
)

// The marker grammar. A scenario's user turns carry machine-readable
// statements, one a line, so that the ground truth can be replayed and the
// oracle provider can answer a draft from nothing but the turns it is sent:
//
//	[decide d:pricing] Pricing is per-seat at $12
//	[change d:pricing] Pricing is per-seat at $14
//	[resolve t:ship] shipped in 1.4
//	[retract a:eu] the EU launch was dropped
//
// A key is a kind letter (d decision, a assumption, t task, q open question,
// e entity), a colon and a name. decide, assume, task, ask and name all add
// an item; change gives it a new text; resolve marks a task done or an open
// question answered; retract takes an item out of the state. The rest of a
// line is the item's text (add, change), how it was resolved (resolve) or
// why it was retracted (retract).

// Marker operations.
const (
	MarkAdd     = "add"
	MarkChange  = "change"
	MarkResolve = "resolve"
	MarkRetract = "retract"
)

// Marker is one statement of a turn.
type Marker struct {
	Op   string
	Key  string
	Kind smriti.ItemKind
	Text string
}

var markerOps = map[string]string{
	"decide": MarkAdd, "assume": MarkAdd, "task": MarkAdd, "ask": MarkAdd, "name": MarkAdd, "add": MarkAdd,
	"change": MarkChange, "resolve": MarkResolve, "retract": MarkRetract,
}

var kindLetters = map[byte]smriti.ItemKind{
	'd': smriti.KindDecision, 'a': smriti.KindAssumption, 't': smriti.KindTask,
	'q': smriti.KindQuestion, 'e': smriti.KindEntity,
}

// KindOfKey is the kind a key's letter names; ok is false for a malformed
// key.
func KindOfKey(key string) (smriti.ItemKind, bool) {
	if len(key) < 3 || key[1] != ':' || strings.ContainsAny(key, " []") {
		return "", false
	}
	k, ok := kindLetters[key[0]]
	return k, ok
}

// ParseMarkers returns the markers of a turn, in order. Lines that are not
// markers are conversation and carry no state.
func ParseMarkers(text string) []Marker {
	var out []Marker
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "[") {
			continue
		}
		end := strings.IndexByte(line, ']')
		if end < 0 {
			continue
		}
		verb, key, ok := strings.Cut(strings.TrimSpace(line[1:end]), " ")
		op, known := markerOps[verb]
		if !ok || !known {
			continue
		}
		key = strings.TrimSpace(key)
		kind, ok := KindOfKey(key)
		if !ok {
			continue
		}
		out = append(out, Marker{Op: op, Key: key, Kind: kind, Text: strings.TrimSpace(line[end+1:])})
	}
	return out
}

// Tagged is an item text as the oracle records it: the text and its key in
// brackets, so a later draft can find the item in the base it is sent.
func Tagged(text, key string) string { return text + " [" + key + "]" }

// SplitTag returns an item text without its trailing key tag, and the key
// ("" when the text has none).
func SplitTag(text string) (string, string) {
	t := strings.TrimSpace(text)
	if !strings.HasSuffix(t, "]") {
		return t, ""
	}
	open := strings.LastIndexByte(t, '[')
	if open < 0 {
		return t, ""
	}
	key := t[open+1 : len(t)-1]
	if _, ok := KindOfKey(key); !ok {
		return t, ""
	}
	return strings.TrimSpace(t[:open]), key
}
