package smriti

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"smriti/internal/nonnil"
)

// hashTimeLayout is how a checkpoint's creation time enters its hash: UTC,
// microseconds, because both database engines keep exactly that.
const hashTimeLayout = "2006-01-02T15:04:05.000000Z"

// ComputeHash returns c's hash chain link: the hex SHA-256 of a
// canonical JSON encoding of its content, space, branch, provenance, creation
// time and metadata, and of its parents' hashes (parentHash and
// mergeParentHash, "" when absent). Altering any covered field of any
// ancestor changes every descendant's hash, which is what verify checks.
//
// From HashVersion 2 on the items' ids, kinds, statuses and texts are
// covered too; a version 1 checkpoint (written before items had ids) keeps
// the hash it was written with, so an upgraded database still verifies.
//
// Notes, the log position and the row id are deliberately not covered: notes
// are annotations beside the checkpoint, and the id names the link.
func (c *Checkpoint) ComputeHash(parentHash, mergeParentHash string) string {
	sum := sha256.Sum256(c.hashDocument(parentHash, mergeParentHash))
	return hex.EncodeToString(sum[:])
}

// hashDocument is canonicalJSON(c.hashDoc(…)) written directly: the
// object's keys in sorted order, and each value as canonicalJSON gives it
// — plain strings, string lists and the items with json.Marshal (which
// writes them as canonicalJSON does: a valid UTF-8 string encodes the same
// after a round trip), everything else (tasks, artifacts, the two maps,
// and any string that is not valid UTF-8) through canonicalJSON itself.
// The canonical form of an object is its members' canonical forms in key
// order, so the bytes are the same; TestHashDocumentIsCanonical checks it.
func (c *Checkpoint) hashDocument(parentHash, mergeParentHash string) []byte {
	b := make([]byte, 0, 1024)
	str := func(s string) {
		switch {
		case plainJSONString(s):
			b = append(append(append(b, '"'), s...), '"')
		case !utf8.ValidString(s):
			b = append(b, canonicalJSON(s)...)
		default:
			j, _ := json.Marshal(s)
			b = append(b, j...)
		}
	}
	optStr := func(s *string) {
		if s == nil {
			b = append(b, "null"...)
			return
		}
		str(*s)
	}
	strs := func(list []string) {
		b = append(b, '[')
		for i, s := range list {
			if i > 0 {
				b = append(b, ',')
			}
			str(s)
		}
		b = append(b, ']')
	}
	other := func(v any) { b = append(b, canonicalJSON(v)...) }
	v := 1
	if c.HashVersion >= 2 {
		v = 2
	}
	// In sorted key order, as canonicalJSON writes an object.
	members := []struct {
		key   string
		write func()
	}{
		{"artifacts", func() { other(nonnil.Slice(c.Artifacts)) }},
		{"assumptions", func() { strs(c.Assumptions) }},
		{"author_agent", func() { optStr(c.AuthorAgent) }},
		{"author_type", func() { str(c.AuthorType) }},
		{"branch", func() { str(c.BranchName) }},
		{"context_blob", func() { other(nonnil.Map(c.ContextBlob)) }},
		{"created_at", func() { str(c.CreatedAt.UTC().Format(hashTimeLayout)) }},
		{"decisions", func() { strs(c.Decisions) }},
		{"entities", func() { strs(c.Entities) }},
		{"items", func() {
			b = append(b, '[')
			for i := range c.Items {
				it := &c.Items[i]
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, '[')
				str(it.ID)
				b = append(b, ',')
				str(string(it.Kind))
				b = append(b, ',')
				str(it.StatusOrOpen())
				b = append(b, ',')
				str(it.Text)
				b = append(b, ']')
			}
			b = append(b, ']')
		}},
		{"merge_parent_hash", func() { str(mergeParentHash) }},
		{"message", func() { str(c.Message) }},
		{"metadata", func() { other(nonnil.Map(c.Metadata)) }},
		{"objective", func() { str(c.Objective) }},
		{"open_questions", func() { strs(c.OpenQuestions) }},
		{"parent_hash", func() { str(parentHash) }},
		{"project_root", func() { optStr(c.ProjectRoot) }},
		{"raw_source_text", func() { optStr(c.RawSourceText) }},
		{"space_id", func() { str(c.SpaceID.String()) }},
		{"summary", func() { str(c.Summary) }},
		{"tasks", func() { other(nonnil.Slice(c.Tasks)) }},
		{"v", func() { b = strconv.AppendInt(b, int64(v), 10) }},
	}
	b = append(b, '{')
	first := true
	for _, m := range members {
		if m.key == "items" && v < 2 {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		str(m.key)
		b = append(b, ':')
		m.write()
	}
	return append(b, '}')
}

// plainJSONString reports whether s encodes in JSON as itself in quotes:
// valid UTF-8 with nothing json.Marshal escapes (control characters, '"',
// '\\', the HTML characters '<', '>' and '&', U+2028 and U+2029).
func plainJSONString(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
				return false
			}
			i += size - 1
		}
	}
	return true
}

// hashDoc is the document a checkpoint's hash is the canonical encoding of
// (hashDocument writes that encoding directly).
func (c *Checkpoint) hashDoc(parentHash, mergeParentHash string) map[string]any {
	doc := map[string]any{
		"v":                 1,
		"space_id":          c.SpaceID.String(),
		"branch":            c.BranchName,
		"created_at":        c.CreatedAt.UTC().Format(hashTimeLayout),
		"parent_hash":       parentHash,
		"merge_parent_hash": mergeParentHash,
		"author_agent":      c.AuthorAgent,
		"author_type":       c.AuthorType,
		"project_root":      c.ProjectRoot,
		"message":           c.Message,
		"objective":         c.Objective,
		"summary":           c.Summary,
		"decisions":         nonnil.Slice(c.Decisions),
		"assumptions":       nonnil.Slice(c.Assumptions),
		"tasks":             nonnil.Slice(c.Tasks),
		"open_questions":    nonnil.Slice(c.OpenQuestions),
		"entities":          nonnil.Slice(c.Entities),
		"artifacts":         nonnil.Slice(c.Artifacts),
		"context_blob":      nonnil.Map(c.ContextBlob),
		"raw_source_text":   c.RawSourceText,
		"metadata":          nonnil.Map(c.Metadata),
	}
	if c.HashVersion >= 2 {
		doc["v"] = 2
		items := make([][]string, 0, len(c.Items))
		for _, it := range c.Items {
			items = append(items, []string{it.ID, string(it.Kind), it.StatusOrOpen(), it.Text})
		}
		doc["items"] = items
	}
	return doc
}

// canonicalJSON encodes v with sorted object keys and numbers in their
// shortest float form, so values that went through a database's JSON type and
// back encode to the same bytes.
func canonicalJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		// Every value reaching here came from JSON or from domain types that
		// always marshal; a failure is a programming error.
		panic("smriti: canonical encoding: " + err.Error())
	}
	var generic any
	if err := json.Unmarshal(b, &generic); err != nil {
		panic("smriti: canonical encoding: " + err.Error())
	}
	out, _ := json.Marshal(generic)
	return out
}

// ShortHash is the display form of a checkpoint hash.
func ShortHash(h string) string {
	if len(h) > 7 {
		return h[:7]
	}
	return h
}
