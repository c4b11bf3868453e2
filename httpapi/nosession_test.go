package httpapi_test

import (
	"smriti/wire"
	"testing"

	"smriti"
)

// A checkpoint needs no conversation: committing to a space and previewing
// what a new session would see make no session.
func TestCommitToSpaceAndPreviewMakeNoSession(t *testing.T) {
	e := newEnv(t)
	sp, err := e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("plain"), Description: new("")})
	if err != nil {
		t.Fatal(err)
	}
	msg1, msg2 := "First", "Second"
	first, err := e.c.CommitToSpace(bg, sp.ID, wire.SpaceCommitRequest{ContentFields: wire.ContentFields{Message: &msg1, Decisions: []string{"Keep it small"}}})
	if err != nil {
		t.Fatal(err)
	}
	if first.BranchName != "main" || first.ParentCommitID != nil || first.Metadata["session_id"] != nil || first.AuthorType != "user" {
		t.Fatalf("first = branch %q parent %v metadata %v author %q, want main, a root, no session_id, user",
			first.BranchName, first.ParentCommitID, first.Metadata, first.AuthorType)
	}
	agent := "codex"
	second, err := e.c.CommitToSpace(bg, sp.ID, wire.SpaceCommitRequest{ContentFields: wire.ContentFields{Message: &msg2}, AuthorAgent: &agent})
	if err != nil {
		t.Fatal(err)
	}
	if second.ParentCommitID == nil || *second.ParentCommitID != first.ID || second.AuthorType != "agent" || second.AuthorAgent == nil || *second.AuthorAgent != "codex" {
		t.Fatalf("second = parent %v author %q/%v, want parent %s, agent codex", second.ParentCommitID, second.AuthorType, second.AuthorAgent, first.ID)
	}
	repo, hi := sp.ID.String(), "what now"
	p, err := e.c.PreviewContext(bg, wire.SendRequest{RepoID: &repo, Message: &hi})
	if err != nil {
		t.Fatal(err)
	}
	if p.Mode != "HEAD" || len(p.Checkpoints) != 1 || p.Checkpoints[0].ID != second.ID || p.TurnCount != 0 {
		t.Fatalf("preview = mode %q checkpoints %v turns %d, want HEAD on %s with no turns", p.Mode, p.Checkpoints, p.TurnCount, second.ID)
	}
	sessions, err := e.c.Sessions(bg)
	if err != nil {
		t.Fatal(err)
	}
	if len(sessions) != 0 {
		t.Fatalf("sessions = %d, want 0", len(sessions))
	}
	// An unknown space is 404, and a bad item id 422; nothing is written.
	if st, d := call(t, e.c, "POST", "/api/v5/spaces/"+smriti.NewID().String()+"/checkpoints", map[string]any{"message": "x"}); st != 404 || d != "Space not found" {
		t.Fatalf("unknown space: %d %q, want 404 \"Space not found\"", st, d)
	}
	if st, d := call(t, e.c, "POST", "/api/v5/spaces/"+repo+"/checkpoints", map[string]any{"message": "x", "items": []map[string]any{{"id": "nope", "kind": "decision", "text": "x"}}}); st != 422 {
		t.Fatalf("bad item id: %d %q, want 422", st, d)
	}
	if list, err := e.c.Checkpoints(bg, sp.ID, ""); err != nil || len(list) != 2 {
		t.Fatalf("checkpoints = %d (%v), want 2", len(list), err)
	}
}
