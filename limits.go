package smriti

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits on what a write may hold and what one answer lists. They keep one
// checkpoint readable by a model and bounded in storage; the services check
// them, so every surface (HTTP, MCP, CLI) gives the same answer. Text limits
// count characters (runes), not bytes.
const (
	// MaxCheckpointMessageChars caps a checkpoint's message (its title).
	MaxCheckpointMessageChars = 255
	// MaxListItems caps each list of a checkpoint (decisions, tasks, …).
	MaxListItems = 1000
	// MaxItemChars caps one list item, written or drafted. Drafts are cut
	// to it and writes are refused beyond it, so every drafted checkpoint
	// can be saved as it is.
	MaxItemChars = 10000
	// MaxQuoteChars caps the quote an item's origin or change keeps.
	MaxQuoteChars = 300
	// MaxMetadataDepth bounds how deeply metadata objects and arrays nest.
	MaxMetadataDepth = 32
	// MaxMetadataBytes bounds a metadata value's JSON encoding.
	MaxMetadataBytes = 64 << 10
	// MaxIdempotencyKeyChars caps an idempotency key (of a send or of a
	// creating write).
	MaxIdempotencyKeyChars = 200
	// ListCap is the most items one list answer holds. A list asked for
	// without a limit returns every item up to ListCap, because the first
	// implementation's clients never follow a cursor; a cut list still
	// returns its cursor.
	ListCap = 5000
	// MinRefPrefix is the shortest checkpoint id or hash prefix accepted.
	MinRefPrefix = 7
	// MinVersionPrefix is the fewest hex digits of the hash an item
	// version name may give; ShortVersionChars how many a shown name
	// carries.
	MinVersionPrefix  = 8
	ShortVersionChars = 12
	// MaxRefsPerItem caps an item's refs; MaxRefPathLen and MaxRefLine
	// bound each ref's path and lines.
	MaxRefsPerItem = 20
	MaxRefPathLen  = 500
	MaxRefLine     = 10_000_000
	// GeneratedTitleChars bounds a session title Smriti makes up (from a
	// branch, a checkpoint or a first message), in characters.
	GeneratedTitleChars = 60
	// MaxInjectedBytes is the most text a compaction receipt's check reads.
	MaxInjectedBytes = 1 << 20
	// MaxAgentSessionChars bounds an agent host's session id on a receipt.
	MaxAgentSessionChars = 200

	// maxCheckpointArtifacts caps the artifacts of a written checkpoint.
	maxCheckpointArtifacts = 100
	// maxSpaceNameChars caps a Space's name.
	maxSpaceNameChars = 255
	// maxBranchNameChars caps a branch name.
	maxBranchNameChars = 255
	// maxAuthorAgentChars caps an author_agent name.
	maxAuthorAgentChars = 255
	// maxPathBytes caps a project root (PATH_MAX on Linux).
	maxPathBytes = 4096
	// maxSymbolLen caps a ref's symbol.
	maxSymbolLen = 200
	// maxNoteChars and maxNoteAuthorChars cap a checkpoint note.
	maxNoteChars       = 2000
	maxNoteAuthorChars = 100
)

// TooLong is the error for a text field over its limit of max characters.
func TooLong(field string, max int) error {
	return Errorf(EUNPROCESSABLE, "%s must be at most %d characters", field, max)
}

// CheckText refuses a NUL byte or invalid UTF-8 in a text field: neither
// survives both database engines (PostgreSQL rejects NUL in text), and
// neither is anything a person or a model meant to write.
func CheckText(field, s string) error {
	if !utf8.ValidString(s) {
		return Errorf(EUNPROCESSABLE, "%s is not valid UTF-8", field)
	}
	if strings.IndexByte(s, 0) >= 0 {
		return Errorf(EUNPROCESSABLE, "%s contains a NUL character", field)
	}
	return nil
}

// checkPath refuses a path (a project root) that is over maxPathBytes or
// holds a control character: a path is shown on one line, in briefs and in
// the commands they suggest, where a newline or an escape sequence would
// forge or hide text.
func checkPath(field, p string) error {
	if err := CheckText(field, p); err != nil {
		return err
	}
	if len(p) > maxPathBytes {
		return Errorf(EUNPROCESSABLE, "%s must be at most %d bytes", field, maxPathBytes)
	}
	if strings.IndexFunc(p, unicode.IsControl) >= 0 {
		return Errorf(EUNPROCESSABLE, "%s must not contain control characters", field)
	}
	return nil
}
