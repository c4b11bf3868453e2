package httpapi

import (
	"net/http"
	"strings"

	"smriti"
	"smriti/app"
	"smriti/internal/nonnil"
	"smriti/wire"
)

// commitIn is the commit a request asks for, session and source turns
// aside.
func commitIn(space smriti.ID, content smriti.Content, authorType string, authorAgent, projectRoot *string, f *wire.ItemFields, g *wire.GitStateIn) (smriti.CheckpointCommit, error) {
	items, err := f.ParseItems()
	if err != nil {
		return smriti.CheckpointCommit{}, err
	}
	base, err := wire.OptID("base_checkpoint_id", f.BaseCheckpointID)
	if err != nil {
		return smriti.CheckpointCommit{}, err
	}
	in := smriti.CheckpointCommit{SpaceID: space, Content: content, AuthorType: authorType, AuthorAgent: authorAgent,
		ProjectRoot: projectRoot, Items: items, Model: f.Model, BaseCheckpointID: base, Resolutions: f.Resolutions}
	// The git state is checked with the rest of the commit
	// (CheckpointCommit.Validate), for every entry point alike.
	in.Git = g.GitState()
	return in, nil
}

func (s *Server) commitToSpace(w http.ResponseWriter, r *http.Request) error {
	spaceID, err := pathID(r, "space_id")
	if err != nil {
		return err
	}
	var req wire.SpaceCommitRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	in, err := commitIn(spaceID, req.Content(), req.AuthorType, req.AuthorAgent, req.ProjectRoot, &req.ItemFields, req.Git)
	if err != nil {
		return err
	}
	saved, err := s.app.Save(r.Context(), app.SaveRequest{CheckpointCommit: in})
	if err != nil {
		return err
	}
	return s.writeCheckpoint(w, r, http.StatusCreated, saved.Checkpoint)
}

// itemsQuery documents ?items=true.
var itemsQuery = map[string]string{"items": "true adds the items view (ids, origins, changes) to the answer"}

func (s *Server) checkpointRoutes() []route {
	return []route{
		{method: "POST", path: "/api/v4/chat/commit", summary: "Save a checkpoint from a session (branch and parent follow the session)", tag: "checkpoints", query: itemsQuery,
			in: wire.CommitRequest{}, out: wire.Commit{}, status: 201, handle: s.commitCheckpoint, idempotent: true, errors: []int{409}},
		{method: "POST", path: "/api/v5/spaces/{space_id}/checkpoints", summary: "Save a checkpoint onto main's head with no session (the CLI's and MCP's checkpoint create)", tag: "checkpoints", query: itemsQuery,
			in: wire.SpaceCommitRequest{}, out: wire.Commit{}, status: 201, handle: s.commitToSpace, idempotent: true, errors: []int{409}},
		{method: "POST", path: "/api/v2/commits", summary: "Create a checkpoint with an explicit parent (legacy)", tag: "checkpoints", query: itemsQuery,
			in: wire.LegacyCommitRequest{}, out: wire.Commit{}, status: 201, handle: s.createCheckpoint, idempotent: true, errors: []int{409}},
		{method: "GET", path: "/api/v5/checkpoints/resolve", summary: "Find the checkpoint a reference names: a full UUID, or a unique prefix (7+ characters) of its hash or id", tag: "checkpoints",
			query: map[string]string{"ref": "the reference (required)", "space_id": "only this space's checkpoints", "items": itemsQuery["items"]},
			out:   wire.Commit{}, status: 200, handle: s.resolveCheckpoint, errors: []int{400}},
		{method: "GET", path: "/api/v2/commits/{commit_id}", summary: "Get a checkpoint", tag: "checkpoints", out: wire.Commit{}, status: 200,
			query: itemsQuery, handle: s.getCheckpoint},
		{method: "DELETE", path: "/api/v2/commits/{commit_id}", summary: "Delete a checkpoint (409 with its dependents unless cascade=true)", tag: "checkpoints",
			status: 204, query: map[string]string{"cascade": "also delete the subtree and the sessions forked from it"}, handle: s.deleteCheckpoint, errors: []int{409}},
		{method: "POST", path: "/api/v5/checkpoint/{commit_id}/notes", summary: "Annotate a checkpoint (note, milestone or noise)", tag: "checkpoints",
			in: wire.NoteRequest{}, out: wire.NoteOut{}, status: 201, handle: s.addNote, idempotent: true},
		{method: "GET", path: "/api/v5/checkpoints/{commit_id}/verify", summary: "Recompute the hash chain from a checkpoint to its root", tag: "checkpoints",
			out: wire.Verification{}, status: 200, handle: s.verifyCheckpoint},
	}
}

func (s *Server) commitCheckpoint(w http.ResponseWriter, r *http.Request) error {
	var req wire.CommitRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	spaceID, err := wire.ReqID("repo_id", req.RepoID)
	if err != nil {
		return err
	}
	sessionID, err := wire.ReqID("session_id", req.SessionID)
	if err != nil {
		return err
	}
	in, err := commitIn(spaceID, req.Content(), req.AuthorType, req.AuthorAgent, req.ProjectRoot, &req.ItemFields, req.Git)
	if err != nil {
		return err
	}
	in.SessionID = sessionID
	if st := req.SourceTurns; st != nil {
		sid, err := wire.ReqID("source_turns.session_id", st.SessionID)
		if err != nil {
			return err
		}
		in.SourceTurns = &smriti.SourceTurns{SessionID: sid, FromSeq: -1, ToSeq: -1} // missing bounds are refused as out of range
		if st.FromSeq != nil && st.ToSeq != nil {
			in.SourceTurns.FromSeq, in.SourceTurns.ToSeq = *st.FromSeq, *st.ToSeq
		}
	}
	saved, err := s.app.Save(r.Context(), app.SaveRequest{CheckpointCommit: in})
	if err != nil {
		return err
	}
	return s.writeCheckpoint(w, r, http.StatusCreated, saved.Checkpoint)
}

func (s *Server) createCheckpoint(w http.ResponseWriter, r *http.Request) error {
	var req wire.LegacyCommitRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	spaceID, err := wire.ReqID("repo_id", req.RepoID)
	if err != nil {
		return err
	}
	parent, err := wire.OptID("parent_commit_id", req.ParentCommitID)
	if err != nil {
		return err
	}
	items, err := req.ParseItems()
	if err != nil {
		return err
	}
	c, err := s.app.CreateCheckpoint(r.Context(), smriti.CheckpointCreate{
		SpaceID: spaceID, ParentID: parent, BranchName: strings.TrimSpace(req.BranchName), AuthorAgent: req.AuthorAgent, AuthorType: req.AuthorType,
		ProjectRoot: req.ProjectRoot, Content: req.Content(), ContextBlob: req.ContextBlob, RawSourceText: req.RawSourceText, Metadata: req.Metadata,
		Items: items, Model: req.Model,
	})
	if err != nil {
		return err
	}
	return s.writeCheckpoint(w, r, http.StatusCreated, c)
}

func (s *Server) resolveCheckpoint(w http.ResponseWriter, r *http.Request) error {
	ref := r.URL.Query().Get("ref")
	if ref == "" {
		return smriti.Errorf(smriti.EINVALID, "query parameter ref is required: a checkpoint UUID, or 7+ characters of its hash or id")
	}
	space, err := queryID(r, "space_id")
	if err != nil {
		return err
	}
	c, err := s.app.ResolveCheckpoint(r.Context(), space, ref)
	if err != nil {
		return err
	}
	return s.writeCheckpoint(w, r, http.StatusOK, c)
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
	return s.writeCheckpoint(w, r, http.StatusOK, c)
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
	var req wire.NoteRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	in := smriti.NoteCreate{Text: deref(req.Text), Author: deref(req.Author), Kind: deref(req.Kind)}
	n, err := s.app.AddNote(r.Context(), id, in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, wire.NoteOf(n))
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
	writeJSON(w, http.StatusOK, wire.Verification{CheckpointID: id, OK: v.OK, Checked: v.Checked, FirstMismatch: v.FirstMismatch,
		Purged: nonnil.Slice(v.Purged)})
	return nil
}

// writeCheckpoint answers with a checkpoint, with its items view when the
// request asks for ?items=true.
func (s *Server) writeCheckpoint(w http.ResponseWriter, r *http.Request, status int, c *smriti.Checkpoint) error {
	out := wire.CommitOf(c)
	if err := s.withItems(r, c, &out); err != nil {
		return err
	}
	writeJSON(w, status, out)
	return nil
}
