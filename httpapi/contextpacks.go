package httpapi

import (
	"net/http"

	"smriti"

	"smriti/internal/nonnil"
	"smriti/render"
	"smriti/wire"
)

func snapshotOf(c *smriti.Checkpoint) wire.Snapshot {
	return wire.Snapshot{ID: c.ID, CommitHash: c.Hash, Message: c.Message, Summary: c.Summary, Objective: c.Objective,
		Decisions: nonnil.Slice(c.Decisions), Assumptions: nonnil.Slice(c.Assumptions), Tasks: nonnil.Slice(c.Tasks),
		OpenQuestions: nonnil.Slice(c.OpenQuestions), Entities: nonnil.Slice(c.Entities), AuthorAgent: c.AuthorAgent,
		AuthorType: c.AuthorType, BranchName: c.BranchName, ParentCommitID: c.ParentID, CreatedAt: c.CreatedAt}
}

func (s *Server) contextPackRoutes() []route {
	return []route{
		{method: "POST", path: "/api/v2/context/from-commit", summary: "Export a checkpoint as a context pack for another tool (generic, claude, cursor, chatgpt, agents_md)",
			tag: "context", in: wire.ContextPackRequest{}, out: wire.ContextPack{}, status: 200, handle: s.contextPack},
		{method: "GET", path: "/api/v2/context/parent-delta/{commit_id}", summary: "A checkpoint beside its parent",
			tag: "context", out: wire.ParentDelta{}, status: 200, handle: s.parentDelta},
	}
}

func (s *Server) contextPack(w http.ResponseWriter, r *http.Request) error {
	var req wire.ContextPackRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	id, err := wire.ReqID("commit_id", req.CommitID)
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
	writeJSON(w, http.StatusOK, wire.ContextPack{Content: content, TargetTool: target, Format: "markdown"})
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
	out := wire.ParentDelta{Current: snapshotOf(c)}
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
