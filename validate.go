package smriti

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits on what a write may hold. They keep one checkpoint readable by a
// model and bounded in storage; the services check them, so every surface
// (HTTP, MCP, CLI) gives the same answer.
const (
	// maxCheckpointMessageChars caps a checkpoint's message (its title).
	MaxCheckpointMessageChars = 255
	// maxListItems caps each list of a checkpoint (decisions, tasks, …).
	MaxListItems = 1000
	// MaxItemChars caps one list item, written or drafted. Drafts are cut
	// to it and writes are refused beyond it, so every drafted checkpoint
	// can be saved as it is.
	MaxItemChars = 10000
	// maxCheckpointArtifacts caps the artifacts of a written checkpoint.
	maxCheckpointArtifacts = 100
	// maxBranchNameChars caps a branch name.
	maxBranchNameChars = 255
	// maxNoteChars and maxNoteAuthorChars cap a checkpoint note.
	maxNoteChars       = 2000
	maxNoteAuthorChars = 100
	// maxIdempotencyKeyChars caps a send's idempotency key.
	MaxIdempotencyKeyChars = 200
)

func TooLong(field string, max int) error {
	return Errorf(EUNPROCESSABLE, "%s must be at most %d characters", field, max)
}

func RuneLen(s string) int { return utf8.RuneCountInString(s) }

// Validate checks a checkpoint's content: a message (title) that is not
// blank and at most maxCheckpointMessageChars, lists of at most maxListItems
// items of at most MaxItemChars each, task statuses "", "open" or "done",
// and at most maxCheckpointArtifacts artifacts. EUNPROCESSABLE otherwise.
func (c *Content) Validate() error {
	msg := strings.TrimSpace(c.Message)
	if msg == "" {
		return Errorf(EUNPROCESSABLE, "message is required (the checkpoint's title)")
	}
	if RuneLen(msg) > MaxCheckpointMessageChars {
		return TooLong("message", MaxCheckpointMessageChars)
	}
	for _, l := range []struct {
		name string
		list []string
	}{{"decisions", c.Decisions}, {"assumptions", c.Assumptions}, {"open_questions", c.OpenQuestions}, {"entities", c.Entities}} {
		if err := validateList(l.name, l.list); err != nil {
			return err
		}
	}
	if len(c.Tasks) > MaxListItems {
		return Errorf(EUNPROCESSABLE, "tasks has %d items; at most %d are allowed", len(c.Tasks), MaxListItems)
	}
	for i, t := range c.Tasks {
		if RuneLen(t.Text) > MaxItemChars {
			return Errorf(EUNPROCESSABLE, "tasks[%d] is longer than %d characters", i, MaxItemChars)
		}
		if st := strings.ToLower(strings.TrimSpace(t.Status)); st != "" && st != TaskOpen && st != TaskDone {
			return Errorf(EUNPROCESSABLE, "tasks[%d].status must be \"open\" or \"done\"", i)
		}
	}
	if len(c.Artifacts) > maxCheckpointArtifacts {
		return Errorf(EUNPROCESSABLE, "artifacts has %d items; at most %d are allowed", len(c.Artifacts), maxCheckpointArtifacts)
	}
	return nil
}

// Normalize tidies what Validate accepted: tasks are cleaned (cleanTasks),
// each keeping its form. Services call it after Validate, before writing.
func (c *Content) Normalize() {
	c.Tasks = cleanTasks(c.Tasks)
}

func validateList(name string, list []string) error {
	if len(list) > MaxListItems {
		return Errorf(EUNPROCESSABLE, "%s has %d items; at most %d are allowed", name, len(list), MaxListItems)
	}
	for i, item := range list {
		if RuneLen(item) > MaxItemChars {
			return Errorf(EUNPROCESSABLE, "%s[%d] is longer than %d characters", name, i, MaxItemChars)
		}
	}
	return nil
}

// Validate checks a commit from a session: its content and, when given,
// its source turns (0 <= FromSeq <= ToSeq). EUNPROCESSABLE otherwise.
func (in *CheckpointCommit) Validate() error {
	if err := in.Content.Validate(); err != nil {
		return err
	}
	if st := in.SourceTurns; st != nil && (st.FromSeq < 0 || st.ToSeq < st.FromSeq) {
		return Errorf(EUNPROCESSABLE, "source_turns needs from_seq and to_seq with 0 <= from_seq <= to_seq")
	}
	return nil
}

// Validate checks a checkpoint written with an explicit parent: its
// content, author type ("" means llm) and branch name ("" means main).
// EUNPROCESSABLE otherwise.
func (in *CheckpointCreate) Validate() error {
	if err := in.Content.Validate(); err != nil {
		return err
	}
	if in.AuthorType != "" {
		if err := validateAuthorType(in.AuthorType); err != nil {
			return err
		}
	}
	return ValidateBranchName(in.BranchName)
}

// validateAuthorType accepts the author types: agent, llm, system, user.
func validateAuthorType(t string) error {
	switch t {
	case AuthorAgent, AuthorLLM, AuthorSystem, AuthorUser:
		return nil
	}
	return Errorf(EUNPROCESSABLE, "author_type must be one of: agent, llm, system, user")
}

// ValidateBranchName accepts a branch name of at most maxBranchNameChars
// without control characters. "" passes: whether a name is required, and
// what it defaults to, is the caller's rule.
func ValidateBranchName(name string) error {
	switch {
	case RuneLen(name) > maxBranchNameChars:
		return TooLong("branch_name", maxBranchNameChars)
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return Errorf(EUNPROCESSABLE, "branch_name must not contain control characters")
	}
	return nil
}

// ValidateDisposition accepts the branch dispositions: abandoned, active,
// integrated. EINVALID otherwise.
func ValidateDisposition(d string) error {
	switch d {
	case DispositionAbandoned, DispositionActive, DispositionIntegrated:
		return nil
	}
	return Errorf(EINVALID, "Invalid disposition '%s'. Must be one of: abandoned, active, integrated", Truncate(d, 40))
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
	case RuneLen(n.Text) > maxNoteChars:
		return TooLong("text", maxNoteChars)
	case RuneLen(n.Author) > maxNoteAuthorChars:
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
	return Errorf(EINVALID, "Invalid kind '%s'. Must be one of: milestone, noise, note", Truncate(kind, 40))
}
