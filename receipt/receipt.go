// Package receipt holds compaction receipts: the record, after an agent
// host compacted its context, of which live items the re-injected state
// gave the agent in full.
package receipt

import (
	"context"
	"smriti"
	"strings"
	"time"
	"unicode"
)

// Compaction receipt statuses. A receipt is complete when every live
// decision and every open task was re-injected in full; any of them left
// out (only counted, or missing) makes it incomplete.
const (
	Complete   = "complete"
	Incomplete = "incomplete"
)

// Agent hosts whose compactions Smriti records.
const (
	HostClaudeCode = "claude-code"
	HostCodex      = "codex"
)

// Receipt is the record of one re-injection of the state after an
// agent host compacted its context: which of the items live at that moment
// the agent was given in full, which it was only told about (counted, with
// the command that lists them), and whether a decision or an open task was
// left out.
type Receipt struct {
	ID      smriti.ID
	SpaceID smriti.ID
	// AgentSession is the host's own session id (Claude Code's or Codex's
	// session_id), not a Smriti session.
	AgentSession string
	// Host is HostClaudeCode or HostCodex.
	Host string
	// Event is the hook event that re-injected (SessionStart, PostCompact).
	Event string
	// Trigger is the host's compaction trigger: manual, auto or "".
	Trigger string
	// CheckpointID is main's head the live items were read from; nil for a
	// space without a checkpoint.
	CheckpointID *smriti.ID
	// LiveIDs are the live items' ids in checkpoint order; InjectedIDs
	// those given in full, OmittedIDs the rest (only counted), MissingIDs
	// the omitted decisions and open tasks.
	LiveIDs, InjectedIDs, OmittedIDs, MissingIDs []string
	// ListCommand lists every live item (what the brief points to for the
	// omitted ones).
	ListCommand string
	// Tokens is what the injected text cost.
	Tokens    int
	Status    string
	CreatedAt time.Time
}

// Service stores compaction receipts. Scoped to the caller like
// SpaceService: a space the caller may not see is ENOTFOUND.
type Service interface {
	// AddReceipt stores r (its ID and CreatedAt set by the caller);
	// ENOTFOUND for an unknown space, EFORBIDDEN without write access.
	AddReceipt(ctx context.Context, r *Receipt) error
	// Receipts returns the space's receipts, newest first, at most limit
	// (ListCap when limit <= 0); ENOTFOUND for an unknown space.
	Receipts(ctx context.Context, spaceID smriti.ID, limit int) ([]*Receipt, error)
}

// Coverage sorts the live items of a checkpoint by whether injected,
// the text an agent was given, holds each in full. An item is in full when
// it is a bullet of injected ("- " then its text), whitespace aside: the
// brief puts each item on a line of its own. Tombstones (answered, retracted, superseded) are not live
// and are skipped. The returned status is Incomplete when a live
// decision or open task is not in full.
func Coverage(items []smriti.Item, injected string) (live, in, omitted, missing []string, status string) {
	text := squash(injected)
	live, in, omitted, missing = []string{}, []string{}, []string{}, []string{}
	for _, it := range items {
		if it.Status != smriti.ItemOpen && it.Status != smriti.ItemDone {
			continue
		}
		live = append(live, it.ID)
		if t := squash(it.Text); t != "" && strings.Contains(text, "- "+t) {
			in = append(in, it.ID)
			continue
		}
		omitted = append(omitted, it.ID)
		if it.Kind == smriti.KindDecision || it.Kind == smriti.KindTask && it.Status == smriti.ItemOpen {
			missing = append(missing, it.ID)
		}
	}
	if len(missing) > 0 {
		return live, in, omitted, missing, Incomplete
	}
	return live, in, omitted, missing, Complete
}

// squash collapses every run of white space to one space.
func squash(s string) string {
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
}

// ValidHost reports whether h names a host Smriti records receipts for.
func ValidHost(h string) bool { return h == HostClaudeCode || h == HostCodex }
