package httpapi

import (
	"net/http"
	"strings"

	"smriti"
)

// Limits on checkpoint content. They keep one checkpoint readable by a
// model and bounded in storage; the body limit bounds the request as a whole.
const (
	maxMessage   = 255
	maxListItems = 1000
	maxItemChars = 10000
	maxArtifacts = 100
	maxNoteText  = 2000
	maxNoteBy    = 100
)

// ContentFields are the structured fields every checkpoint write accepts.
type ContentFields struct {
	Message       *string           `json:"message" required:"true"`
	Summary       string            `json:"summary" required:"false"`
	Objective     string            `json:"objective" required:"false"`
	Decisions     []string          `json:"decisions" required:"false"`
	Assumptions   []string          `json:"assumptions" required:"false"`
	Tasks         []smriti.Task     `json:"tasks" required:"false"`
	OpenQuestions []string          `json:"open_questions" required:"false"`
	Entities      []string          `json:"entities" required:"false"`
	Artifacts     []smriti.Artifact `json:"artifacts" required:"false"`
}

// CommitRequest writes a checkpoint from a session (POST /api/v4/chat/commit).
type CommitRequest struct {
	RepoID    *string `json:"repo_id" required:"true"`
	SessionID *string `json:"session_id" required:"true"`
	ContentFields
	AuthorAgent *string        `json:"author_agent" doc:"The agent that wrote the checkpoint; makes author_type \"agent\" unless author_type says otherwise"`
	AuthorType  string         `json:"author_type" required:"false" enum:"user,llm,agent,system" doc:"Who wrote the content: \"llm\" for a draft or extract (the background model becomes author_agent); default \"user\", or \"agent\" with author_agent, or \"llm\" with source_turns"`
	ProjectRoot *string        `json:"project_root"`
	SourceTurns *SourceTurnsIn `json:"source_turns" doc:"The turns a draft was made from; marks the content as drafted (author_type \"llm\")"`
}

// SourceTurnsIn names the turns a drafted checkpoint came from.
type SourceTurnsIn struct {
	SessionID *string `json:"session_id" required:"true"`
	FromSeq   *int64  `json:"from_seq" required:"true"`
	ToSeq     *int64  `json:"to_seq" required:"true"`
}

// LegacyCommitRequest creates a checkpoint with an explicit parent
// (POST /api/v2/commits).
type LegacyCommitRequest struct {
	RepoID         *string `json:"repo_id" required:"true"`
	ParentCommitID *string `json:"parent_commit_id"`
	BranchName     string  `json:"branch_name" required:"false"`
	AuthorAgent    *string `json:"author_agent"`
	AuthorType     string  `json:"author_type" required:"false"`
	ProjectRoot    *string `json:"project_root"`
	ContentFields
	ContextBlob   map[string]any `json:"context_blob" required:"false"`
	RawSourceText *string        `json:"raw_source_text"`
	Metadata      map[string]any `json:"metadata" required:"false"`
}

// NoteRequest adds a note to a checkpoint.
type NoteRequest struct {
	Text   *string `json:"text" required:"true"`
	Author *string `json:"author"`
	Kind   *string `json:"kind"`
}

func (s *Server) checkpointRoutes() []route {
	return []route{
		{method: "POST", path: "/api/v4/chat/commit", summary: "Save a checkpoint from a session (branch and parent follow the session)", tag: "checkpoints",
			in: CommitRequest{}, out: Commit{}, status: 201, handle: s.commitCheckpoint, errors: []int{409}},
		{method: "POST", path: "/api/v2/commits", summary: "Create a checkpoint with an explicit parent (legacy)", tag: "checkpoints",
			in: LegacyCommitRequest{}, out: Commit{}, status: 201, handle: s.createCheckpoint, errors: []int{409}},
		{method: "GET", path: "/api/v2/commits/{commit_id}", summary: "Get a checkpoint", tag: "checkpoints", out: Commit{}, status: 200, handle: s.getCheckpoint},
		{method: "DELETE", path: "/api/v2/commits/{commit_id}", summary: "Delete a checkpoint (409 with its dependents unless cascade=true)", tag: "checkpoints",
			status: 204, query: map[string]string{"cascade": "also delete the subtree and the sessions forked from it"}, handle: s.deleteCheckpoint, errors: []int{409}},
		{method: "POST", path: "/api/v5/checkpoint/{commit_id}/notes", summary: "Annotate a checkpoint (note, milestone or noise)", tag: "checkpoints",
			in: NoteRequest{}, out: NoteOut{}, status: 201, handle: s.addNote},
		{method: "GET", path: "/api/v5/checkpoints/{commit_id}/verify", summary: "Recompute the hash chain from a checkpoint to its root", tag: "checkpoints",
			out: Verification{}, status: 200, handle: s.verifyCheckpoint},
	}
}

// content validates the structured fields and returns them trimmed.
func (f *ContentFields) content() (smriti.Content, error) {
	if f.Message == nil || strings.TrimSpace(*f.Message) == "" {
		return smriti.Content{}, smriti.Errorf(smriti.EUNPROCESSABLE, "message is required (the checkpoint's title)")
	}
	msg := strings.TrimSpace(*f.Message)
	if len([]rune(msg)) > maxMessage {
		return smriti.Content{}, fieldTooLong("message", maxMessage)
	}
	c := smriti.Content{Message: msg, Summary: f.Summary, Objective: f.Objective, Decisions: nonNil(f.Decisions),
		Assumptions: nonNil(f.Assumptions), Tasks: nonNil(f.Tasks), OpenQuestions: nonNil(f.OpenQuestions),
		Entities: nonNil(f.Entities), Artifacts: nonNil(f.Artifacts)}
	for name, list := range map[string][]string{"decisions": c.Decisions, "assumptions": c.Assumptions,
		"open_questions": c.OpenQuestions, "entities": c.Entities} {
		if err := checkList(name, list); err != nil {
			return c, err
		}
	}
	if len(c.Tasks) > maxListItems {
		return c, smriti.Errorf(smriti.EUNPROCESSABLE, "tasks has %d items; at most %d are allowed", len(c.Tasks), maxListItems)
	}
	for i, t := range c.Tasks {
		if len([]rune(t.Text)) > maxItemChars {
			return c, smriti.Errorf(smriti.EUNPROCESSABLE, "tasks[%d] is longer than %d characters", i, maxItemChars)
		}
		if t.Status != "" && t.Status != "open" && t.Status != "done" {
			return c, smriti.Errorf(smriti.EUNPROCESSABLE, "tasks[%d].status must be \"open\" or \"done\"", i)
		}
	}
	if len(c.Artifacts) > maxArtifacts {
		return c, smriti.Errorf(smriti.EUNPROCESSABLE, "artifacts has %d items; at most %d are allowed", len(c.Artifacts), maxArtifacts)
	}
	return c, nil
}

func checkList(name string, list []string) error {
	if len(list) > maxListItems {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "%s has %d items; at most %d are allowed", name, len(list), maxListItems)
	}
	for i, item := range list {
		if len([]rune(item)) > maxItemChars {
			return smriti.Errorf(smriti.EUNPROCESSABLE, "%s[%d] is longer than %d characters", name, i, maxItemChars)
		}
	}
	return nil
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
	content, err := req.content()
	if err != nil {
		return err
	}
	author, err := smriti.CommitAuthor(req.AuthorType, req.AuthorAgent, req.SourceTurns != nil, s.backgroundModel())
	if err != nil {
		return err
	}
	in := smriti.CheckpointCommit{SpaceID: spaceID, SessionID: sessionID, Content: content,
		AuthorType: author.Type, AuthorAgent: author.Agent, ProjectRoot: req.ProjectRoot}
	if st := req.SourceTurns; st != nil {
		sid, err := reqID("source_turns.session_id", st.SessionID)
		if err != nil {
			return err
		}
		if st.FromSeq == nil || st.ToSeq == nil || *st.FromSeq < 0 || *st.ToSeq < *st.FromSeq {
			return smriti.Errorf(smriti.EUNPROCESSABLE, "source_turns needs from_seq and to_seq with 0 <= from_seq <= to_seq")
		}
		in.SourceTurns = &smriti.SourceTurns{SessionID: sid, FromSeq: *st.FromSeq, ToSeq: *st.ToSeq}
	}
	c, err := s.store.CommitCheckpoint(r.Context(), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, commitOf(c))
	return nil
}

// backgroundModel names the model that drafts and extracts ("" when none
// is configured), the author of drafted content.
func (s *Server) backgroundModel() string {
	if s.providers == nil {
		return ""
	}
	if _, model, err := s.providers.Background(); err == nil {
		return model
	}
	return ""
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
	content, err := req.content()
	if err != nil {
		return err
	}
	author, err := smriti.CommitAuthor(req.AuthorType, req.AuthorAgent, false, s.backgroundModel())
	if err != nil {
		return err
	}
	branch := strings.TrimSpace(req.BranchName)
	if len(branch) > 255 {
		return fieldTooLong("branch_name", 255)
	}
	c, err := s.store.CreateCheckpoint(r.Context(), smriti.CheckpointCreate{
		SpaceID: spaceID, ParentID: parent, BranchName: branch, AuthorAgent: author.Agent, AuthorType: author.Type,
		ProjectRoot: req.ProjectRoot, Content: content, ContextBlob: req.ContextBlob, RawSourceText: req.RawSourceText, Metadata: req.Metadata,
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, commitOf(c))
	return nil
}

func (s *Server) getCheckpoint(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "commit_id")
	if err != nil {
		return err
	}
	c, err := s.store.Checkpoint(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, commitOf(c))
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
	if err := s.store.DeleteCheckpoint(r.Context(), id, cascade); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

var noteKinds = map[string]bool{smriti.NoteKindNote: true, smriti.NoteKindMilestone: true, smriti.NoteKindNoise: true}

func (s *Server) addNote(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "commit_id")
	if err != nil {
		return err
	}
	var req NoteRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	in := smriti.NoteCreate{Author: "founder", Kind: smriti.NoteKindNote}
	if req.Text == nil || strings.TrimSpace(*req.Text) == "" {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "text is required")
	}
	in.Text = *req.Text
	if len([]rune(in.Text)) > maxNoteText {
		return fieldTooLong("text", maxNoteText)
	}
	if req.Author != nil && strings.TrimSpace(*req.Author) != "" {
		in.Author = strings.TrimSpace(*req.Author)
	}
	if len([]rune(in.Author)) > maxNoteBy {
		return fieldTooLong("author", maxNoteBy)
	}
	if req.Kind != nil && *req.Kind != "" {
		in.Kind = *req.Kind
	}
	if !noteKinds[in.Kind] {
		return smriti.Errorf(smriti.EINVALID, "Invalid kind '%s'. Must be one of: milestone, noise, note", smriti.Truncate(in.Kind, 40))
	}
	n, err := s.store.AddNote(r.Context(), id, in)
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
	v, err := s.store.VerifyCheckpoint(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, Verification{CheckpointID: id, OK: v.OK, Checked: v.Checked, FirstMismatch: v.FirstMismatch})
	return nil
}
