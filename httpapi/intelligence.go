package httpapi

import (
	"net/http"

	"smriti"
)

// DraftRequest drafts a checkpoint from a session's recent turns
// (POST /api/v5/checkpoint/draft).
type DraftRequest struct {
	SessionID *string `json:"session_id" required:"true"`
	// NumTurns is how many recent turns to read (1–100, default 15).
	NumTurns            *int    `json:"num_turns"`
	MountedCheckpointID *string `json:"mounted_checkpoint_id"`
	HistoryBaseSeq      *int64  `json:"history_base_seq"`
}

// DraftFields are the proposed checkpoint content of a draft or extract.
type DraftFields struct {
	Title         string        `json:"title"`
	Objective     string        `json:"objective"`
	Summary       string        `json:"summary"`
	Decisions     []string      `json:"decisions"`
	Assumptions   []string      `json:"assumptions"`
	Tasks         []smriti.Task `json:"tasks"`
	OpenQuestions []string      `json:"open_questions"`
	Entities      []string      `json:"entities"`
}

// DraftOut is a drafted checkpoint, the turns it came from (null when the
// session had none to read) and warnings about what was dropped or looks
// like an instruction to a model.
type DraftOut struct {
	DraftFields
	SourceTurns *smriti.SourceTurns `json:"source_turns"`
	Warnings    []string            `json:"warnings"`
}

// ExtractRequest extracts a checkpoint from freeform markdown
// (POST /api/v5/checkpoint/extract).
type ExtractRequest struct {
	Content *string `json:"content" required:"true"`
	UseMock bool    `json:"use_mock" required:"false"`
}

// ExtractOut is an extracted checkpoint, with the document's code blocks
// and structured content as artifacts.
type ExtractOut struct {
	DraftFields
	Artifacts []smriti.Artifact `json:"artifacts"`
	Warnings  []string          `json:"warnings"`
}

// ReviewOut is a checkpoint's consistency review: at most 5 issues and 5
// suggestions.
type ReviewOut struct {
	CheckpointID smriti.ID            `json:"checkpoint_id"`
	Issues       []smriti.ReviewIssue `json:"issues"`
	Suggestions  []string             `json:"suggestions"`
}

// intelligenceRoutes are draft, extract, review and session titles: the
// background intelligence endpoints.
func (s *Server) intelligenceRoutes() []route {
	return []route{
		{method: "POST", path: "/api/v5/checkpoint/draft", summary: "Draft a checkpoint from a session's recent turns (same isolation as a send)", tag: "intelligence",
			in: DraftRequest{}, out: DraftOut{}, status: 200, handle: s.draftCheckpoint},
		{method: "POST", path: "/api/v5/checkpoint/extract", summary: "Extract a checkpoint from a markdown document", tag: "intelligence",
			in: ExtractRequest{}, out: ExtractOut{}, status: 200, handle: s.extractCheckpoint},
		{method: "POST", path: "/api/v5/checkpoint/{commit_id}/review", summary: "Review a checkpoint for contradictions, hidden assumptions and instruction-like content", tag: "intelligence",
			out: ReviewOut{}, status: 200, handle: s.reviewCheckpoint},
		{method: "POST", path: "/api/v4/chat/sessions/{session_id}/title", summary: "Name a session after its first turns (best effort: failures leave the title unchanged)", tag: "intelligence",
			out: SessionOut{}, status: 200, handle: s.titleSession},
	}
}

func (s *Server) intelligence() *smriti.Intelligence {
	return &smriti.Intelligence{Sessions: s.store, Checkpoints: s.store, Providers: s.providers}
}

func (s *Server) draftCheckpoint(w http.ResponseWriter, r *http.Request) error {
	var req DraftRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	session, err := reqID("session_id", req.SessionID)
	if err != nil {
		return err
	}
	mounted, err := optID("mounted_checkpoint_id", req.MountedCheckpointID)
	if err != nil {
		return err
	}
	in := smriti.DraftRequest{SessionID: session, MountedCheckpointID: mounted, HistoryBaseSeq: req.HistoryBaseSeq, NumTurns: req.NumTurns}
	res, err := s.intelligence().Draft(r.Context(), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, DraftOut{DraftFields: draftFieldsOf(res.Draft), SourceTurns: res.SourceTurns, Warnings: nonNil(res.Draft.Warnings)})
	return nil
}

func (s *Server) extractCheckpoint(w http.ResponseWriter, r *http.Request) error {
	var req ExtractRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	if req.Content == nil {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "content is required")
	}
	d, err := s.intelligence().Extract(r.Context(), smriti.ExtractRequest{Markdown: *req.Content, UseMock: req.UseMock})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, ExtractOut{DraftFields: draftFieldsOf(d), Artifacts: nonNil(d.Artifacts), Warnings: nonNil(d.Warnings)})
	return nil
}

func (s *Server) reviewCheckpoint(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "commit_id")
	if err != nil {
		return err
	}
	if err := s.noBody(w, r); err != nil {
		return err
	}
	rev, err := s.intelligence().Review(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, ReviewOut{CheckpointID: id, Issues: nonNil(rev.Issues), Suggestions: nonNil(rev.Suggestions)})
	return nil
}

func (s *Server) titleSession(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "session_id")
	if err != nil {
		return err
	}
	if err := s.noBody(w, r); err != nil {
		return err
	}
	se, err := s.intelligence().Title(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, sessionOf(se))
	return nil
}

// noBody accepts the empty body these endpoints take and, since clients
// may send one, a JSON object, which is ignored; anything else is refused
// as on every other endpoint (400 malformed, 422 not an object, 413 too
// large).
func (s *Server) noBody(w http.ResponseWriter, r *http.Request) error {
	if r.ContentLength == 0 {
		return nil
	}
	var ignored struct{}
	return s.decodeBody(w, r, &ignored)
}

func draftFieldsOf(d *smriti.Draft) DraftFields {
	return DraftFields{Title: d.Title, Objective: d.Objective, Summary: d.Summary, Decisions: nonNil(d.Decisions),
		Assumptions: nonNil(d.Assumptions), Tasks: nonNil(d.Tasks), OpenQuestions: nonNil(d.OpenQuestions), Entities: nonNil(d.Entities)}
}
