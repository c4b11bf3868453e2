package httpapi

import (
	"net/http"
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
	RepoID    *string `json:"repo_id" required:"true" doc:"The space (UUID); must be the session's"`
	SessionID *string `json:"session_id" required:"true" doc:"The writing session (UUID): its branch is the checkpoint's branch"`
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
	Items            []ItemIn `json:"items" required:"false" doc:"The items with their ids (from a draft's items, or a checkpoint's ?items=true view): an item whose normalised text matches one of these keeps its id, supersedes and origin. Without it, items get their ids by matching the parent's by normalised text"`
	BaseCheckpointID *string  `json:"base_checkpoint_id" required:"false" doc:"The checkpoint a draft was based on (informational: ids are matched against the actual parent)"`
	Model            *string  `json:"model" required:"false" doc:"The model that drafted the content, recorded as the origin of new items"`
}

// items validates the proposed items and the base id.
func (f *ItemFields) items() ([]smriti.Item, error) {
	if _, err := optID("base_checkpoint_id", f.BaseCheckpointID); err != nil {
		return nil, err
	}
	return itemsIn(f.Items)
}

// SpaceCommitRequest writes a checkpoint onto main's head with no session
// (POST /api/v5/spaces/{space_id}/checkpoints): a checkpoint needs no
// conversation to stand on.
type SpaceCommitRequest struct {
	ContentFields
	AuthorAgent *string `json:"author_agent" doc:"The agent that wrote the checkpoint; makes author_type \"agent\" unless author_type says otherwise"`
	AuthorType  string  `json:"author_type" required:"false" enum:"user,llm,agent,system" doc:"Who wrote the content: \"llm\" for an extract (the background model becomes author_agent); default \"user\", or \"agent\" with author_agent"`
	ProjectRoot *string `json:"project_root" doc:"Absolute path of the project (default: the space's)"`
	ItemFields
	Git *GitStateIn `json:"git" doc:"Where the project's code stood (a git work tree at project_root); stored as metadata.git"`
}

// commitIn is the commit a request asks for, session and source turns
// aside.
func commitIn(space smriti.ID, content smriti.Content, authorType string, authorAgent, projectRoot *string, f *ItemFields, g *GitStateIn) (smriti.CheckpointCommit, error) {
	items, err := f.items()
	if err != nil {
		return smriti.CheckpointCommit{}, err
	}
	in := smriti.CheckpointCommit{SpaceID: space, Content: content, AuthorType: authorType, AuthorAgent: authorAgent,
		ProjectRoot: projectRoot, Items: items, Model: f.Model}
	if g != nil {
		if !validCommitHash(g.Commit) || (g.DiffSHA256 != "" && !validHex(g.DiffSHA256, 64)) || len(g.Branch) > 255 {
			return in, smriti.Errorf(smriti.EINVALID, "git: commit must be a 40- or 64-digit hex hash, diff_sha256 64 hex digits, branch at most 255 characters")
		}
		in.Git = &smriti.GitState{Commit: g.Commit, Branch: g.Branch, Dirty: g.Dirty, DiffSHA256: g.DiffSHA256}
	}
	return in, nil
}

func (s *Server) commitToSpace(w http.ResponseWriter, r *http.Request) error {
	spaceID, err := pathID(r, "space_id")
	if err != nil {
		return err
	}
	var req SpaceCommitRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	in, err := commitIn(spaceID, req.content(), req.AuthorType, req.AuthorAgent, req.ProjectRoot, &req.ItemFields, req.Git)
	if err != nil {
		return err
	}
	c, err := s.app.CommitCheckpoint(r.Context(), in)
	if err != nil {
		return err
	}
	out := commitOf(c)
	if err := s.withItems(r, c, &out); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, out)
	return nil
}

// GitStateIn is the code a checkpoint was written against.
type GitStateIn struct {
	Commit     string `json:"commit" required:"true" doc:"HEAD's full commit hash"`
	Branch     string `json:"branch" required:"false" doc:"HEAD's branch, empty when detached"`
	Dirty      bool   `json:"dirty" required:"false" doc:"True when the work tree had uncommitted changes"`
	DiffSHA256 string `json:"diff_sha256" required:"false" doc:"SHA-256 of git diff HEAD (and untracked files) when dirty"`
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
	RepoID         *string `json:"repo_id" required:"true" doc:"The space (UUID)"`
	ParentCommitID *string `json:"parent_commit_id" doc:"The parent checkpoint (UUID; default: the branch's newest)"`
	BranchName     string  `json:"branch_name" required:"false" doc:"The branch (default main)"`
	AuthorAgent    *string `json:"author_agent" doc:"Who wrote it, such as claude-code (null: nobody is invented)"`
	AuthorType     string  `json:"author_type" required:"false" doc:"user, llm, agent or system (default: agent when author_agent is given, else user)"`
	ProjectRoot    *string `json:"project_root" doc:"Absolute path of the project (default: the space's)"`
	ContentFields
	ContextBlob   map[string]any `json:"context_blob" required:"false" doc:"The first implementation's free-form context object (default {})"`
	RawSourceText *string        `json:"raw_source_text" doc:"The text the checkpoint came from (default null)"`
	Metadata      map[string]any `json:"metadata" required:"false" doc:"Free-form JSON object (default {})"`
	ItemFields
}

// NoteRequest adds a note to a checkpoint.
type NoteRequest struct {
	Text   *string `json:"text" required:"true" doc:"The note: not blank"`
	Author *string `json:"author" doc:"Who writes it (default \"\")"`
	Kind   *string `json:"kind" doc:"note (default), milestone or noise"`
}

// itemsQuery documents ?items=true.
var itemsQuery = map[string]string{"items": "true adds the items view (ids, origins, changes) to the answer"}

func (s *Server) checkpointRoutes() []route {
	return []route{
		{method: "POST", path: "/api/v4/chat/commit", summary: "Save a checkpoint from a session (branch and parent follow the session)", tag: "checkpoints", query: itemsQuery,
			in: CommitRequest{}, out: Commit{}, status: 201, handle: s.commitCheckpoint, errors: []int{409}},
		{method: "POST", path: "/api/v5/spaces/{space_id}/checkpoints", summary: "Save a checkpoint onto main's head with no session (the CLI's and MCP's checkpoint create)", tag: "checkpoints", query: itemsQuery,
			in: SpaceCommitRequest{}, out: Commit{}, status: 201, handle: s.commitToSpace, errors: []int{409}},
		{method: "POST", path: "/api/v2/commits", summary: "Create a checkpoint with an explicit parent (legacy)", tag: "checkpoints", query: itemsQuery,
			in: LegacyCommitRequest{}, out: Commit{}, status: 201, handle: s.createCheckpoint, errors: []int{409}},
		{method: "GET", path: "/api/v2/commits/{commit_id}", summary: "Get a checkpoint", tag: "checkpoints", out: Commit{}, status: 200,
			query: itemsQuery, handle: s.getCheckpoint},
		{method: "DELETE", path: "/api/v2/commits/{commit_id}", summary: "Delete a checkpoint (409 with its dependents unless cascade=true)", tag: "checkpoints",
			status: 204, query: map[string]string{"cascade": "also delete the subtree and the sessions forked from it"}, handle: s.deleteCheckpoint, errors: []int{409}},
		{method: "POST", path: "/api/v5/checkpoint/{commit_id}/notes", summary: "Annotate a checkpoint (note, milestone or noise)", tag: "checkpoints",
			in: NoteRequest{}, out: NoteOut{}, status: 201, handle: s.addNote},
		{method: "GET", path: "/api/v5/checkpoints/{commit_id}/verify", summary: "Recompute the hash chain from a checkpoint to its root", tag: "checkpoints",
			out: Verification{}, status: 200, handle: s.verifyCheckpoint},
	}
}

// content maps the structured fields to the domain's (validated by the
// service that writes them).
func (f *ContentFields) content() smriti.Content {
	msg := ""
	if f.Message != nil {
		msg = strings.TrimSpace(*f.Message)
	}
	return smriti.Content{Message: msg, Summary: f.Summary, Objective: f.Objective, Decisions: nonnil.Slice(f.Decisions),
		Assumptions: nonnil.Slice(f.Assumptions), Tasks: nonnil.Slice(f.Tasks), OpenQuestions: nonnil.Slice(f.OpenQuestions),
		Entities: nonnil.Slice(f.Entities), Artifacts: nonnil.Slice(f.Artifacts)}
}

func (s *Server) commitCheckpoint(w http.ResponseWriter, r *http.Request) error {
	var req CommitRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	spaceID, err := reqID("repo_id", req.RepoID)
	if err != nil {
		return err
	}
	sessionID, err := reqID("session_id", req.SessionID)
	if err != nil {
		return err
	}
	in, err := commitIn(spaceID, req.content(), req.AuthorType, req.AuthorAgent, req.ProjectRoot, &req.ItemFields, req.Git)
	if err != nil {
		return err
	}
	in.SessionID = sessionID
	if st := req.SourceTurns; st != nil {
		sid, err := reqID("source_turns.session_id", st.SessionID)
		if err != nil {
			return err
		}
		in.SourceTurns = &smriti.SourceTurns{SessionID: sid, FromSeq: -1, ToSeq: -1} // missing bounds are refused as out of range
		if st.FromSeq != nil && st.ToSeq != nil {
			in.SourceTurns.FromSeq, in.SourceTurns.ToSeq = *st.FromSeq, *st.ToSeq
		}
	}
	c, err := s.app.CommitCheckpoint(r.Context(), in)
	if err != nil {
		return err
	}
	out := commitOf(c)
	if err := s.withItems(r, c, &out); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, out)
	return nil
}

func (s *Server) createCheckpoint(w http.ResponseWriter, r *http.Request) error {
	var req LegacyCommitRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	spaceID, err := reqID("repo_id", req.RepoID)
	if err != nil {
		return err
	}
	parent, err := optID("parent_commit_id", req.ParentCommitID)
	if err != nil {
		return err
	}
	items, err := req.items()
	if err != nil {
		return err
	}
	c, err := s.app.CreateCheckpoint(r.Context(), smriti.CheckpointCreate{
		SpaceID: spaceID, ParentID: parent, BranchName: strings.TrimSpace(req.BranchName), AuthorAgent: req.AuthorAgent, AuthorType: req.AuthorType,
		ProjectRoot: req.ProjectRoot, Content: req.content(), ContextBlob: req.ContextBlob, RawSourceText: req.RawSourceText, Metadata: req.Metadata,
		Items: items, Model: req.Model,
	})
	if err != nil {
		return err
	}
	out := commitOf(c)
	if err := s.withItems(r, c, &out); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, out)
	return nil
}

func (s *Server) getCheckpoint(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "commit_id")
	if err != nil {
		return err
	}
	c, err := s.app.Checkpoint(r.Context(), id)
	if err != nil {
		return err
	}
	out := commitOf(c)
	if err := s.withItems(r, c, &out); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) deleteCheckpoint(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "commit_id")
	if err != nil {
		return err
	}
	cascade, err := queryBool(r, "cascade")
	if err != nil {
		return err
	}
	if err := s.app.DeleteCheckpoint(r.Context(), id, cascade); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) addNote(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "commit_id")
	if err != nil {
		return err
	}
	var req NoteRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	in := smriti.NoteCreate{Text: deref(req.Text), Author: deref(req.Author), Kind: deref(req.Kind)}
	n, err := s.app.AddNote(r.Context(), id, in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, noteOf(n))
	return nil
}

func (s *Server) verifyCheckpoint(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "commit_id")
	if err != nil {
		return err
	}
	v, err := s.app.VerifyCheckpoint(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, Verification{CheckpointID: id, OK: v.OK, Checked: v.Checked, FirstMismatch: v.FirstMismatch})
	return nil
}

func validHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}

func validCommitHash(s string) bool { return validHex(s, 40) || validHex(s, 64) }
