package wire

import (
	"strings"

	"smriti"
	"smriti/internal/nonnil"
)

// ContentFields are the structured fields every checkpoint write accepts.
type ContentFields struct {
	Message       *string           `json:"message" required:"true" doc:"The checkpoint's title (required, not blank)"`
	Summary       string            `json:"summary" required:"false" doc:"Where things stand (default \"\")"`
	Objective     string            `json:"objective" required:"false" doc:"What the work is for (default \"\")"`
	Decisions     []string          `json:"decisions" required:"false" doc:"Decisions made (default [])"`
	Assumptions   []string          `json:"assumptions" required:"false" doc:"Things taken for granted (default [])"`
	Tasks         []smriti.Task     `json:"tasks" required:"false" doc:"Tasks: strings or {text, id?, intent_hint?, blocked_by?, status?} (default [])"`
	OpenQuestions []string          `json:"open_questions" required:"false" doc:"Questions still open (default [])"`
	Entities      []string          `json:"entities" required:"false" doc:"Proper nouns and key terms (default [])"`
	Artifacts     []smriti.Artifact `json:"artifacts" required:"false" doc:"Artifacts {id, type, label, content} (default [])"`
}

// CommitRequest writes a checkpoint from a session (POST /api/v4/chat/commit).
type CommitRequest struct {
	// ClientRequestID is the body form of the Idempotency-Key header.
	ClientRequestID string  `json:"client_request_id" required:"false" doc:"Idempotency key, when the Idempotency-Key header is not sent: a retry with the same key and request returns the first answer without writing again"`
	RepoID          *string `json:"repo_id" required:"true" doc:"The space (UUID); must be the session's"`
	SessionID       *string `json:"session_id" required:"true" doc:"The writing session (UUID): its branch is the checkpoint's branch"`
	ContentFields
	AuthorAgent *string        `json:"author_agent" doc:"The agent that wrote the checkpoint; makes author_type \"agent\" unless author_type says otherwise"`
	AuthorType  string         `json:"author_type" required:"false" enum:"user,llm,agent,system" doc:"Who wrote the content: \"llm\" for a draft or extract (the background model becomes author_agent); default \"user\", or \"agent\" with author_agent, or \"llm\" with source_turns"`
	ProjectRoot *string        `json:"project_root" doc:"Absolute path of the project (default: the space's)"`
	SourceTurns *SourceTurnsIn `json:"source_turns" doc:"The turns a draft was made from; marks the content as drafted (author_type \"llm\")"`
	ItemFields
	Git *GitStateIn `json:"git" doc:"Where the project's code stood (a git work tree at project_root); stored as metadata.git"`
}

// ItemFields let a checkpoint write keep its items' identity (v5).
type ItemFields struct {
	Items            []ItemIn                 `json:"items" required:"false" doc:"The items with their ids (from a draft's items, or a checkpoint's ?items=true view): an item whose normalised text matches one of these keeps its id, supersedes and origin. Without it, items get their ids by matching the parent's by normalised text"`
	BaseCheckpointID *string                  `json:"base_checkpoint_id" required:"false" doc:"The checkpoint this content was written against (a draft's base_checkpoint_id, the checkpoint a form was loaded from). If the branch head has moved past it, the change over it is rebased onto the head by item id, or the answer is 409 with the conflicting items. Without it the content is saved onto the head as it is"`
	Model            *string                  `json:"model" required:"false" doc:"The model that drafted the content, recorded as the origin of new items"`
	Resolutions      []smriti.MergeResolution `json:"resolutions" required:"false" doc:"Settle the conflicts of a 409 (send them with base_checkpoint_id unchanged): field and key as the 409 names them, choice ours (the branch head's value), theirs (this commit's), base, or custom with value"`
}

// ParseItems validates the proposed items and the base id.
func (f *ItemFields) ParseItems() ([]smriti.Item, error) {
	if _, err := OptID("base_checkpoint_id", f.BaseCheckpointID); err != nil {
		return nil, err
	}
	return ItemsIn(f.Items)
}

// SpaceCommitRequest writes a checkpoint onto main's head with no session
// (POST /api/v5/spaces/{space_id}/checkpoints): a checkpoint needs no
// conversation to stand on.
type SpaceCommitRequest struct {
	// ClientRequestID is the body form of the Idempotency-Key header.
	ClientRequestID string `json:"client_request_id" required:"false" doc:"Idempotency key, when the Idempotency-Key header is not sent: a retry with the same key and request returns the first answer without writing again"`
	ContentFields
	AuthorAgent *string `json:"author_agent" doc:"The agent that wrote the checkpoint; makes author_type \"agent\" unless author_type says otherwise"`
	AuthorType  string  `json:"author_type" required:"false" enum:"user,llm,agent,system" doc:"Who wrote the content: \"llm\" for an extract (the background model becomes author_agent); default \"user\", or \"agent\" with author_agent"`
	ProjectRoot *string `json:"project_root" doc:"Absolute path of the project (default: the space's)"`
	ItemFields
	Git *GitStateIn `json:"git" doc:"Where the project's code stood (a git work tree at project_root); stored as metadata.git"`
}

// GitStateIn is the code a checkpoint was written against.
type GitStateIn struct {
	Commit     string `json:"commit" required:"true" doc:"HEAD's full commit hash"`
	Branch     string `json:"branch" required:"false" doc:"HEAD's branch, empty when detached"`
	Dirty      bool   `json:"dirty" required:"false" doc:"True when the work tree had uncommitted changes"`
	DiffSHA256 string `json:"diff_sha256" required:"false" doc:"SHA-256 of git diff HEAD (and untracked files) when dirty"`
}

// GitStateInOf is g on the wire (nil for nil).
func GitStateInOf(g *smriti.GitState) *GitStateIn {
	if g == nil {
		return nil
	}
	return &GitStateIn{Commit: g.Commit, Branch: g.Branch, Dirty: g.Dirty, DiffSHA256: g.DiffSHA256}
}

// GitState is the domain's git state (nil for nil).
func (g *GitStateIn) GitState() *smriti.GitState {
	if g == nil {
		return nil
	}
	return &smriti.GitState{Commit: g.Commit, Branch: g.Branch, Dirty: g.Dirty, DiffSHA256: g.DiffSHA256}
}

// SourceTurnsIn names the turns a drafted checkpoint came from.
type SourceTurnsIn struct {
	SessionID *string `json:"session_id" required:"true" doc:"The session the turns are in (UUID)"`
	FromSeq   *int64  `json:"from_seq" required:"true" doc:"First sequence number, inclusive"`
	ToSeq     *int64  `json:"to_seq" required:"true" doc:"Last sequence number, inclusive"`
}

// LegacyCommitRequest creates a checkpoint with an explicit parent
// (POST /api/v2/commits).
type LegacyCommitRequest struct {
	// ClientRequestID is the body form of the Idempotency-Key header.
	ClientRequestID string  `json:"client_request_id" required:"false" doc:"Idempotency key, when the Idempotency-Key header is not sent: a retry with the same key and request returns the first answer without writing again"`
	RepoID          *string `json:"repo_id" required:"true" doc:"The space (UUID)"`
	ParentCommitID  *string `json:"parent_commit_id" doc:"The parent checkpoint (UUID; default: the branch's newest)"`
	BranchName      string  `json:"branch_name" required:"false" doc:"The branch (default main)"`
	AuthorAgent     *string `json:"author_agent" doc:"Who wrote it, such as claude-code (null: nobody is invented)"`
	AuthorType      string  `json:"author_type" required:"false" doc:"user, llm, agent or system (default: agent when author_agent is given, else user)"`
	ProjectRoot     *string `json:"project_root" doc:"Absolute path of the project (default: the space's)"`
	ContentFields
	ContextBlob   map[string]any `json:"context_blob" required:"false" doc:"The first implementation's free-form context object (default {})"`
	RawSourceText *string        `json:"raw_source_text" doc:"The text the checkpoint came from (default null)"`
	Metadata      map[string]any `json:"metadata" required:"false" doc:"Free-form JSON object (default {})"`
	ItemFields
}

// NoteRequest adds a note to a checkpoint.
type NoteRequest struct {
	// ClientRequestID is the body form of the Idempotency-Key header.
	ClientRequestID string  `json:"client_request_id" required:"false" doc:"Idempotency key, when the Idempotency-Key header is not sent: a retry with the same key and request returns the first answer without writing again"`
	Text            *string `json:"text" required:"true" doc:"The note: not blank"`
	Author          *string `json:"author" doc:"Who writes it (default \"\")"`
	Kind            *string `json:"kind" doc:"note (default), milestone or noise"`
}

// Content maps the structured fields to the domain's (validated by the
// service that writes them).
func (f *ContentFields) Content() smriti.Content {
	msg := ""
	if f.Message != nil {
		msg = strings.TrimSpace(*f.Message)
	}
	return smriti.Content{Message: msg, Summary: f.Summary, Objective: f.Objective, Decisions: nonnil.Slice(f.Decisions),
		Assumptions: nonnil.Slice(f.Assumptions), Tasks: nonnil.Slice(f.Tasks), OpenQuestions: nonnil.Slice(f.OpenQuestions),
		Entities: nonnil.Slice(f.Entities), Artifacts: nonnil.Slice(f.Artifacts)}
}
