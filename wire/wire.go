package wire

import (
	"time"

	"smriti"
	"smriti/internal/nonnil"
)

// The wire format keeps the names of the first implementation so its
// clients work unchanged: a Space is a "repo" (repo_id, /repos) and a
// Checkpoint a "commit" (commit_hash, /commits). Inside Smriti they are
// Space and Checkpoint; this file is the one place that translates.

// Repo is a Space on the wire.
type Repo struct {
	ID          smriti.ID      `json:"id" doc:"The space"`
	RepoSlug    *string        `json:"repo_slug" doc:"A short unique name for the CLI (null when none)"`
	Name        string         `json:"name" doc:"The space's name"`
	Description string         `json:"description" doc:"What the space is about (\"\" when none)"`
	ProjectRoot *string        `json:"project_root" doc:"Absolute path of the project on disk (null when none)"`
	UserID      smriti.ID      `json:"user_id" doc:"The owner"`
	Metadata    map[string]any `json:"metadata" doc:"Free-form JSON object ({} when none)"`
	CreatedAt   time.Time      `json:"created_at" doc:"When it was created (RFC 3339, UTC)"`
	UpdatedAt   time.Time      `json:"updated_at" doc:"When it last changed (RFC 3339, UTC)"`
}

func RepoOf(s *smriti.Space) Repo {
	return Repo{ID: s.ID, RepoSlug: s.Slug, Name: s.Name, Description: s.Description, ProjectRoot: s.ProjectRoot,
		UserID: s.OwnerID, Metadata: s.Metadata, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt}
}

// Commit is a full Checkpoint on the wire (the V2 shape, a superset of V4's).
type Commit struct {
	ID             smriti.ID         `json:"id" doc:"The checkpoint"`
	RepoID         smriti.ID         `json:"repo_id" doc:"The space (UUID; spaces are repos on the wire)"`
	CommitHash     string            `json:"commit_hash" doc:"The checkpoint's hash: 64 hex digits of SHA-256 over its content and its parents' hashes"`
	ParentCommitID *smriti.ID        `json:"parent_commit_id" doc:"The parent checkpoint (null for a root)"`
	MergeParentID  *smriti.ID        `json:"merge_parent_id" doc:"The second parent of a merge checkpoint (null otherwise)"`
	BranchName     string            `json:"branch_name" doc:"The branch it was written on (main, or a fork's branch)"`
	AuthorAgent    *string           `json:"author_agent" doc:"Who wrote it: an agent tag such as claude-code, a model, or a person (null when unknown)"`
	AuthorType     string            `json:"author_type" enum:"user,llm,agent,system" doc:"Who wrote the content: a person (user), the background model from a draft or extract (llm, author_agent names the model), a named agent, or the system (a merge that combined both sides itself)"`
	ProjectRoot    *string           `json:"project_root" doc:"Absolute path of the project the checkpoint is about (null when none)"`
	Message        string            `json:"message" doc:"Title"`
	Summary        string            `json:"summary" doc:"Where things stand, in a few sentences (\"\" when none)"`
	Objective      string            `json:"objective" doc:"What the work is for, in one sentence (\"\" when none)"`
	Decisions      []string          `json:"decisions" doc:"Decisions made"`
	Assumptions    []string          `json:"assumptions" doc:"Things taken for granted but not debated"`
	Tasks          []smriti.Task     `json:"tasks" doc:"Tasks: plain strings or objects with text, id, intent_hint, blocked_by and status"`
	OpenQuestions  []string          `json:"open_questions" doc:"Questions still open"`
	Entities       []string          `json:"entities" doc:"Proper nouns and key technical terms"`
	Artifacts      []smriti.Artifact `json:"artifacts" doc:"Attached artifacts: {id, type, label, content}"`
	ContextBlob    map[string]any    `json:"context_blob" doc:"The first implementation's free-form context object ({} when none)"`
	RawSourceText  *string           `json:"raw_source_text" doc:"The text the checkpoint was extracted from (null when none)"`
	Metadata       map[string]any    `json:"metadata" doc:"Free-form JSON: session_id of the writing session, source_turns of a draft, notes (the checkpoint's notes, for the first implementation's clients)"`
	CreatedAt      time.Time         `json:"created_at" doc:"When it was written (RFC 3339, UTC); part of the hash"`
	// Items is the v5 items view, present only when asked for (?items=true)
	// so that the first implementation's clients see the classic shape.
	Items *[]ItemOut `json:"items,omitempty" doc:"The checkpoint's items with their ids, origins and changes (tombstones last); present only with ?items=true"`
	// RebasedFrom is present only on the answer to a commit that was
	// rebased, so the first implementation's clients see the classic shape.
	RebasedFrom *smriti.ID `json:"rebased_from,omitempty" doc:"Present only when this commit was rebased: the base_checkpoint_id it named, whose change was applied onto the branch head it landed on (parent_commit_id)"`
	// Redactions likewise: present only on the answer to a write that
	// replaced a secret.
	Redactions []smriti.Redaction `json:"redactions,omitempty" doc:"Present only on the answer to a write that replaced secrets before storing: each one's field (message, summary, decisions[2], artifacts[0].content, …) and rule. The stored text holds [redacted: rule] in its place"`
}

// NoteOut is a checkpoint note on the wire.
type NoteOut struct {
	ID           smriti.ID          `json:"id" doc:"The note"`
	CheckpointID smriti.ID          `json:"checkpoint_id" doc:"The checkpoint it annotates"`
	Author       string             `json:"author" doc:"Who wrote it"`
	Text         string             `json:"text" doc:"The note"`
	Kind         string             `json:"kind" doc:"note, milestone or noise"`
	CreatedAt    time.Time          `json:"created_at" doc:"When it was written (RFC 3339, UTC)"`
	Redactions   []smriti.Redaction `json:"redactions,omitempty" doc:"Present only on the answer to a note whose text held a secret: its field (text) and rule; the stored text holds [redacted: rule] in its place"`
}

func NoteOf(n *smriti.Note) NoteOut {
	return NoteOut{ID: n.ID, CheckpointID: n.CheckpointID, Author: n.Author, Text: n.Text, Kind: n.Kind, CreatedAt: n.CreatedAt, Redactions: n.Redactions}
}

func CommitOf(c *smriti.Checkpoint) Commit {
	meta := make(map[string]any, len(c.Metadata)+1)
	for k, v := range c.Metadata {
		meta[k] = v
	}
	// Notes live beside the checkpoint; clients of the first implementation
	// read them from metadata.notes.
	if len(c.Notes) > 0 {
		notes := make([]NoteOut, len(c.Notes))
		for i, n := range c.Notes {
			notes[i] = NoteOf(n)
		}
		meta["notes"] = notes
	}
	return Commit{
		ID: c.ID, RepoID: c.SpaceID, CommitHash: c.Hash, ParentCommitID: c.ParentID, MergeParentID: c.MergeParentID,
		BranchName: c.BranchName, AuthorAgent: c.AuthorAgent, AuthorType: c.AuthorType, ProjectRoot: c.ProjectRoot,
		Message: c.Message, Summary: c.Summary, Objective: c.Objective, Decisions: nonnil.Slice(c.Decisions),
		Assumptions: nonnil.Slice(c.Assumptions), Tasks: nonnil.Slice(c.Tasks), OpenQuestions: nonnil.Slice(c.OpenQuestions),
		Entities: nonnil.Slice(c.Entities), Artifacts: nonnil.Slice(c.Artifacts), ContextBlob: nonnil.Map(c.ContextBlob),
		RawSourceText: c.RawSourceText, Metadata: meta, CreatedAt: c.CreatedAt, RebasedFrom: c.RebasedFrom,
		Redactions: c.Redactions,
	}
}

func CommitsOf(cs []*smriti.Checkpoint) []Commit {
	return nonnil.Convert(cs, CommitOf)
}

// SessionOut is a Session on the wire.
type SessionOut struct {
	ID                     smriti.ID     `json:"id" doc:"The session"`
	RepoID                 *smriti.ID    `json:"repo_id" doc:"Its space (null when none)"`
	Title                  string        `json:"title" doc:"Its title"`
	ActiveProvider         string        `json:"active_provider" doc:"The provider of its newest reply (or the one it was created with)"`
	ActiveModel            string        `json:"active_model" doc:"The model of its newest reply"`
	SeededCommitID         *smriti.ID    `json:"seeded_commit_id" doc:"The checkpoint the session was seeded from at creation (null when none)"`
	ForkedFromCheckpointID *smriti.ID    `json:"forked_from_checkpoint_id" doc:"The checkpoint the session was forked from (null when not a fork)"`
	BranchName             string        `json:"branch_name" doc:"Its branch: main, or the fork's"`
	BranchDisposition      string        `json:"branch_disposition" enum:"active,integrated,abandoned" doc:"What became of the branch: active, integrated or abandoned"`
	TurnCount              int64         `json:"turn_count" doc:"Turns so far (the next sequence number)"`
	Mount                  *SessionMount `json:"mount" doc:"The checkpoint the session's context is anchored to, kept between sends; null when nothing is mounted"`
	CreatedAt              time.Time     `json:"created_at" doc:"When it was created (RFC 3339, UTC)"`
	UpdatedAt              time.Time     `json:"updated_at" doc:"When it last changed (RFC 3339, UTC)"`
}

// SessionMount is a session's mount.
type SessionMount struct {
	CheckpointID   smriti.ID `json:"checkpoint_id" doc:"The mounted checkpoint"`
	HistoryBaseSeq int64     `json:"history_base_seq" doc:"Last sequence number typed before the mount: only later turns reach the model (-1: every turn)"`
}

func SessionMountOf(m *smriti.Mount) *SessionMount {
	if m == nil {
		return nil
	}
	return &SessionMount{CheckpointID: m.CheckpointID, HistoryBaseSeq: m.BaseSeq}
}

func SessionOf(s *smriti.Session) SessionOut {
	return SessionOut{ID: s.ID, RepoID: s.SpaceID, Title: s.Title, ActiveProvider: s.ActiveProvider, ActiveModel: s.ActiveModel,
		SeededCommitID: s.SeededCheckpointID, ForkedFromCheckpointID: s.ForkedFromCheckpointID, BranchName: s.BranchName,
		BranchDisposition: s.BranchDisposition, TurnCount: s.LastSeq + 1, Mount: SessionMountOf(s.Mount), CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt}
}

func SessionsOf(ss []*smriti.Session) []SessionOut {
	return nonnil.Convert(ss, SessionOf)
}

// TurnOut is a Turn on the wire.
type TurnOut struct {
	ID             smriti.ID      `json:"id" doc:"The turn"`
	SessionID      smriti.ID      `json:"session_id" doc:"The session (UUID)"`
	RepoID         *smriti.ID     `json:"repo_id" doc:"The session's space (null when none)"`
	Role           string         `json:"role" doc:"user, assistant or system"`
	Content        string         `json:"content" doc:"The text"`
	Provider       string         `json:"provider" doc:"The provider that answered (for a user turn: the one it was sent to)"`
	Model          string         `json:"model" doc:"The model"`
	SequenceNumber int64          `json:"sequence_number" doc:"Position in the session from 0, without gaps"`
	Metadata       map[string]any `json:"metadata" doc:"Free-form JSON; an assistant turn records its usage and the context it was built from"`
	CreatedAt      time.Time      `json:"created_at" doc:"When it was created (RFC 3339, UTC)"`
}

func turnOf(t *smriti.Turn) TurnOut {
	return TurnOut{ID: t.ID, SessionID: t.SessionID, RepoID: t.SpaceID, Role: t.Role, Content: t.Content, Provider: t.Provider,
		Model: t.Model, SequenceNumber: t.Seq, Metadata: nonnil.Map(t.Metadata), CreatedAt: t.CreatedAt}
}

func TurnsOf(ts []*smriti.Turn) []TurnOut {
	return nonnil.Convert(ts, turnOf)
}

// Head is a space's main head and latest session.
type Head struct {
	RepoID             smriti.ID  `json:"repo_id" doc:"The space"`
	CommitHash         *string    `json:"commit_hash" doc:"main's newest checkpoint's hash (null when main has none)"`
	CommitID           *smriti.ID `json:"commit_id" doc:"main's newest checkpoint (null when none)"`
	Summary            *string    `json:"summary" doc:"Its summary (null when none)"`
	Objective          *string    `json:"objective" doc:"Its objective (null when none)"`
	LatestSessionID    *smriti.ID `json:"latest_session_id" doc:"The space's most recently updated session (null when none)"`
	LatestSessionTitle *string    `json:"latest_session_title" doc:"Its title (null when none)"`
}

// Health is the /health answer.
type Health struct {
	Status       string   `json:"status" doc:"ok, or degraded when the database does not answer (then 503)"`
	Version      string   `json:"version" doc:"The server's version"`
	GitSHA       string   `json:"git_sha" doc:"The commit the server was built from (unknown when not recorded)"`
	Database     string   `json:"database" doc:"The database engine: sqlite or postgres"`
	Capabilities []string `json:"capabilities" doc:"Features agents can test for, as the first implementation lists them, plus ours"`
}

// Liveness is the /health/live answer.
type Liveness struct {
	Status string `json:"status" enum:"ok" doc:"Always ok: the process answers"`
}

// Readiness is the /health/ready answer.
type Readiness struct {
	Status           string    `json:"status" enum:"ready,not_ready" doc:"ready when the database is reachable and writable (HTTP 200), not_ready otherwise (HTTP 503)"`
	Database         string    `json:"database" enum:"sqlite,postgres" doc:"The database engine"`
	Reachable        bool      `json:"reachable" doc:"The database answered within the check's one-second deadline"`
	Writable         bool      `json:"writable" doc:"The database is a primary, not read-only, and committed a transaction within the deadline"`
	MigrationVersion int64     `json:"migration_version" doc:"The newest schema migration applied (0 when the database did not answer)"`
	Problem          string    `json:"problem" doc:"Why the database is not ready; empty when it is"`
	Pool             PoolStats `json:"pool" doc:"This server's database connections"`
}

// PoolStats are a server's database connections.
type PoolStats struct {
	Open      int   `json:"open" doc:"Connections open"`
	InUse     int   `json:"in_use" doc:"Connections serving a request"`
	Idle      int   `json:"idle" doc:"Connections open and free"`
	Max       int   `json:"max" doc:"The pool's bound (--db-max-conns; 0: none)"`
	WaitCount int64 `json:"wait_count" doc:"Times a request waited for a free connection since the server started"`
}

// Verification is the verify answer.
type Verification struct {
	CheckpointID  smriti.ID              `json:"checkpoint_id" doc:"The checkpoint verified"`
	OK            bool                   `json:"ok" doc:"Every hash along its ancestry matches its content"`
	Checked       int                    `json:"checked" doc:"Checkpoints checked"`
	FirstMismatch *smriti.ID             `json:"first_mismatch" doc:"The first checkpoint whose hash does not match (null when ok)"`
	Purged        []smriti.VerifiedPurge `json:"purged" doc:"Fields of checkpoints on the chain a secret purge replaced: proven (hash version 3 keeps their digests) or no longer provable (older versions)"`
}

// StateLists are the structured lists every checkpoint shape carries, in
// the wire's names; the lineage answers embed them.
type StateLists struct {
	Decisions     []string          `json:"decisions" doc:"Decisions made"`
	Assumptions   []string          `json:"assumptions" doc:"Things taken for granted but not debated"`
	Tasks         []smriti.Task     `json:"tasks" doc:"Tasks: plain strings or objects with text, id, intent_hint, blocked_by and status"`
	OpenQuestions []string          `json:"open_questions" doc:"Questions still open"`
	Entities      []string          `json:"entities" doc:"Proper nouns and key technical terms"`
	Artifacts     []smriti.Artifact `json:"artifacts" doc:"Attached artifacts: {id, type, label, content}"`
}

func StateListsOf(c *smriti.Content) StateLists {
	return StateLists{Decisions: nonnil.Slice(c.Decisions), Assumptions: nonnil.Slice(c.Assumptions), Tasks: nonnil.Slice(c.Tasks),
		OpenQuestions: nonnil.Slice(c.OpenQuestions), Entities: nonnil.Slice(c.Entities), Artifacts: nonnil.Slice(c.Artifacts)}
}
