package httpapi_test

import (
	"fmt"
	"testing"

	"smriti"
	"smriti/store/storetest"
	"smriti/wire"
)

// An extraction for a save is settled on the server as the save would be:
// onto the checkpoint the save builds on (the session's branch head, a
// fork's source before its first), so no client asks for the base
// first; a session of another space is 404 before any model is asked.
func TestExtractForSaveTakesTheSavesBase(t *testing.T) {
	e := newEnv(t)
	sp, se := e.spaceSession(t)
	other, ose := e.spaceSession(t)
	head := commitVia(t, e, sp.ID, se.ID, "Base", "Use SQLite")
	doc := "# Notes\n\nDecision: ship weekly."

	ex := storetest.Get(e.c.ExtractForSave(bg, sp.ID, se.ID, doc, true, nil)).Must(t)
	if ex.BaseCheckpointID == nil || *ex.BaseCheckpointID != head.ID || ex.Title == "" {
		t.Fatalf("extract = base %v, title %q; want base %s and a title", ex.BaseCheckpointID, ex.Title, head.ID)
	}
	spID, headID := sp.ID.String(), head.ID.String()
	fork := storetest.Get(e.c.Fork(bg, wire.ForkRequest{SpaceID: &spID, CheckpointID: &headID, BranchName: "web"})).Must(t)
	ex = storetest.Get(e.c.ExtractForSave(bg, sp.ID, fork.SessionID, doc, true, nil)).Must(t)
	if ex.BaseCheckpointID == nil || *ex.BaseCheckpointID != head.ID {
		t.Fatalf("fork's first extract = base %v; want its source %s", ex.BaseCheckpointID, head.ID)
	}
	ex = storetest.Get(e.c.ExtractForSave(bg, other.ID, smriti.NilID, doc, true, nil)).Must(t)
	if ex.BaseCheckpointID != nil {
		t.Fatalf("extract in an empty space = base %v; want none", ex.BaseCheckpointID)
	}
	body := fmt.Sprintf(`{"content": "# x", "use_mock": true, "space_id": "%s", "session_id": "%s"}`, sp.ID, ose.ID)
	if status, got := e.raw(t, "POST", "/api/v5/checkpoint/extract", body); status != 404 || got != `{"detail":"Session not found in this space"}`+"\n" {
		t.Fatalf("extract with another space's session = %d %s", status, got)
	}
}
