package smriti

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"
	"strconv"
	"time"
)

// CurrentHashVersion is the hash version new checkpoints are written with
// (see Checkpoint.ComputeHash): 3, each text by its digest.
const CurrentHashVersion = 3

// PurgedField is a text of a stored checkpoint whose value a purge replaced
// with a redaction marker: which field (as HashedTexts names it), the digest
// of the text before the purge, and who purged it, when, for which rule.
// A version 3 checkpoint's hash covers its texts by their digests, so with
// the digest kept it still verifies; an older checkpoint's hash covers the
// text itself, which is gone.
type PurgedField struct {
	Field  string    `json:"field" doc:"The field whose value was replaced: message, summary, decisions[2], items[d-1a2b3c], tasks[0].text, metadata.note, …"`
	Digest string    `json:"digest" doc:"The hex SHA-256 of the text before the purge: what the checkpoint's hash covers (hash version 3)"`
	By     string    `json:"by" doc:"Who purged it"`
	At     time.Time `json:"at" doc:"When"`
	Rule   string    `json:"rule" doc:"The detection rule of the purged secret (or the fingerprint it was chosen by)"`
}

// HashedText is one text a checkpoint's hash covers by its digest (from
// hash version 3): the field that names it and the text.
type HashedText struct {
	Field string
	Text  string
}

// TextDigest is how a text enters a version 3 checkpoint's hash: the hex
// SHA-256 of its bytes.
func TextDigest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// HashedTexts lists the texts a version 3 hash covers by their digests,
// named as PurgedField.Field names them. Strings inside tasks, artifacts,
// context_blob and metadata are listed as the hash reads them: after a JSON
// round trip (an invalid UTF-8 byte reads as U+FFFD).
func (c *Checkpoint) HashedTexts() []HashedText {
	var out []HashedText
	add := func(field, s string) string {
		out = append(out, HashedText{field, s})
		return s
	}
	add("message", c.Message)
	add("objective", c.Objective)
	add("summary", c.Summary)
	if c.RawSourceText != nil {
		add("raw_source_text", *c.RawSourceText)
	}
	for _, l := range []struct {
		field string
		list  []string
	}{{"decisions", c.Decisions}, {"assumptions", c.Assumptions}, {"open_questions", c.OpenQuestions}, {"entities", c.Entities}} {
		for i, s := range l.list {
			add(listPath(l.field, i), s)
		}
	}
	for _, it := range c.Items {
		add(itemPath(it.ID), it.Text)
	}
	digestTree("tasks", genericJSON(c.Tasks), add)
	digestTree("artifacts", genericJSON(c.Artifacts), add)
	digestTree("context_blob", genericJSON(c.ContextBlob), add)
	digestTree("metadata", genericJSON(c.Metadata), add)
	return out
}

// HashProvable reports whether c's hash can be recomputed from what is
// stored: always, except for a checkpoint of hash version 1 or 2 some of
// whose texts a purge replaced (its hash covers the texts themselves).
// Verification takes such a checkpoint's hash as stored and says so.
func (c *Checkpoint) HashProvable() bool { return c.hashVersion() >= 3 || len(c.Purged) == 0 }

// PurgedField returns the purge record of field, if it was purged.
func (c *Checkpoint) PurgedField(field string) (PurgedField, bool) {
	for _, p := range c.Purged {
		if p.Field == field {
			return p, true
		}
	}
	return PurgedField{}, false
}

func (c *Checkpoint) hashVersion() int {
	switch {
	case c.HashVersion >= 3:
		return 3
	case c.HashVersion == 2:
		return 2
	}
	return 1
}

// digester returns how a text enters the hash: its digest, or the digest a
// purge kept for its field.
func (c *Checkpoint) digester() func(field, s string) string {
	if len(c.Purged) == 0 {
		return func(_, s string) string { return TextDigest(s) }
	}
	kept := make(map[string]string, len(c.Purged))
	for _, p := range c.Purged {
		kept[p.Field] = p.Digest
	}
	return func(field, s string) string {
		if d, ok := kept[field]; ok {
			return d
		}
		return TextDigest(s)
	}
}

func listPath(field string, i int) string { return field + "[" + strconv.Itoa(i) + "]" }

// listKeyPath and itemKeyPath are listPath and itemPath with the index or
// id given as a string.
func listKeyPath(field, i string) string { return field + "[" + i + "]" }
func itemKeyPath(_, id string) string    { return itemPath(id) }

// keptDigests is the digests c's purges kept, by field; nil when there
// are none.
func (c *Checkpoint) keptDigests() map[string]string {
	if len(c.Purged) == 0 {
		return nil
	}
	kept := make(map[string]string, len(c.Purged))
	for _, p := range c.Purged {
		kept[p.Field] = p.Digest
	}
	return kept
}

func itemPath(id string) string { return "items[" + id + "]" }

// genericJSON is v after a JSON round trip: maps, slices, strings, float64s,
// bools and nils.
func genericJSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		panic("smriti: canonical encoding: " + err.Error())
	}
	var g any
	if err := json.Unmarshal(b, &g); err != nil {
		panic("smriti: canonical encoding: " + err.Error())
	}
	return g
}

// digestTree replaces each string of a generic JSON value with f(its path,
// it), in place, and returns the value. Paths: field.key for an object's
// member, field[i] for an array's element; keys are visited in order.
func digestTree(field string, v any, f func(field, s string) string) any {
	switch x := v.(type) {
	case string:
		return f(field, x)
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			x[k] = digestTree(field+"."+k, x[k], f)
		}
	case []any:
		for i := range x {
			x[i] = digestTree(listPath(field, i), x[i], f)
		}
	}
	return v
}

// VerifiedPurge is, in a verification, a field of a checkpoint on the
// chain that a purge replaced: whether the checkpoint is still proven (a
// version 3 hash covers the kept digest) and what that means.
type VerifiedPurge struct {
	CheckpointID ID        `json:"checkpoint_id" doc:"The checkpoint"`
	HashVersion  int       `json:"hash_version" doc:"Its hash version"`
	Field        string    `json:"field" doc:"The purged field"`
	By           string    `json:"purged_by" doc:"Who purged it"`
	At           time.Time `json:"purged_at" doc:"When"`
	Rule         string    `json:"rule" doc:"The rule of the purged secret"`
	Proven       bool      `json:"proven" doc:"true: the checkpoint still verifies (its hash covers the digest the purge kept); false: its hash covers the text itself, which is gone, so its content is no longer proven"`
	Detail       string    `json:"detail" doc:"What verify can say about it, in words"`
}

// PurgeStatement is what verify says about a purged field of c.
func PurgeStatement(c *Checkpoint, p PurgedField) VerifiedPurge {
	v := VerifiedPurge{CheckpointID: c.ID, HashVersion: c.hashVersion(), Field: p.Field, By: p.By, At: p.At, Rule: p.Rule, Proven: c.hashVersion() >= 3}
	when := p.At.UTC().Format(time.RFC3339)
	if v.Proven {
		v.Detail = "purged by " + p.By + " at " + when + " (" + p.Rule + "); the digest of what it held is kept, so the checkpoint still verifies"
	} else {
		v.Detail = "purged by " + p.By + " at " + when + " (" + p.Rule + "); hash version " + strconv.Itoa(v.HashVersion) +
			" covers the text itself, which is gone: this checkpoint's content is no longer proven, and its link to its parents is taken as stored"
	}
	return v
}
