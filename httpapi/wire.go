package httpapi

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
	ID          smriti.ID      `json:"id"`
	RepoSlug    *string        `json:"repo_slug"`
	Name        string         `json:"name"`
	Description string         `json:"description"`
	ProjectRoot *string        `json:"project_root"`
	UserID      smriti.ID      `json:"user_id"`
	Metadata    map[string]any `json:"metadata"`
	CreatedAt   time.Time      `json:"created_at"`
	UpdatedAt   time.Time      `json:"updated_at"`
}

func repoOf(s *smriti.Space) Repo {
	return Repo{ID: s.ID, RepoSlug: s.Slug, Name: s.Name, Description: s.Description, ProjectRoot: s.ProjectRoot,
		UserID: s.OwnerID, Metadata: s.Metadata, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt}
}

// Commit is a full Checkpoint on the wire (the V2 shape, a superset of V4's).
type Commit struct {
	ID             smriti.ID         `json:"id"`
	RepoID         smriti.ID         `json:"repo_id"`
	CommitHash     string            `json:"commit_hash"`
	ParentCommitID *smriti.ID        `json:"parent_commit_id"`
	MergeParentID  *smriti.ID        `json:"merge_parent_id"`
	BranchName     string            `json:"branch_name"`
	AuthorAgent    *string           `json:"author_agent"`
	AuthorType     string            `json:"author_type" enum:"user,llm,agent,system" doc:"Who wrote the content: a person (user), the background model from a draft or extract (llm, author_agent names the model), a named agent, or the system (a merge that combined both sides itself)"`
	ProjectRoot    *string           `json:"project_root"`
	Message        string            `json:"message"`
	Summary        string            `json:"summary"`
	Objective      string            `json:"objective"`
	Decisions      []string          `json:"decisions"`
	Assumptions    []string          `json:"assumptions"`
	Tasks          []smriti.Task     `json:"tasks"`
	OpenQuestions  []string          `json:"open_questions"`
	Entities       []string          `json:"entities"`
	Artifacts      []smriti.Artifact `json:"artifacts"`
	ContextBlob    map[string]any    `json:"context_blob"`
	RawSourceText  *string           `json:"raw_source_text"`
	Metadata       map[string]any    `json:"metadata"`
	CreatedAt      time.Time         `json:"created_at"`
}

// NoteOut is a checkpoint note on the wire.
type NoteOut struct {
	ID           smriti.ID `json:"id"`
	CheckpointID smriti.ID `json:"checkpoint_id"`
	Author       string    `json:"author"`
	Text         string    `json:"text"`
	Kind         string    `json:"kind"`
	CreatedAt    time.Time `json:"created_at"`
}

func noteOf(n *smriti.Note) NoteOut {
	return NoteOut{ID: n.ID, CheckpointID: n.CheckpointID, Author: n.Author, Text: n.Text, Kind: n.Kind, CreatedAt: n.CreatedAt}
}

func commitOf(c *smriti.Checkpoint) Commit {
	meta := make(map[string]any, len(c.Metadata)+1)
	for k, v := range c.Metadata {
		meta[k] = v
	}
	// Notes live beside the checkpoint; clients of the first implementation
	// read them from metadata.notes.
	if len(c.Notes) > 0 {
		notes := make([]NoteOut, len(c.Notes))
		for i, n := range c.Notes {
			notes[i] = noteOf(n)
		}
		meta["notes"] = notes
	}
	return Commit{
		ID: c.ID, RepoID: c.SpaceID, CommitHash: c.Hash, ParentCommitID: c.ParentID, MergeParentID: c.MergeParentID,
		BranchName: c.BranchName, AuthorAgent: c.AuthorAgent, AuthorType: c.AuthorType, ProjectRoot: c.ProjectRoot,
		Message: c.Message, Summary: c.Summary, Objective: c.Objective, Decisions: nonnil.Slice(c.Decisions),
		Assumptions: nonnil.Slice(c.Assumptions), Tasks: nonnil.Slice(c.Tasks), OpenQuestions: nonnil.Slice(c.OpenQuestions),
		Entities: nonnil.Slice(c.Entities), Artifacts: nonnil.Slice(c.Artifacts), ContextBlob: nonnil.Map(c.ContextBlob),
		RawSourceText: c.RawSourceText, Metadata: meta, CreatedAt: c.CreatedAt,
	}
}

func commitsOf(cs []*smriti.Checkpoint) []Commit {
	return nonnil.Convert(cs, commitOf)
}

// SessionOut is a Session on the wire.
type SessionOut struct {
	ID                     smriti.ID     `json:"id"`
	RepoID                 *smriti.ID    `json:"repo_id"`
	Title                  string        `json:"title"`
	ActiveProvider         string        `json:"active_provider"`
	ActiveModel            string        `json:"active_model"`
	SeededCommitID         *smriti.ID    `json:"seeded_commit_id"`
	ForkedFromCheckpointID *smriti.ID    `json:"forked_from_checkpoint_id"`
	BranchName             string        `json:"branch_name"`
	BranchDisposition      string        `json:"branch_disposition" enum:"active,integrated,abandoned"`
	TurnCount              int64         `json:"turn_count"`
	Mount                  *SessionMount `json:"mount" doc:"The checkpoint the session's context is anchored to, kept between sends; null when nothing is mounted"`
	CreatedAt              time.Time     `json:"created_at"`
	UpdatedAt              time.Time     `json:"updated_at"`
}

// SessionMount is a session's mount.
type SessionMount struct {
	CheckpointID   smriti.ID `json:"checkpoint_id" doc:"The mounted checkpoint"`
	HistoryBaseSeq int64     `json:"history_base_seq" doc:"Last sequence number typed before the mount: only later turns reach the model (-1: every turn)"`
}

func sessionMountOf(m *smriti.Mount) *SessionMount {
	if m == nil {
		return nil
	}
	return &SessionMount{CheckpointID: m.CheckpointID, HistoryBaseSeq: m.BaseSeq}
}

func sessionOf(s *smriti.Session) SessionOut {
	return SessionOut{ID: s.ID, RepoID: s.SpaceID, Title: s.Title, ActiveProvider: s.ActiveProvider, ActiveModel: s.ActiveModel,
		SeededCommitID: s.SeededCheckpointID, ForkedFromCheckpointID: s.ForkedFromCheckpointID, BranchName: s.BranchName,
		BranchDisposition: s.BranchDisposition, TurnCount: s.LastSeq + 1, Mount: sessionMountOf(s.Mount), CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt}
}

func sessionsOf(ss []*smriti.Session) []SessionOut {
	return nonnil.Convert(ss, sessionOf)
}

// TurnOut is a Turn on the wire.
type TurnOut struct {
	ID             smriti.ID      `json:"id"`
	SessionID      smriti.ID      `json:"session_id"`
	RepoID         *smriti.ID     `json:"repo_id"`
	Role           string         `json:"role"`
	Content        string         `json:"content"`
	Provider       string         `json:"provider"`
	Model          string         `json:"model"`
	SequenceNumber int64          `json:"sequence_number"`
	Metadata       map[string]any `json:"metadata"`
	CreatedAt      time.Time      `json:"created_at"`
}

func turnOf(t *smriti.Turn) TurnOut {
	return TurnOut{ID: t.ID, SessionID: t.SessionID, RepoID: t.SpaceID, Role: t.Role, Content: t.Content, Provider: t.Provider,
		Model: t.Model, SequenceNumber: t.Seq, Metadata: nonnil.Map(t.Metadata), CreatedAt: t.CreatedAt}
}

func turnsOf(ts []*smriti.Turn) []TurnOut {
	return nonnil.Convert(ts, turnOf)
}

// Head is a space's main head and latest session.
type Head struct {
	RepoID             smriti.ID  `json:"repo_id"`
	CommitHash         *string    `json:"commit_hash"`
	CommitID           *smriti.ID `json:"commit_id"`
	Summary            *string    `json:"summary"`
	Objective          *string    `json:"objective"`
	LatestSessionID    *smriti.ID `json:"latest_session_id"`
	LatestSessionTitle *string    `json:"latest_session_title"`
}

// Health is the /health answer.
type Health struct {
	Status       string   `json:"status"`
	Version      string   `json:"version"`
	GitSHA       string   `json:"git_sha"`
	Database     string   `json:"database"`
	Capabilities []string `json:"capabilities"`
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
	CheckpointID  smriti.ID  `json:"checkpoint_id"`
	OK            bool       `json:"ok"`
	Checked       int        `json:"checked"`
	FirstMismatch *smriti.ID `json:"first_mismatch"`
}

// StateLists are the structured lists every checkpoint shape carries, in
// the wire's names; the lineage answers embed them.
type StateLists struct {
	Decisions     []string          `json:"decisions"`
	Assumptions   []string          `json:"assumptions"`
	Tasks         []smriti.Task     `json:"tasks"`
	OpenQuestions []string          `json:"open_questions"`
	Entities      []string          `json:"entities"`
	Artifacts     []smriti.Artifact `json:"artifacts"`
}

func stateListsOf(c *smriti.Content) StateLists {
	return StateLists{Decisions: nonnil.Slice(c.Decisions), Assumptions: nonnil.Slice(c.Assumptions), Tasks: nonnil.Slice(c.Tasks),
		OpenQuestions: nonnil.Slice(c.OpenQuestions), Entities: nonnil.Slice(c.Entities), Artifacts: nonnil.Slice(c.Artifacts)}
}
