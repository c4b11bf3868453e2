package smriti

import (
	"encoding/json"
	"slices"
	"smriti/internal/textutil"
	"strings"
	"time"
)

// Author types.
const (
	AuthorUser   = "user"
	AuthorLLM    = "llm"
	AuthorAgent  = "agent"
	AuthorSystem = "system"
)

// Checkpoint is an immutable, structured snapshot of what was concluded. On
// the wire a Checkpoint is a "commit" and its Hash the "commit_hash".
type Checkpoint struct {
	ID      ID
	SpaceID ID
	// Hash is a hash chain link: SHA-256 over the checkpoint's canonical
	// content and its parents' hashes (see Checkpoint.ComputeHash).
	Hash          string
	ParentID      *ID
	MergeParentID *ID
	BranchName    string
	AuthorAgent   *string
	AuthorType    string
	ProjectRoot   *string
	Content
	ContextBlob   map[string]any
	RawSourceText *string
	Metadata      map[string]any
	// Notes are annotations stored beside the checkpoint; they never change
	// it and are not covered by its hash.
	Notes []*Note
	// Items are the content's items with identity, tombstones included
	// (see items.go). Loaded only where asked for (CheckpointItems); a
	// checkpoint read without them has Items nil.
	Items []Item
	// HashVersion is 1 for checkpoints written before items had ids (their
	// hash does not cover the items), 2 after, and 3 (CurrentHashVersion)
	// once texts entered the hash by their digests.
	HashVersion int
	// Purged are the fields whose values a secret purge replaced, with the
	// digests of what they held. Loaded where the hash is recomputed
	// (verify, export, sync); nil elsewhere.
	Purged    []PurgedField
	LogPos    int64
	CreatedAt time.Time
	// RebasedFrom is set on the answer to a commit whose base was no longer
	// its branch's head: the base the commit named, whose change was
	// rebased onto the head (the checkpoint's parent). Not stored.
	RebasedFrom *ID
	// Redactions are the secrets the write that answers with this
	// checkpoint replaced before storing it. Not stored.
	Redactions []Redaction
}

// Content is the structured state a checkpoint carries.
type Content struct {
	Message       string // the title
	Objective     string
	Summary       string
	Decisions     []string
	Assumptions   []string
	Tasks         []Task
	OpenQuestions []string
	Entities      []string
	Artifacts     []Artifact
}

// Validate checks a checkpoint's content: a message (title) that is not
// blank and at most MaxCheckpointMessageChars, lists of at most MaxListItems
// items of at most MaxItemChars each, task statuses "", "open" or "done",
// and at most maxCheckpointArtifacts artifacts. EUNPROCESSABLE otherwise.
func (c *Content) Validate() error {
	msg := strings.TrimSpace(c.Message)
	if msg == "" {
		return Errorf(EUNPROCESSABLE, "message is required (the checkpoint's title)")
	}
	if textutil.RuneLen(msg) > MaxCheckpointMessageChars {
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
		if textutil.RuneLen(t.Text) > MaxItemChars {
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
		if textutil.RuneLen(item) > MaxItemChars {
			return Errorf(EUNPROCESSABLE, "%s[%d] is longer than %d characters", name, i, MaxItemChars)
		}
	}
	return nil
}

// Task is an open task: a plain string on the wire, or an object with
// annotations. Structured remembers which, so a string stays a string.
type Task struct {
	Text       string
	ID         string
	IntentHint string
	BlockedBy  Blockers
	Status     string
	Structured bool
}

// Blockers are the ids of the tasks a task waits for. On the wire a client may
// send one id as a string or several as a list; one blocker is written back as
// a string and several as a list, so checkpoints stored before lists existed
// encode (and hash) exactly as they did.
type Blockers []string

// MarshalJSON writes no blocker as "", one as a string, several as a list.
func (b Blockers) MarshalJSON() ([]byte, error) {
	switch len(b) {
	case 0:
		return []byte(`""`), nil
	case 1:
		return json.Marshal(b[0])
	}
	return json.Marshal([]string(b))
}

// UnmarshalJSON accepts null, a string or a list of strings.
func (b *Blockers) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*b = nil
		return nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		*b = nil
		if s != "" {
			*b = Blockers{s}
		}
		return nil
	}
	var list []string
	if err := json.Unmarshal(data, &list); err != nil {
		return Errorf(EUNPROCESSABLE, "task field \"blocked_by\" must be a task id or a list of task ids")
	}
	*b = list
	return nil
}

// String joins the blockers with ", " for one-line displays.
func (b Blockers) String() string { return strings.Join(b, ", ") }

type taskObject struct {
	Text       string   `json:"text"`
	ID         string   `json:"id,omitempty"`
	IntentHint string   `json:"intent_hint,omitempty"`
	BlockedBy  Blockers `json:"blocked_by,omitempty"`
	Status     string   `json:"status,omitempty"`
}

// MarshalJSON writes a plain task as a string and a structured one as an object.
func (t Task) MarshalJSON() ([]byte, error) {
	if !t.Structured {
		return json.Marshal(t.Text)
	}
	return json.Marshal(taskObject{t.Text, t.ID, t.IntentHint, t.BlockedBy, t.Status})
}

// UnmarshalJSON accepts a string or an object with a string "text". Unknown
// keys of an object are dropped; null annotation values count as absent.
func (t *Task) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*t = Task{Text: s}
		return nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return Errorf(EUNPROCESSABLE, "a task must be a string or an object with a \"text\" string")
	}
	get := func(k string) (string, error) {
		v, ok := raw[k]
		if !ok || string(v) == "null" {
			return "", nil
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return "", Errorf(EUNPROCESSABLE, "task field %q must be a string", k)
		}
		return s, nil
	}
	var o taskObject
	var err error
	if o.Text, err = get("text"); err != nil {
		return err
	}
	if _, ok := raw["text"]; !ok {
		return Errorf(EUNPROCESSABLE, "a task object needs a \"text\" string")
	}
	if o.ID, err = get("id"); err != nil {
		return err
	}
	if o.IntentHint, err = get("intent_hint"); err != nil {
		return err
	}
	if v, ok := raw["blocked_by"]; ok {
		if err := json.Unmarshal(v, &o.BlockedBy); err != nil {
			return err
		}
	}
	if o.Status, err = get("status"); err != nil {
		return err
	}
	*t = Task{Text: o.Text, ID: o.ID, IntentHint: o.IntentHint, BlockedBy: o.BlockedBy, Status: o.Status, Structured: true}
	return nil
}

// Artifact is a piece of content attached to a checkpoint verbatim.
type Artifact struct {
	ID      string `json:"id" doc:"A short id, unique within the checkpoint"`
	Type    string `json:"type" doc:"What the content is: a code language (python, bash, json…), markdown or text"`
	Label   string `json:"label" doc:"A short human label"`
	Content string `json:"content" doc:"The artifact itself, verbatim"`
}

// SourceTurns records which turns a drafted checkpoint came from.
type SourceTurns struct {
	SessionID ID    `json:"session_id" doc:"The session the turns are in"`
	FromSeq   int64 `json:"from_seq" doc:"First sequence number, inclusive"`
	ToSeq     int64 `json:"to_seq" doc:"Last sequence number, inclusive"`
}

// Check checks that st names turns that exist in se, the session it names
// (nil when no such session is visible to the caller).
func (st SourceTurns) Check(se *Session) error {
	if se == nil || se.ID != st.SessionID {
		return Errorf(EUNPROCESSABLE, "source_turns.session_id %s names no session of yours", st.SessionID)
	}
	if st.FromSeq < 0 || st.ToSeq < st.FromSeq {
		return Errorf(EUNPROCESSABLE, "source_turns needs from_seq and to_seq with 0 <= from_seq <= to_seq")
	}
	if st.ToSeq > se.LastSeq {
		if se.LastSeq < 0 {
			return Errorf(EUNPROCESSABLE, "source_turns names turns %d..%d, but session %s has no turns", st.FromSeq, st.ToSeq, se.ID)
		}
		return Errorf(EUNPROCESSABLE, "source_turns names turns %d..%d, but session %s ends at turn %d", st.FromSeq, st.ToSeq, se.ID, se.LastSeq)
	}
	return nil
}

// CommitBranch is the branch a checkpoint written in session se goes on:
// the session's branch, or main for a write with no session (se nil).
func (se *Session) CommitBranch() string {
	if se == nil || se.BranchName == "" {
		return MainBranch
	}
	return se.BranchName
}

// CommitBase is the checkpoint the next checkpoint written in session se
// builds on — its parent, and the base a draft or extract for it changes:
// head, the newest checkpoint of se.CommitBranch(), when there is one; else,
// on a forked branch, the checkpoint it was forked from; else nil (the
// first checkpoint of its line). se nil is a write with no session.
func (se *Session) CommitBase(head *ID) *ID {
	if head != nil {
		return head
	}
	if se != nil && se.CommitBranch() != MainBranch && se.ForkedFromCheckpointID != nil {
		return se.ForkedFromCheckpointID
	}
	return nil
}

// CheckpointCommit writes a checkpoint from a session: its branch is the
// session's branch, and its parent is that branch's head — or, for a fork's
// first checkpoint, the checkpoint the fork was made from.
type CheckpointCommit struct {
	SpaceID ID
	// SessionID is the writing session, whose branch the checkpoint goes
	// on; NilID commits onto main's head with no session.
	SessionID ID
	Content   Content
	// AuthorType and AuthorAgent are stored as given (see CommitAuthor);
	// an empty AuthorType is AuthorUser.
	AuthorType  string
	AuthorAgent *string
	ProjectRoot *string
	SourceTurns *SourceTurns
	// Items, when given, propose the items' ids, supersedes and origins
	// (see AssignItems); the content stays authoritative for the texts.
	Items []Item
	// Model is the model that drafted the content, for new items' origin.
	Model *string
	// Git is where the project's code stood (stored as metadata.git).
	Git *GitState
	// BaseCheckpointID is the checkpoint the content was written against
	// (a draft's base, the checkpoint a form was loaded from). When the
	// branch head has moved past it, the content's change over the base is
	// rebased onto the head by item id (see RebaseChange), or the commit
	// fails with a *CommitConflict. Nil commits onto the head as it is.
	BaseCheckpointID *ID
	// Resolutions settle the conflicts of a rebase, as a merge's do: "ours"
	// is the branch head's value, "theirs" this commit's.
	Resolutions []MergeResolution
}

// CommitConflict is the Data of the ECONFLICT a commit gets when its change
// and the changes made on its branch since its base touch the same items:
// the conflicts in a merge preview's shape (ours: the head; theirs: the
// commit), the head to resolve against, and the base the commit named.
type CommitConflict struct {
	Message          string          `json:"detail"`
	Conflicts        []MergeConflict `json:"conflicts"`
	HeadCheckpointID ID              `json:"head_checkpoint_id"`
	BaseCheckpointID ID              `json:"base_checkpoint_id"`
}

// CheckpointCreate writes a checkpoint with an explicit parent and branch
// (the legacy create path, and merges).
type CheckpointCreate struct {
	SpaceID       ID
	ParentID      *ID
	MergeParentID *ID
	BranchName    string
	AuthorAgent   *string
	AuthorType    string
	ProjectRoot   *string
	Content       Content
	ContextBlob   map[string]any
	RawSourceText *string
	Metadata      map[string]any
	// IntegrateBranch, when set, marks every session of that branch in the
	// space as integrated in the same transaction (used by merge).
	IntegrateBranch string
	// ParentMustBeHead makes the write fail with ECONFLICT unless ParentID is
	// still the newest checkpoint of BranchName when the transaction runs,
	// so a checkpoint committed meanwhile is never silently split off.
	ParentMustBeHead bool
	// Items and Model as in CheckpointCommit.
	Items []Item
	Model *string
}

// Validate checks a commit from a session: its content, its project root
// (checkPath), its git state (GitState.Validate) and, when given, its
// source turns (0 <= FromSeq <= ToSeq). EUNPROCESSABLE otherwise.
func (in *CheckpointCommit) Validate() error {
	if err := in.Content.Validate(); err != nil {
		return err
	}
	if err := checkOptPath("project_root", in.ProjectRoot); err != nil {
		return err
	}
	if in.Git != nil {
		if err := in.Git.Validate(); err != nil {
			return err
		}
	}
	if st := in.SourceTurns; st != nil && (st.FromSeq < 0 || st.ToSeq < st.FromSeq) {
		return Errorf(EUNPROCESSABLE, "source_turns needs from_seq and to_seq with 0 <= from_seq <= to_seq")
	}
	return nil
}

// Validate checks a checkpoint written with an explicit parent: its
// content, author type ("" means llm), branch name ("" means main), project
// root (checkPath) and metadata.git when there is one (GitStateOf).
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
	if err := checkOptPath("project_root", in.ProjectRoot); err != nil {
		return err
	}
	if _, err := GitStateOf(in.Metadata); err != nil {
		return err
	}
	return ValidateBranchName(in.BranchName)
}

func checkOptPath(field string, p *string) error {
	if p == nil {
		return nil
	}
	return checkPath(field, *p)
}

// validateAuthorType accepts the author types: agent, llm, system, user.
func validateAuthorType(t string) error {
	switch t {
	case AuthorAgent, AuthorLLM, AuthorSystem, AuthorUser:
		return nil
	}
	return Errorf(EUNPROCESSABLE, "author_type must be one of: agent, llm, system, user")
}

// Verification is the result of recomputing a hash chain.
type Verification struct {
	OK bool `json:"ok"`
	// Checked is how many checkpoints were recomputed.
	Checked int `json:"checked"`
	// FirstMismatch is the checkpoint nearest the start whose stored hash
	// differs from the recomputed one.
	FirstMismatch *ID `json:"first_mismatch"`
	// Purged are the purged fields of the checkpoints on the chain: proven
	// (hash version 3) or no longer provable (older versions, whose hashes
	// are taken as stored rather than failing the chain).
	Purged []VerifiedPurge `json:"purged,omitempty"`
}

// Equal reports whether two tasks have the same text, annotations and form.
func (t Task) Equal(o Task) bool {
	return t.Text == o.Text && t.ID == o.ID && t.IntentHint == o.IntentHint && t.Status == o.Status &&
		t.Structured == o.Structured && slices.Equal(t.BlockedBy, o.BlockedBy)
}
