package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"smriti/store/storetest"
	"smriti/wire"
)

// A task blocked by two others is written over HTTP with blocked_by as a
// list, reads back as that list, and stays out of the ready queue until
// both blockers are done; one id as a string is still taken, and reads
// back as a string (no blocker: the field is left out).
func TestBlockedByListOverHTTP(t *testing.T) {
	e := newEnv(t)
	space := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("graph")})).Must(t)
	se := storetest.Get(e.c.CreateSession(bg, &space.ID, "s", "mock", "m")).Must(t)
	commit := func(aDone, bDone bool) {
		t.Helper()
		status := func(done bool) string {
			if done {
				return "done"
			}
			return "open"
		}
		body := fmt.Sprintf(`{"repo_id":%q,"session_id":%q,"message":"plan","tasks":[
			{"id":"a","text":"Write the parser","status":%q},
			{"id":"b","text":"Write the lexer","status":%q},
			{"id":"c","text":"Ship the compiler","blocked_by":["a","b"]},
			{"id":"d","text":"Document the lexer","blocked_by":"b"}]}`, space.ID, se.ID, status(aDone), status(bDone))
		if code, out := e.raw(t, http.MethodPost, "/api/v4/chat/commit", body); code != http.StatusCreated {
			t.Fatalf("commit = %d %s, want 201", code, out)
		}
	}
	ready := func() string {
		t.Helper()
		l := storetest.Get(e.c.ReadyTasks(bg, space.ID, 0)).Must(t)
		var keys []string
		for _, task := range l.Tasks {
			keys = append(keys, task.Key+"<"+strings.Join(task.BlockedBy, "+"))
		}
		return strings.Join(keys, " ")
	}
	commit(false, false)
	code, out := e.raw(t, http.MethodGet, "/api/v4/chat/spaces/"+space.ID.String()+"/state", "")
	if code != http.StatusOK {
		t.Fatalf("state = %d %s", code, out)
	}
	var st struct {
		Commit struct {
			Tasks []struct {
				ID        string          `json:"id"`
				BlockedBy json.RawMessage `json:"blocked_by"`
			} `json:"tasks"`
		} `json:"commit"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, task := range st.Commit.Tasks {
		got = append(got, task.ID+"="+string(task.BlockedBy))
	}
	if want := `a= b= c=["a","b"] d="b"`; strings.Join(got, " ") != want {
		t.Fatalf("tasks read back as %s, want %s", strings.Join(got, " "), want)
	}
	if got, want := ready(), "b< a<"; got != want { // b unblocks two tasks, a one
		t.Fatalf("ready with nothing done = %q, want %q", got, want)
	}
	commit(true, false)
	if got, want := ready(), "b<"; got != want {
		t.Fatalf("ready with a done = %q, want %q", got, want)
	}
	commit(true, true)
	if got, want := ready(), "c<a+b d<b"; got != want {
		t.Fatalf("ready with a and b done = %q, want %q", got, want)
	}
}
