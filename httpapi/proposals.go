package httpapi

import (
	"net/http"

	"smriti"
	"smriti/app"
	"smriti/wire"
)

func (s *Server) proposalRoutes() []route {
	const base = "/api/v5/spaces/{space_id}/proposals"
	return []route{
		{method: "POST", path: base, summary: "Save a draft for later as a proposal: it waits on the server (in the brief, the inbox, smriti proposals) until accepted, edited or rejected",
			tag: "proposals", in: wire.ProposalRequest{}, out: wire.ProposalOut{}, status: 201, handle: s.createProposal},
		{method: "GET", path: base, summary: "A space's proposals, newest first", tag: "proposals", out: []wire.ProposalOut{}, status: 200, handle: s.listProposals,
			query: map[string]string{"status": "only proposals with this status: pending, accepted, rejected or superseded"}},
		{method: "GET", path: base + "/{proposal_id}", summary: "A proposal", tag: "proposals", out: wire.ProposalOut{}, status: 200, handle: s.getProposal},
		{method: "PATCH", path: base + "/{proposal_id}", summary: "Edit a pending proposal's content (409 once accepted or rejected)", tag: "proposals",
			in: wire.ProposalEditRequest{}, out: wire.ProposalOut{}, status: 200, handle: s.editProposal, errors: []int{409}},
		{method: "POST", path: base + "/{proposal_id}/accept", summary: "Accept a proposal: commit it with its base; a head that moved is rebased onto, or the answer is 409 with the conflicts (the proposal stays pending)",
			tag: "proposals", in: wire.ProposalAcceptRequest{}, out: wire.ProposalAccepted{}, status: 201, handle: s.acceptProposal, errors: []int{409},
			query: itemsQuery},
		{method: "POST", path: base + "/{proposal_id}/reject", summary: "Reject a pending proposal (409 once accepted or rejected)", tag: "proposals",
			out: wire.ProposalOut{}, status: 200, handle: s.rejectProposal, errors: []int{409}},
	}
}

// proposalSave is the save a request asks for.
func proposalSave(space smriti.ID, req *wire.ProposalRequest) (app.ProposalSave, error) {
	session, err := wire.OptID("session_id", req.SessionID)
	if err != nil {
		return app.ProposalSave{}, err
	}
	base, err := wire.OptID("base_checkpoint_id", req.BaseCheckpointID)
	if err != nil {
		return app.ProposalSave{}, err
	}
	items, err := wire.ItemsIn(req.Items)
	if err != nil {
		return app.ProposalSave{}, err
	}
	source := req.Source
	if source == "" {
		source = "api"
	}
	d := smriti.ProposalDraft{Content: req.Content(), Items: items, Model: req.Model, AuthorType: req.AuthorType, AuthorAgent: req.AuthorAgent,
		ProjectRoot: req.ProjectRoot, Git: req.Git.GitState()}
	if st := req.SourceTurns; st != nil {
		sid, err := wire.ReqID("source_turns.session_id", st.SessionID)
		if err != nil {
			return app.ProposalSave{}, err
		}
		d.SourceTurns = &smriti.SourceTurns{SessionID: sid, FromSeq: -1, ToSeq: -1}
		if st.FromSeq != nil && st.ToSeq != nil {
			d.SourceTurns.FromSeq, d.SourceTurns.ToSeq = *st.FromSeq, *st.ToSeq
		}
	}
	return app.ProposalSave{SpaceID: space, SessionID: session, BaseCheckpointID: base, Source: source, Draft: d}, nil
}

func (s *Server) createProposal(w http.ResponseWriter, r *http.Request) error {
	space, err := pathID(r, "space_id")
	if err != nil {
		return err
	}
	var req wire.ProposalRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	in, err := proposalSave(space, &req)
	if err != nil {
		return err
	}
	p, err := s.app.SaveProposal(r.Context(), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, wire.ProposalOf(p))
	return nil
}

func (s *Server) listProposals(w http.ResponseWriter, r *http.Request) error {
	space, err := pathID(r, "space_id")
	if err != nil {
		return err
	}
	ps, err := s.app.ListProposals(r.Context(), space, r.URL.Query().Get("status"))
	if err != nil {
		return err
	}
	out := make([]wire.ProposalOut, 0, len(ps))
	for _, p := range ps {
		out = append(out, wire.ProposalOf(p))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// pathProposal reads the space and proposal ids of the path.
func pathProposal(r *http.Request) (smriti.ID, smriti.ID, error) {
	space, err := pathID(r, "space_id")
	if err != nil {
		return smriti.NilID, smriti.NilID, err
	}
	id, err := pathID(r, "proposal_id")
	return space, id, err
}

func (s *Server) getProposal(w http.ResponseWriter, r *http.Request) error {
	space, id, err := pathProposal(r)
	if err != nil {
		return err
	}
	p, err := s.app.ShowProposal(r.Context(), space, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.ProposalOf(p))
	return nil
}

func (s *Server) editProposal(w http.ResponseWriter, r *http.Request) error {
	space, id, err := pathProposal(r)
	if err != nil {
		return err
	}
	var req wire.ProposalEditRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	p, err := s.app.EditProposal(r.Context(), space, id, req.Edit())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.ProposalOf(p))
	return nil
}

func (s *Server) acceptProposal(w http.ResponseWriter, r *http.Request) error {
	space, id, err := pathProposal(r)
	if err != nil {
		return err
	}
	var req wire.ProposalAcceptRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	p, c, err := s.app.AcceptProposal(r.Context(), space, id, req.Resolutions)
	if err != nil {
		return err
	}
	out := wire.CommitOf(c)
	if err := s.withItems(r, c, &out); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, wire.ProposalAccepted{Proposal: wire.ProposalOf(p), Checkpoint: out})
	return nil
}

func (s *Server) rejectProposal(w http.ResponseWriter, r *http.Request) error {
	space, id, err := pathProposal(r)
	if err != nil {
		return err
	}
	p, err := s.app.RejectProposal(r.Context(), space, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.ProposalOf(p))
	return nil
}
