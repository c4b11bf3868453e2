package wire

import (
	"time"

	"smriti"
)

// ContextPackRequest exports a checkpoint for another tool.
type ContextPackRequest struct {
	CommitID *string `json:"commit_id" required:"true" doc:"The checkpoint to pack (UUID)"`
	// Target is generic (default), claude, cursor, chatgpt or agents_md.
	Target *string `json:"target" doc:"generic (default), claude, cursor, chatgpt or agents_md"`
}

// ContextPack is a checkpoint rendered for another tool.
type ContextPack struct {
	Content    string `json:"content" doc:"The pack: the checkpoint as markdown laid out for the target tool"`
	TargetTool string `json:"target_tool" doc:"The tool it is laid out for: generic, claude, cursor, chatgpt or agents_md"`
	Format     string `json:"format" doc:"Always markdown"`
}

// Snapshot is a checkpoint's state in a parent delta.
type Snapshot struct {
	ID             smriti.ID     `json:"id" doc:"The checkpoint"`
	CommitHash     string        `json:"commit_hash" doc:"The checkpoint's hash: 64 hex digits of SHA-256 over its content and its parents' hashes"`
	Message        string        `json:"message" doc:"Its title"`
	Summary        string        `json:"summary" doc:"Where things stand, in a few sentences (\"\" when none)"`
	Objective      string        `json:"objective" doc:"What the work is for, in one sentence (\"\" when none)"`
	Decisions      []string      `json:"decisions" doc:"Decisions made"`
	Assumptions    []string      `json:"assumptions" doc:"Things taken for granted but not debated"`
	Tasks          []smriti.Task `json:"tasks" doc:"Tasks: plain strings or objects with text, id, intent_hint, blocked_by and status"`
	OpenQuestions  []string      `json:"open_questions" doc:"Questions still open"`
	Entities       []string      `json:"entities" doc:"Proper nouns and key technical terms"`
	AuthorAgent    *string       `json:"author_agent" doc:"Who wrote it: an agent tag such as claude-code, a model, or a person (null when unknown)"`
	AuthorType     string        `json:"author_type" doc:"Who wrote the content: user, llm, agent or system"`
	BranchName     string        `json:"branch_name" doc:"The branch (main, or a fork's branch)"`
	ParentCommitID *smriti.ID    `json:"parent_commit_id" doc:"The parent checkpoint (null for a root)"`
	CreatedAt      time.Time     `json:"created_at" doc:"When it was written (RFC 3339, UTC)"`
}

// ParentDelta is a checkpoint beside its parent (null for a root).
type ParentDelta struct {
	Current Snapshot  `json:"current" doc:"The checkpoint"`
	Parent  *Snapshot `json:"parent" doc:"Its parent (null for a root)"`
}
