package httpapi_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"smriti"
	"smriti/store/storetest"
	"smriti/wire"
)

// nextBaseAnswer is the exact body GET /api/v5/spaces/{id}/next-base
// should answer: base nil for a first checkpoint, session NilID for none.
func nextBaseAnswer(space, session smriti.ID, branch string, base *wire.Commit) map[string]any {
	out := map[string]any{"space_id": space.String(), "session_id": nil, "branch_name": branch,
		"base_checkpoint_id": nil, "base_commit_hash": nil}
	if session != smriti.NilID {
		out["session_id"] = session.String()
	}
	if base != nil {
		out["base_checkpoint_id"], out["base_commit_hash"] = base.ID.String(), base.CommitHash
	}
	return out
}

func getNextBase(t *testing.T, e *testEnv, space, session smriti.ID) map[string]any {
	t.Helper()
	path := "/api/v5/spaces/" + space.String() + "/next-base"
	if session != smriti.NilID {
		path += "?session_id=" + session.String()
	}
	status, body := e.raw(t, "GET", path, "")
	if status != 200 {
		t.Fatalf("GET %s = %d %s, want 200", path, status, body)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestNextBaseEveryModeAsTheHeadsMove asks the server what the next
// checkpoint builds on in every mode (no session, a main session, a fork
// before and after its first checkpoint), each time after a head moved,
// and checks that a commit then lands on exactly the answered parent.
func TestNextBaseEveryModeAsTheHeadsMove(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) { nextBaseEveryMode(t) })
	t.Run("Postgres", func(t *testing.T) { nextBaseEveryMode(t, withPostgres()) })
}

func nextBaseEveryMode(t *testing.T, opts ...envOption) {
	e := newEnv(t, opts...)
	l := newLineageSpace(t, e)
	none := smriti.NilID
	want := func(step string, session smriti.ID, branch string, base *wire.Commit) {
		t.Helper()
		got := getNextBase(t, e, l.space, session)
		if w := nextBaseAnswer(l.space, session, branch, base); !reflect.DeepEqual(got, w) {
			t.Fatalf("%s: next-base = %v, want %v", step, got, w)
		}
		// The Go client asks the same question in one round trip.
		id := storetest.Get(e.c.CommitBase(bg, l.space, session)).Must(t)
		if (base == nil) != (id == nil) || (base != nil && *id != base.ID) {
			t.Fatalf("%s: client CommitBase = %v, want %v", step, id, base)
		}
	}
	want("empty space, no session", none, "main", nil)
	want("empty space, main session", l.main, "main", nil)

	c1 := l.note(t, l.main, "Base", "Fly into Sydney")
	want("after the first, no session", none, "main", c1)
	want("after the first, main session", l.main, "main", c1)

	fork := l.fork(t, c1.ID, "east")
	want("fork before its first", fork.SessionID, "east", c1)

	// main moves on: main's writers follow it, the fork still builds on
	// the checkpoint it was forked from.
	msg := "No session"
	c2 := storetest.Get(e.c.CommitToSpace(bg, l.space, wire.SpaceCommitRequest{ContentFields: wire.ContentFields{Message: &msg, Decisions: []string{"East coast only"}}})).Must(t)
	if c2.ParentCommitID == nil || *c2.ParentCommitID != c1.ID {
		t.Fatalf("no-session commit parent = %v, want %s", c2.ParentCommitID, c1.ID)
	}
	want("main moved, no session", none, "main", c2)
	want("main moved, main session", l.main, "main", c2)
	want("main moved, fork before its first", fork.SessionID, "east", c1)

	e1 := l.note(t, fork.SessionID, "East", "Drive the coast")
	if e1.ParentCommitID == nil || *e1.ParentCommitID != c1.ID || e1.BranchName != "east" {
		t.Fatalf("fork's first = parent %v on %s, want %s on east", e1.ParentCommitID, e1.BranchName, c1.ID)
	}
	want("fork after its first", fork.SessionID, "east", e1)
	want("fork after its first, main session", l.main, "main", c2)

	e2 := l.note(t, fork.SessionID, "East again", "Stop in Byron")
	if e2.ParentCommitID == nil || *e2.ParentCommitID != e1.ID {
		t.Fatalf("fork's second parent = %v, want %s", e2.ParentCommitID, e1.ID)
	}
	want("fork's head moved", fork.SessionID, "east", e2)
	c3 := l.note(t, l.main, "Main again", "Book the hotel")
	if c3.ParentCommitID == nil || *c3.ParentCommitID != c2.ID {
		t.Fatalf("main session's commit parent = %v, want %s", c3.ParentCommitID, c2.ID)
	}
	want("main's head moved again, main session", l.main, "main", c3)
	want("main's head moved again, fork", fork.SessionID, "east", e2)
}

// TestNextBaseRefusesUnknownAndMalformed: a space or session the caller
// cannot name is 404, a malformed id 400, each with a detail.
func TestNextBaseRefusesUnknownAndMalformed(t *testing.T) {
	e := newEnv(t)
	l := newLineageSpace(t, e)
	other := newLineageSpace(t, e)
	missing := smriti.NewID().String()
	base := "/api/v5/spaces/" + l.space.String() + "/next-base"
	for _, c := range []struct {
		name, path string
		status     int
		detail     string
	}{
		{"UnknownSpace", "/api/v5/spaces/" + missing + "/next-base", 404, "Space not found"},
		{"UnknownSession", base + "?session_id=" + missing, 404, "Session not found"},
		{"SessionOfAnotherSpace", base + "?session_id=" + other.main.String(), 404, "Session not found in this space"},
		{"MalformedSpace", "/api/v5/spaces/not-a-uuid/next-base", 400, `space_id: "not-a-uuid" is not a valid UUID`},
		{"MalformedSession", base + "?session_id=abc", 400, `session_id: "abc" is not a valid UUID`},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, body := e.raw(t, "GET", c.path, "")
			var got map[string]any
			if err := json.Unmarshal([]byte(body), &got); err != nil {
				t.Fatalf("%d %s: %v", status, body, err)
			}
			if status != c.status || !reflect.DeepEqual(got, map[string]any{"detail": c.detail}) {
				t.Fatalf("GET %s = %d %s, want %d {\"detail\": %q}", c.path, status, body, c.status, c.detail)
			}
		})
	}
}
