package smriti

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

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
	sum := sha256.Sum256(canonicalJSON(doc))
	return hex.EncodeToString(sum[:])
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
