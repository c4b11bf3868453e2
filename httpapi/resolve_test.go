package httpapi_test

import (
	"strings"
	"testing"

	"smriti/wire"
)

// A checkpoint reference resolves on the server in one request: a UUID, or
// 7+ characters of the hash (what Smriti shows) or of the id.
func TestResolveCheckpointReference(t *testing.T) {
	e := newEnv(t)
	a, err := e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("a"), Description: new("")})
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("b"), Description: new("")})
	if err != nil {
		t.Fatal(err)
	}
	msg := "Chose SQLite"
	cp, err := e.c.CommitToSpace(bg, a.ID, wire.SpaceCommitRequest{ContentFields: wire.ContentFields{Message: &msg}})
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{cp.ID.String(), cp.CommitHash[:7], strings.ToUpper(cp.CommitHash[:12]), cp.ID.String()[:8], " " + cp.CommitHash[:9] + " "} {
		got, err := e.c.ResolveCheckpoint(bg, ref, nil)
		if err != nil || got.ID != cp.ID || got.Message != msg {
			t.Fatalf("resolve %q = %v %v, want %s", ref, got, err, cp.ID)
		}
	}
	if got, err := e.c.ResolveCheckpoint(bg, cp.CommitHash[:7], &a.ID); err != nil || got.ID != cp.ID {
		t.Fatalf("resolve in its space = %v %v", got, err)
	}
	for _, c := range []struct {
		path, detail string
		status       int
	}{
		{"/api/v5/checkpoints/resolve?ref=" + cp.CommitHash[:7] + "&space_id=" + b.ID.String(), `no checkpoint matches "` + cp.CommitHash[:7] + `"`, 404},
		{"/api/v5/checkpoints/resolve?ref=zzzzzzzz", `no checkpoint matches "zzzzzzzz"`, 404},
		{"/api/v5/checkpoints/resolve?ref=abc", `checkpoint "abc": give the full id or at least 7 characters of its id or hash`, 400},
		{"/api/v5/checkpoints/resolve", "query parameter ref is required: a checkpoint UUID, or 7+ characters of its hash or id", 400},
		{"/api/v5/checkpoints/resolve?ref=" + cp.CommitHash[:7] + "&space_id=nope", "", 400},
	} {
		st, d := call(t, e.c, "GET", c.path, nil)
		if st != c.status || (c.detail != "" && d != c.detail) {
			t.Fatalf("GET %s = %d %q, want %d %q", c.path, st, d, c.status, c.detail)
		}
	}
}
