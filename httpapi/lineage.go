package httpapi

import (
	"net/http"
	"strings"

	"smriti"
	"smriti/app"
	"smriti/internal/nonnil"
	"smriti/wire"
)

// lineageRoutes are fork, tree, compare, reachable, disposition and merge.
func (s *Server) lineageRoutes() []route {
	return []route{
		{method: "POST", path: "/api/v5/lineage/sessions/fork", summary: "Fork a session on a new branch from a checkpoint", tag: "lineage",
			in: wire.ForkRequest{}, out: wire.ForkResponse{}, status: 201, handle: s.fork, idempotent: true, errors: []int{409}},
		{method: "GET", path: "/api/v5/lineage/spaces/{space_id}", summary: "A space's branch tree: checkpoints, sessions and merge edges, oldest first", tag: "lineage",
			out: wire.LineageTree{}, status: 200, handle: s.lineageTree},
		{method: "GET", path: "/api/v5/lineage/checkpoints/{a_id}/compare/{b_id}", summary: "Compare two checkpoints and name their lowest common ancestor (null across spaces)", tag: "lineage",
			out: wire.CompareResponse{}, status: 200, handle: s.compare},
		{method: "GET", path: "/api/v5/lineage/sessions/{session_id}/checkpoints", summary: "The checkpoints a session can reach, newest first", tag: "lineage",
			out: []wire.Commit{}, status: 200, handle: s.reachable},
		{method: "PATCH", path: "/api/v5/lineage/branches/disposition", summary: "Mark every session of a branch active, integrated or abandoned", tag: "lineage",
			in: wire.DispositionRequest{}, out: wire.DispositionResponse{}, status: 200, handle: s.setDisposition},
		{method: "POST", path: "/api/v5/lineage/merge", summary: "Merge a checkpoint into a branch head (dry_run: 200 with a preview; else 201 with the merge checkpoint, 409 while conflicts are unresolved)", tag: "lineage",
			in: wire.MergeRequest{}, out: wire.MergeCommitted{}, status: 201, handle: s.merge, idempotent: true, errors: []int{409},
			also: []answer{{status: 200, out: wire.MergePreview{}, description: "dry_run: the preview of the merge; nothing is stored"}}},
	}
}

func (s *Server) fork(w http.ResponseWriter, r *http.Request) error {
	var req wire.ForkRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	if blank(req.SpaceID) || blank(req.CheckpointID) {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "space_id and checkpoint_id are required")
	}
	space, errS := wire.ReqID("space_id", req.SpaceID)
	checkpoint, errC := wire.ReqID("checkpoint_id", req.CheckpointID)
	if errS != nil || errC != nil {
		return smriti.Errorf(smriti.EINVALID, "Invalid space_id or checkpoint_id")
	}
	se, err := s.app.ForkSession(r.Context(), smriti.ForkCreate{SpaceID: space, CheckpointID: checkpoint, BranchName: strings.TrimSpace(req.BranchName),
		Provider: req.Provider, Model: req.Model})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, wire.ForkResponse{SessionID: se.ID, BranchName: se.BranchName, ForkedFromCheckpointID: checkpoint,
		HistoryBaseSeq: -1, Session: wire.SessionOf(se)})
	return nil
}

func blank(v *string) bool { return v == nil || strings.TrimSpace(*v) == "" }

func (s *Server) lineageTree(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "space_id")
	if err != nil {
		return err
	}
	t, err := s.app.SpaceTree(r.Context(), id)
	if err != nil {
		return err
	}
	out := wire.LineageTree{SpaceID: t.SpaceID, Checkpoints: make([]wire.CheckpointNode, len(t.Checkpoints)),
		Sessions: make([]wire.SessionNode, len(t.Sessions)), Merges: []wire.MergeEdge{}}
	for i, c := range t.Checkpoints {
		out.Checkpoints[i] = wire.CheckpointNode{ID: c.ID, CommitHash: c.Hash, Message: c.Message, BranchName: c.BranchName,
			ParentCheckpointID: c.ParentID, MergeParentID: c.MergeParentID, CreatedAt: c.CreatedAt, Summary: c.Summary,
			Objective: c.Objective, AuthorAgent: c.AuthorAgent, NoteCount: c.NoteCount, NoteKinds: nonnil.Slice(c.NoteKinds)}
		if c.MergeParentID != nil {
			out.Merges = append(out.Merges, wire.MergeEdge{CheckpointID: c.ID, SourceCheckpointID: *c.MergeParentID})
		}
	}
	for i, se := range t.Sessions {
		out.Sessions[i] = wire.SessionNode{ID: se.ID, Title: se.Title, BranchName: se.BranchName, ForkedFromCheckpointID: se.ForkedFromCheckpointID,
			SeededCommitID: se.SeededCheckpointID, BranchDisposition: se.BranchDisposition, CreatedAt: se.CreatedAt}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) compare(w http.ResponseWriter, r *http.Request) error {
	aID, err := pathID(r, "a_id")
	if err != nil {
		return err
	}
	bID, err := pathID(r, "b_id")
	if err != nil {
		return err
	}
	cmp, err := s.app.Compare(r.Context(), aID, bID)
	if err != nil {
		return err
	}
	a, b, d, lca := cmp.A, cmp.B, cmp.Diff, cmp.Ancestor
	out := wire.CompareResponse{CheckpointA: detailOf(a), CheckpointB: detailOf(b), Diff: wire.CompareDiff{
		SummaryA: d.SummaryA, SummaryB: d.SummaryB, ObjectiveA: d.ObjectiveA, ObjectiveB: d.ObjectiveB,
		DecisionsOnlyA: d.Decisions.OnlyA, DecisionsOnlyB: d.Decisions.OnlyB, DecisionsShared: d.Decisions.Shared,
		AssumptionsOnlyA: d.Assumptions.OnlyA, AssumptionsOnlyB: d.Assumptions.OnlyB, AssumptionsShared: d.Assumptions.Shared,
		TasksOnlyA: d.Tasks.OnlyA, TasksOnlyB: d.Tasks.OnlyB, TasksShared: d.Tasks.Shared,
		OpenQuestionsOnlyA: d.OpenQuestions.OnlyA, OpenQuestionsOnlyB: d.OpenQuestions.OnlyB, OpenQuestionsShared: d.OpenQuestions.Shared,
		EntitiesOnlyA: d.Entities.OnlyA, EntitiesOnlyB: d.Entities.OnlyB, EntitiesShared: d.Entities.Shared,
	}}
	if lca != nil {
		out.Diff.CommonAncestorCommitID, out.Diff.CommonAncestorCommitHash = &lca.ID, &lca.Hash
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func detailOf(c *smriti.Checkpoint) wire.CheckpointDetail {
	return wire.CheckpointDetail{ID: c.ID, CommitHash: c.Hash, Message: c.Message, BranchName: c.BranchName, Summary: c.Summary,
		Objective: c.Objective, StateLists: wire.StateListsOf(&c.Content)}
}

func (s *Server) reachable(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "session_id")
	if err != nil {
		return err
	}
	list, err := s.app.ReachableCheckpoints(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.CommitsOf(list))
	return nil
}

func (s *Server) setDisposition(w http.ResponseWriter, r *http.Request) error {
	var req wire.DispositionRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	if blank(req.SpaceID) {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "space_id is required")
	}
	space, err := wire.ReqID("space_id", req.SpaceID)
	if err != nil {
		return smriti.Errorf(smriti.EINVALID, "Invalid space_id")
	}
	if req.BranchName == nil {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "branch_name is required")
	}
	if req.Disposition == nil {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "disposition is required")
	}
	branch, disposition := strings.TrimSpace(*req.BranchName), strings.TrimSpace(*req.Disposition)
	n, err := s.app.SetBranchDisposition(r.Context(), space, branch, disposition)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.DispositionResponse{SpaceID: space, BranchName: branch, Disposition: disposition, SessionsUpdated: n})
	return nil
}

func (s *Server) merge(w http.ResponseWriter, r *http.Request) error {
	var req wire.MergeRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	space, err := wire.ReqID("space_id", req.SpaceID)
	if err != nil {
		return err
	}
	source, err := wire.ReqID("source_checkpoint_id", req.SourceCheckpointID)
	if err != nil {
		return err
	}
	target, err := wire.OptID("target_checkpoint_id", req.TargetCheckpointID)
	if err != nil {
		return err
	}
	in := app.MergeRequest{SpaceID: space, SourceID: source, TargetID: target, Resolutions: req.Resolutions, DryRun: req.DryRun}
	if req.Message != nil {
		in.Message = strings.TrimSpace(*req.Message)
	}
	out, err := s.app.Merge(r.Context(), in)
	if err != nil {
		return err
	}
	var base *smriti.ID
	var baseHash *string
	if out.Base != nil {
		base, baseHash = &out.Base.ID, &out.Base.Hash
	}
	if req.DryRun {
		m := out.Merged
		writeJSON(w, http.StatusOK, wire.MergePreview{BaseCheckpointID: base, SourceCheckpointID: out.Source.ID, TargetCheckpointID: out.Target.ID,
			BaseCommitHash: baseHash, SourceCommitHash: out.Source.Hash, TargetCommitHash: out.Target.Hash,
			Merged:    wire.MergedContent{Message: m.Message, Summary: m.Summary, Objective: m.Objective, StateLists: wire.StateListsOf(&m)},
			Conflicts: nonnil.Slice(out.Conflicts), Removes: nonnil.Slice(out.Removes), Items: itemsOut(out.Items)})
		return nil
	}
	writeJSON(w, http.StatusCreated, wire.MergeCommitted{Checkpoint: wire.CommitOf(out.Checkpoint), BaseCheckpointID: base, ConflictsResolved: out.Resolved})
	return nil
}
