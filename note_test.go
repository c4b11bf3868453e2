package smriti

import "testing"

func TestNoteValidators(t *testing.T) {
	runValidatorCases(t, []validatorCase{
		{"NoteKind", validateNoteKind("todo"), EINVALID, "Invalid kind 'todo'. Must be one of: milestone, noise, note"},
		{"NoteBlank", (&NoteCreate{Text: " ", Kind: NoteKindNote}).Validate(), EUNPROCESSABLE, "text is required"},
		{"NoteLong", (&NoteCreate{Text: long(maxNoteChars + 1), Kind: NoteKindNote}).Validate(), EUNPROCESSABLE, "text must be at most 2000 characters"},
		{"NoteAuthor", (&NoteCreate{Text: "x", Author: long(maxNoteAuthorChars + 1), Kind: NoteKindNote}).Validate(), EUNPROCESSABLE, "author must be at most 100 characters"},
	})
}

func TestNoteCreateNormalize(t *testing.T) {
	n := NoteCreate{Text: "t", Author: "  ", Kind: ""}
	n.Normalize()
	if n.Author != defaultNoteAuthor || n.Kind != NoteKindNote {
		t.Fatalf("normalized = %+v", n)
	}
	n = NoteCreate{Text: "t", Author: " ana ", Kind: NoteKindNoise}
	n.Normalize()
	if n.Author != "ana" || n.Kind != NoteKindNoise {
		t.Fatalf("normalized = %+v", n)
	}
}
