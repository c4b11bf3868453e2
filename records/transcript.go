package records

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"smriti/internal/textutil"
	"time"
	"unicode/utf8"

	"smriti"
)

// Transcript limits.
const (
	// MaxImportTurnChars bounds one imported turn; longer ones are refused
	// with their conversation rather than cut silently.
	MaxImportTurnChars = 1 << 20
	// MaxImportTitleChars bounds a conversation's title; longer ones are cut.
	MaxImportTitleChars = 255
)

// Conversation is one conversation read from a transcript file, in order.
type Conversation struct {
	// Source is chatgpt, claude or markdown.
	Source string
	// ExternalID is the source's own id for the conversation ("" when none).
	ExternalID string
	Title      string
	CreatedAt  *time.Time
	Turns      []ConversationTurn
}

// ConversationTurn is one message of an imported conversation.
type ConversationTurn struct {
	Role    string
	Content string
	// CreatedAt is the source's timestamp for the message, kept in the
	// turn's metadata (the turn's own created_at is the import time).
	CreatedAt *time.Time
}

// ContentHash identifies the conversation by its content (source, title and
// every turn's role, text and time), so importing the same file twice is
// recognised whatever the file around it looks like.
func (c *Conversation) ContentHash() string {
	h := sha256.New()
	enc := json.NewEncoder(h)
	_ = enc.Encode([]any{c.Source, c.ExternalID, c.Title})
	for _, t := range c.Turns {
		ts := ""
		if t.CreatedAt != nil {
			ts = t.CreatedAt.UTC().Format(time.RFC3339Nano)
		}
		_ = enc.Encode([]string{t.Role, t.Content, ts})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Validate checks the limits a stored session must meet.
func (c *Conversation) Validate() error {
	for i, t := range c.Turns {
		if t.Role != smriti.RoleUser && t.Role != smriti.RoleAssistant && t.Role != smriti.RoleSystem {
			return smriti.Errorf(smriti.EUNPROCESSABLE, "message %d has role %q", i, textutil.Truncate(t.Role, 32))
		}
		if utf8.RuneCountInString(t.Content) > MaxImportTurnChars {
			return smriti.Errorf(smriti.EUNPROCESSABLE, "message %d is longer than %d characters", i, MaxImportTurnChars)
		}
		if !utf8.ValidString(t.Content) {
			return smriti.Errorf(smriti.EUNPROCESSABLE, "message %d is not valid UTF-8", i)
		}
	}
	return nil
}

// Metadata is what an imported turn records about its origin.
func (t ConversationTurn) Metadata(c *Conversation) map[string]any {
	m := map[string]any{"import": map[string]any{"source": c.Source}}
	if t.CreatedAt != nil {
		m["import"].(map[string]any)["original_created_at"] = t.CreatedAt.UTC().Format(time.RFC3339Nano)
	}
	return m
}

// Coding-agent transcript formats.
const (
	SourceClaudeCode = "claude-code"
	SourceCodex      = "codex"
)

// ValidAgentFormat reports whether f names a coding-agent transcript format.
func ValidAgentFormat(f string) bool { return f == SourceClaudeCode || f == SourceCodex }

// AgentEntry is one entry of a coding agent's transcript that becomes a turn.
type AgentEntry struct {
	// Key identifies the entry across imports of the same file: the message
	// uuid (Claude Code) or the hash of the line (Codex, whose lines carry
	// no id). Re-importing a file writes only entries with new keys.
	Key string
	// Kind is AgentMessage, AgentTool or AgentNote.
	Kind string
	// Role is user or assistant for messages, assistant for tool calls,
	// system for tool results and notes.
	Role      string
	Content   string
	CreatedAt *time.Time
	// Covers, on an assistant message, is the key of the stand-in a hook
	// imported for it before the host wrote it to disk: when that key was
	// stored, this entry is recorded without a turn (the stand-in is it)
	// and the stand-in's key is released.
	Covers string
}
