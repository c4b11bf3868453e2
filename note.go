package smriti

import (
	"smriti/internal/textutil"
	"strings"
	"time"
)

// Note kinds.
const (
	NoteKindNote      = "note"
	NoteKindMilestone = "milestone"
	NoteKindNoise     = "noise"
)

// Note annotates a checkpoint without changing it.
type Note struct {
	ID           ID
	CheckpointID ID
	Author       string
	Text         string
	Kind         string
	CreatedAt    time.Time
	// Redactions are the secrets the write that answers with this note
	// replaced in its text. Not stored.
	Redactions []Redaction
}

// NoteCreate is what a caller may set when adding a note.
type NoteCreate struct {
	Author string
	Text   string
	Kind   string
}

// Note defaults: who wrote a note and its kind when the caller says nothing.
const (
	defaultNoteAuthor = "founder"
	defaultNoteKind   = NoteKindNote
)

// Normalize trims the author and fills in the default author and kind.
func (n *NoteCreate) Normalize() {
	n.Author = strings.TrimSpace(n.Author)
	if n.Author == "" {
		n.Author = defaultNoteAuthor
	}
	if n.Kind == "" {
		n.Kind = defaultNoteKind
	}
}

// Validate checks a normalized note: text not blank and at most
// maxNoteChars, author at most maxNoteAuthorChars (EUNPROCESSABLE), and a
// known kind (validateNoteKind).
func (n *NoteCreate) Validate() error {
	switch {
	case strings.TrimSpace(n.Text) == "":
		return Errorf(EUNPROCESSABLE, "text is required")
	case textutil.RuneLen(n.Text) > maxNoteChars:
		return TooLong("text", maxNoteChars)
	case textutil.RuneLen(n.Author) > maxNoteAuthorChars:
		return TooLong("author", maxNoteAuthorChars)
	}
	return validateNoteKind(n.Kind)
}

// validateNoteKind accepts the note kinds: milestone, noise, note. EINVALID
// otherwise.
func validateNoteKind(kind string) error {
	switch kind {
	case NoteKindMilestone, NoteKindNoise, NoteKindNote:
		return nil
	}
	return Errorf(EINVALID, "Invalid kind '%s'. Must be one of: milestone, noise, note", textutil.Truncate(kind, 40))
}
