package smriti

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"sync"
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
// From HashVersion 3 on every text (message, objective, summary, each list
// entry, each item's text, raw_source_text, and every string inside tasks,
// artifacts, context_blob and metadata) enters the hash by its digest
// (TextDigest) rather than as itself. A purge that replaces a stored text
// keeps the digest of what was there (c.Purged), so the checkpoint and its
// descendants still verify after the value is gone.
//
// Notes, the log position and the row id are deliberately not covered: notes
// are annotations beside the checkpoint, and the id names the link.
func (c *Checkpoint) ComputeHash(parentHash, mergeParentHash string) string {
	w := docWriters.Get().(*docWriter)
	sum := sha256.Sum256(c.writeHashDocument(w, parentHash, mergeParentHash))
	w.b, w.digest, w.kept = w.b[:0], nil, nil
	if cap(w.b) <= maxPooledDoc && cap(w.scratch) <= maxPooledDoc {
		docWriters.Put(w)
	}
	return hex.EncodeToString(sum[:])
}

// docWriters keeps the writers of hash documents between hashes: a chain
// of checkpoints (a bundle's check, a verify) hashes one after another.
var docWriters = sync.Pool{New: func() any { return &docWriter{b: make([]byte, 0, 4096)} }}

// maxPooledDoc is the largest document (or text) buffer kept for the
// next hash.
const maxPooledDoc = 1 << 20

// hashDocument is canonicalJSON(c.hashDoc(…)) written directly: the
// object's keys in sorted order, and each value as canonicalJSON gives it
// — plain strings, string lists and the items with json.Marshal (which
// writes them as canonicalJSON does: a valid UTF-8 string encodes the same
// after a round trip), everything else (tasks, artifacts, the two maps,
// and any string that is not valid UTF-8) through canonicalJSON itself.
// The canonical form of an object is its members' canonical forms in key
// order, so the bytes are the same; TestHashDocumentIsCanonical checks it.
func (c *Checkpoint) hashDocument(parentHash, mergeParentHash string) []byte {
	return c.writeHashDocument(&docWriter{b: make([]byte, 0, 1024)}, parentHash, mergeParentHash)
}

// writeHashDocument writes the hash document with w (empty) and returns
// its bytes.
func (c *Checkpoint) writeHashDocument(w *docWriter, parentHash, mergeParentHash string) []byte {
	w.v, w.digest, w.kept = c.hashVersion(), c.digester(), c.keptDigests()
	// In sorted key order, as canonicalJSON writes an object.
	members := []struct {
		key   string
		write func()
	}{
		{"artifacts", func() { w.tree("artifacts", nonnil.Slice(c.Artifacts)) }},
		{"assumptions", func() { w.texts("assumptions", c.Assumptions) }},
		{"author_agent", func() { w.optStr(c.AuthorAgent) }},
		{"author_type", func() { w.str(c.AuthorType) }},
		{"branch", func() { w.str(c.BranchName) }},
		{"context_blob", func() { w.tree("context_blob", nonnil.Map(c.ContextBlob)) }},
		{"created_at", func() { w.str(c.CreatedAt.UTC().Format(hashTimeLayout)) }},
		{"decisions", func() { w.texts("decisions", c.Decisions) }},
		{"entities", func() { w.texts("entities", c.Entities) }},
		{"items", func() { w.items(c.Items) }},
		{"merge_parent_hash", func() { w.str(mergeParentHash) }},
		{"message", func() { w.text("message", c.Message) }},
		{"metadata", func() { w.tree("metadata", nonnil.Map(c.Metadata)) }},
		{"objective", func() { w.text("objective", c.Objective) }},
		{"open_questions", func() { w.texts("open_questions", c.OpenQuestions) }},
		{"parent_hash", func() { w.str(parentHash) }},
		{"project_root", func() { w.optStr(c.ProjectRoot) }},
		{"raw_source_text", func() { w.optText("raw_source_text", c.RawSourceText) }},
		{"space_id", func() { w.str(c.SpaceID.String()) }},
		{"summary", func() { w.text("summary", c.Summary) }},
		{"tasks", func() { w.tree("tasks", nonnil.Slice(c.Tasks)) }},
		{"v", func() { w.b = strconv.AppendInt(w.b, int64(w.v), 10) }},
	}
	w.b = append(w.b, '{')
	first := true
	for _, m := range members {
		if m.key == "items" && w.v < 2 {
			continue
		}
		if !first {
			w.b = append(w.b, ',')
		}
		first = false
		w.str(m.key)
		w.b = append(w.b, ':')
		m.write()
	}
	return append(w.b, '}')
}

// docWriter writes the members of a hash document of version v: texts as
// themselves below version 3, by their digests (digest) from 3 on. kept
// is the digests a purge kept, by field (nil when there are none); scratch
// holds each text while it is hashed.
type docWriter struct {
	b       []byte
	v       int
	digest  func(field, s string) string
	kept    map[string]string
	scratch []byte
}

func (w *docWriter) str(s string) {
	switch {
	case plainJSONString(s):
		w.b = append(append(append(w.b, '"'), s...), '"')
	case !utf8.ValidString(s):
		w.b = append(w.b, canonicalJSON(s)...)
	default:
		j, _ := json.Marshal(s)
		w.b = append(w.b, j...)
	}
}

func (w *docWriter) optStr(s *string) {
	if s == nil {
		w.b = append(w.b, "null"...)
		return
	}
	w.str(*s)
}

func (w *docWriter) text(field, s string) {
	if w.v < 3 {
		w.str(s)
		return
	}
	d, ok := w.kept[field]
	w.putDigest(s, d, ok)
}

// textAt is text for the field path(field, key), a path built only when a
// purge kept digests.
func (w *docWriter) textAt(path func(string, string) string, field, key, s string) {
	if w.v < 3 {
		w.str(s)
		return
	}
	d, ok := "", false
	if w.kept != nil {
		d, ok = w.kept[path(field, key)]
	}
	w.putDigest(s, d, ok)
}

// putDigest writes kept (when ok) or TextDigest(s), quoted.
func (w *docWriter) putDigest(s, kept string, ok bool) {
	w.b = append(w.b, '"')
	if ok {
		w.b = append(w.b, kept...)
	} else {
		w.scratch = append(w.scratch[:0], s...)
		sum := sha256.Sum256(w.scratch)
		w.b = hex.AppendEncode(w.b, sum[:])
	}
	w.b = append(w.b, '"')
}

func (w *docWriter) optText(field string, s *string) {
	if s == nil {
		w.b = append(w.b, "null"...)
		return
	}
	w.text(field, *s)
}

func (w *docWriter) texts(field string, list []string) {
	w.b = append(w.b, '[')
	for i, s := range list {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.textAt(listKeyPath, field, strconv.Itoa(i), s)
	}
	w.b = append(w.b, ']')
}

// tree writes a JSON value of free form: canonically, its strings by their
// digests from version 3 on.
func (w *docWriter) tree(field string, x any) {
	if w.v < 3 {
		w.b = append(w.b, canonicalJSON(x)...)
		return
	}
	w.b = append(w.b, canonicalJSON(digestTree(field, genericJSON(x), w.digest))...)
}

func (w *docWriter) items(items []Item) {
	w.b = append(w.b, '[')
	for i := range items {
		it := &items[i]
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = append(w.b, '[')
		w.str(it.ID)
		w.b = append(w.b, ',')
		w.str(string(it.Kind))
		w.b = append(w.b, ',')
		w.str(it.StatusOrOpen())
		w.b = append(w.b, ',')
		w.textAt(itemKeyPath, "", it.ID, it.Text)
		w.b = append(w.b, ']')
	}
	w.b = append(w.b, ']')
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
	if c.hashVersion() >= 3 {
		doc["v"] = 3
		d := c.digester()
		for _, k := range []string{"message", "objective", "summary"} {
			doc[k] = d(k, doc[k].(string))
		}
		if c.RawSourceText != nil {
			doc["raw_source_text"] = d("raw_source_text", *c.RawSourceText)
		}
		for _, k := range []string{"decisions", "assumptions", "open_questions", "entities"} {
			list := doc[k].([]string)
			out := make([]string, len(list))
			for i, s := range list {
				out[i] = d(listPath(k, i), s)
			}
			doc[k] = out
		}
		for _, k := range []string{"tasks", "artifacts", "context_blob", "metadata"} {
			doc[k] = digestTree(k, genericJSON(doc[k]), d)
		}
		for i, it := range doc["items"].([][]string) {
			it[3] = d(itemPath(c.Items[i].ID), c.Items[i].Text)
		}
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
