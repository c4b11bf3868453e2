package httpapi

import (
	"net/http"
	"time"

	"smriti"

	"smriti/internal/nonnil"
	"smriti/render"
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

func snapshotOf(c *smriti.Checkpoint) Snapshot {
	return Snapshot{ID: c.ID, CommitHash: c.Hash, Message: c.Message, Summary: c.Summary, Objective: c.Objective,
		Decisions: nonnil.Slice(c.Decisions), Assumptions: nonnil.Slice(c.Assumptions), Tasks: nonnil.Slice(c.Tasks),
		OpenQuestions: nonnil.Slice(c.OpenQuestions), Entities: nonnil.Slice(c.Entities), AuthorAgent: c.AuthorAgent,
		AuthorType: c.AuthorType, BranchName: c.BranchName, ParentCommitID: c.ParentID, CreatedAt: c.CreatedAt}
}

func (s *Server) contextPackRoutes() []route {
	return []route{
		{method: "POST", path: "/api/v2/context/from-commit", summary: "Export a checkpoint as a context pack for another tool (generic, claude, cursor, chatgpt, agents_md)",
			tag: "context", in: ContextPackRequest{}, out: ContextPack{}, status: 200, handle: s.contextPack},
		{method: "GET", path: "/api/v2/context/parent-delta/{commit_id}", summary: "A checkpoint beside its parent",
			tag: "context", out: ParentDelta{}, status: 200, handle: s.parentDelta},
	}
}

func (s *Server) contextPack(w http.ResponseWriter, r *http.Request) error {
	var req ContextPackRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	id, err := reqID("commit_id", req.CommitID)
	if err != nil {
		return err
	}
	target := render.PackGeneric
	if req.Target != nil && *req.Target != "" {
		target = *req.Target
	}
	c, err := s.app.Checkpoint(r.Context(), id)
	if err != nil {
		return err
	}
	sp, err := s.app.Space(r.Context(), c.SpaceID)
	if err != nil {
		return err
	}
	content, err := render.RenderContextPack(sp, c, target)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, ContextPack{Content: content, TargetTool: target, Format: "markdown"})
	return nil
}

func (s *Server) parentDelta(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "commit_id")
	if err != nil {
		return err
	}
	c, err := s.app.Checkpoint(r.Context(), id)
	if err != nil {
		return err
	}
	out := ParentDelta{Current: snapshotOf(c)}
	if c.ParentID != nil {
		p, err := s.app.Checkpoint(r.Context(), *c.ParentID)
		if err != nil && smriti.ErrorCode(err) != smriti.ENOTFOUND {
			return err
		}
		if p != nil {
			snap := snapshotOf(p)
			out.Parent = &snap
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
