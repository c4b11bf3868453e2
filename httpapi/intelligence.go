package httpapi

import (
	"net/http"

	"smriti"
	"smriti/app"
	"smriti/intelligence"
	"smriti/internal/nonnil"
	"smriti/wire"
)

// keyOf is the key of an optional item text (see wire.ItemOut.Key).
func keyOf(text *string) *string {
	if text == nil {
		return nil
	}
	k := smriti.ItemKey(*text)
	return &k
}

func changeViewOf(res *intelligence.DraftResult) wire.ChangeView {
	v := wire.ChangeView{Items: itemsOut(res.Items), Changes: []wire.ChangeOut{}}
	if res.Base != nil {
		id := res.Base.ID
		v.BaseCheckpointID = &id
	}
	if res.Model != "" {
		m := res.Model
		v.Model = &m
	}
	d := res.Draft
	v.Proposed = wire.ContentOut{Message: d.Title, Objective: d.Objective, Summary: d.Summary, Decisions: nonnil.Slice(d.Decisions),
		Assumptions: nonnil.Slice(d.Assumptions), Tasks: nonnil.Slice(d.Tasks), OpenQuestions: nonnil.Slice(d.OpenQuestions),
		Entities: nonnil.Slice(d.Entities), Artifacts: nonnil.Slice(d.Artifacts)}
	for _, c := range res.Changes {
		v.Changes = append(v.Changes, wire.ChangeOut{Op: c.Op, Kind: string(c.Kind), ID: c.ID, Before: c.Before, After: c.After,
			BeforeKey: keyOf(c.Before), AfterKey: keyOf(c.After), By: c.By, Reason: c.Reason, Source: c.Source})
	}
	return v
}

// intelligenceRoutes are draft, extract, review and session titles: the
// background intelligence endpoints.
func (s *Server) intelligenceRoutes() []route {
	return []route{
		{method: "POST", path: "/api/v5/checkpoint/draft", summary: "Draft a checkpoint from a session's recent turns (same isolation as a send)", tag: "intelligence",
			in: wire.DraftRequest{}, out: wire.DraftOut{}, status: 200, handle: s.draftCheckpoint},
		{method: "POST", path: "/api/v5/checkpoint/extract", summary: "Extract a checkpoint from a markdown document", tag: "intelligence",
			in: wire.ExtractRequest{}, out: wire.ExtractOut{}, status: 200, handle: s.extractCheckpoint},
		{method: "POST", path: "/api/v5/checkpoint/{commit_id}/review", summary: "Review a checkpoint for contradictions, hidden assumptions and instruction-like content", tag: "intelligence",
			out: wire.ReviewOut{}, status: 200, handle: s.reviewCheckpoint},
		{method: "POST", path: "/api/v4/chat/sessions/{session_id}/title", summary: "Name a session after its first turns (best effort: failures leave the title unchanged)", tag: "intelligence",
			out: wire.SessionOut{}, status: 200, handle: s.titleSession},
	}
}

func (s *Server) draftCheckpoint(w http.ResponseWriter, r *http.Request) error {
	var req wire.DraftRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	session, err := wire.ReqID("session_id", req.SessionID)
	if err != nil {
		return err
	}
	mounted, err := wire.OptID("mounted_checkpoint_id", req.MountedCheckpointID)
	if err != nil {
		return err
	}
	in := intelligence.DraftRequest{SessionID: session, MountedCheckpointID: mounted, HistoryBaseSeq: req.HistoryBaseSeq, NumTurns: req.NumTurns}
	res, err := s.app.Draft(r.Context(), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.DraftOut{DraftFields: draftFieldsOf(res.Draft), SourceTurns: res.SourceTurns, Warnings: nonnil.Slice(res.Draft.Warnings), Chunks: res.Chunks,
		ChangeView: changeViewOf(res)})
	return nil
}

func (s *Server) extractCheckpoint(w http.ResponseWriter, r *http.Request) error {
	var req wire.ExtractRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	onto, err := wire.OptID("onto_checkpoint_id", req.Onto)
	if err != nil {
		return err
	}
	space, err := wire.OptID("space_id", req.SpaceID)
	if err != nil {
		return err
	}
	session, err := wire.OptID("session_id", req.SessionID)
	if err != nil {
		return err
	}
	var res *intelligence.DraftResult
	if space != nil && req.Content != nil {
		// The extraction of a save: settled as the save would be (its base,
		// its default title), nothing saved.
		in := app.SaveRequest{CheckpointCommit: smriti.CheckpointCommit{SpaceID: *space, BaseCheckpointID: onto}, Document: req.Content,
			UseMock: req.UseMock, DryRun: true}
		if session != nil {
			in.SessionID = *session
		}
		saved, err := s.app.Save(r.Context(), in)
		if err != nil {
			return err
		}
		res = saved.Extracted
		res.Draft.Title = saved.Request.Content.Message
	} else {
		if res, err = s.app.Extract(r.Context(), app.ExtractRequest{Space: space, Content: req.Content, UseMock: req.UseMock, Onto: onto}); err != nil {
			return err
		}
	}
	d := res.Draft
	writeJSON(w, http.StatusOK, wire.ExtractOut{DraftFields: draftFieldsOf(d), Artifacts: nonnil.Slice(d.Artifacts), Warnings: nonnil.Slice(d.Warnings),
		ChangeView: changeViewOf(res)})
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
	rev, err := s.app.Review(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.ReviewOut{CheckpointID: id, Issues: nonnil.Slice(rev.Issues), Suggestions: nonnil.Slice(rev.Suggestions)})
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
	se, err := s.app.Title(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.SessionOf(se))
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

func draftFieldsOf(d *intelligence.Draft) wire.DraftFields {
	return wire.DraftFields{Title: d.Title, Objective: d.Objective, Summary: d.Summary, Decisions: nonnil.Slice(d.Decisions),
		Assumptions: nonnil.Slice(d.Assumptions), Tasks: nonnil.Slice(d.Tasks), OpenQuestions: nonnil.Slice(d.OpenQuestions), Entities: nonnil.Slice(d.Entities)}
}
