package smriti

import (
	"strings"
	"unicode/utf8"
)

// Limits on a checkpoint note.
const (
	MaxNoteText   = 2000
	MaxNoteAuthor = 100
)

// ValidateNote checks a note before it is stored: text required and at
// most MaxNoteText characters, author at most MaxNoteAuthor, kind one of
// note, milestone, noise.
func ValidateNote(in NoteCreate) error {
	if strings.TrimSpace(in.Text) == "" {
		return Errorf(EUNPROCESSABLE, "text is required")
	}
	if utf8.RuneCountInString(in.Text) > MaxNoteText {
		return Errorf(EUNPROCESSABLE, "text must be at most %d characters", MaxNoteText)
	}
	if utf8.RuneCountInString(in.Author) > MaxNoteAuthor {
		return Errorf(EUNPROCESSABLE, "author must be at most %d characters", MaxNoteAuthor)
	}
	switch in.Kind {
	case NoteKindNote, NoteKindMilestone, NoteKindNoise:
		return nil
	}
	return Errorf(EINVALID, "Invalid kind '%s'. Must be one of: milestone, noise, note", Truncate(in.Kind, 40))
}
