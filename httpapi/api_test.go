package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"

	"smriti"
	"smriti/httpapi"
	"smriti/internal/textutil"
	"smriti/store/storetest"
	"smriti/wire"
)

type openapiDoc struct {
	Paths map[string]map[string]json.RawMessage `json:"paths"`
}

// routes lists the documented routes as {method, path, "body"|""}.
func routes(t *testing.T, e *testEnv) [][3]string {
	t.Helper()
	var doc openapiDoc
	if _, err := e.c.Do(bg, "GET", "/openapi.json", nil, &doc); err != nil {
		t.Fatal(err)
	}
	var out [][3]string
	for path, ops := range doc.Paths {
		for method, op := range ops {
			body := ""
			switch {
			case strings.Contains(string(op), `"format":"binary"`):
				body = "file"
			case strings.Contains(string(op), `"requestBody"`):
				body = "body"
			}
			out = append(out, [3]string{strings.ToUpper(method), path, body})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][1]+out[i][0] < out[j][1]+out[j][0] })
	return out
}

func fill(path, value string) string {
	out := path
	for strings.Contains(out, "{") {
		i, j := strings.Index(out, "{"), strings.Index(out, "}")
		out = out[:i] + value + out[j+1:]
	}
	return out
}

func TestOpenAPIListsEveryIssueRoute(t *testing.T) {
	e := newEnv(t)
	have := map[string]bool{}
	for _, r := range routes(t, e) {
		have[r[0]+" "+r[1]] = true
	}
	for _, want := range []string{
		"GET /health", "POST /api/v2/repos", "GET /api/v2/repos", "GET /api/v2/repos/{repo_id}", "DELETE /api/v2/repos/{repo_id}",
		"PATCH /api/v2/repos/{repo_id}/project-root", "GET /api/v2/repos/{repo_id}/commits", "GET /api/v2/repos/{repo_id}/commits/latest",
		"POST /api/v4/chat/commit", "POST /api/v2/commits", "GET /api/v2/commits/{commit_id}", "DELETE /api/v2/commits/{commit_id}",
		"POST /api/v5/checkpoint/{commit_id}/notes", "GET /api/v5/checkpoints/{commit_id}/verify",
		"POST /api/v4/chat/sessions", "GET /api/v4/chat/sessions", "GET /api/v4/chat/sessions/{session_id}",
		"DELETE /api/v4/chat/sessions/{session_id}", "GET /api/v4/chat/sessions/{session_id}/turns",
		"PUT /api/v4/chat/sessions/{session_id}/attach", "POST /api/v4/chat/spaces/{repo_id}/sessions",
		"GET /api/v4/chat/spaces/{repo_id}/sessions/{session_id}", "GET /api/v4/chat/spaces/{repo_id}/sessions/{session_id}/turns",
		"GET /api/v4/chat/spaces/{repo_id}/head", "POST /api/v4/chat/send", "POST /api/v5/chat/send/stream",
		"POST /api/v5/chat/context", "GET /api/v4/chat/providers", "GET /openapi.json", "GET /docs",
	} {
		if !have[want] {
			t.Errorf("OpenAPI document lacks %s", want)
		}
	}
	// Every documented route is really served: none answers the mux's
	// catch-all "Not found: METHOD PATH".
	for _, r := range routes(t, e) {
		_, body := e.raw(t, r[0], fill(r[1], smriti.NewID().String()), "{}")
		if strings.Contains(body, `"Not found: `) {
			t.Errorf("%s %s is documented but not routed", r[0], r[1])
		}
	}
}

// TestBadInputNeverA500 sends every documented route malformed ids,
// malformed JSON, wrong shapes and oversized bodies.
func TestBadInputNeverA500(t *testing.T) {
	e := newEnv(t)
	big := `{"message": "` + strings.Repeat("x", httpapi.DefaultBodyLimit+10) + `"}`
	for _, r := range routes(t, e) {
		method, path := r[0], r[1]
		hasID := strings.Contains(path, "{")
		takesBody := r[2] == "body"
		takesFile := r[2] == "file"
		t.Run(method+" "+path, func(t *testing.T) {
			check := func(what, p, body string, allowed ...int) {
				t.Helper()
				status, resp := e.raw(t, method, p, body)
				if status >= 500 {
					t.Fatalf("%s: status %d: %s", what, status, resp)
				}
				ok := len(allowed) == 0
				for _, a := range allowed {
					ok = ok || status == a
				}
				if !ok {
					t.Fatalf("%s: status %d (%s), want one of %v", what, status, resp, allowed)
				}
				if status >= 400 && !strings.Contains(resp, `"detail"`) {
					t.Fatalf("%s: error without detail: %s", what, resp)
				}
			}
			if hasID {
				check("malformed id", fill(path, "not-a-uuid"), "{}", 400)
				check("sql in id", fill(path, "1'%20OR%20'1'='1"), "{}", 400)
				check("dot segments in id", fill(path, ".."), "{}", 404)
				if !takesBody && !takesFile {
					check("unknown id", fill(path, smriti.NewID().String()), "", 404, 503)
				}
			}
			if takesFile {
				// A file route: a target that is missing, malformed or unknown
				// is named, and a file that is not what the route takes is
				// refused before anything is written.
				p := fill(path, smriti.NewID().String())
				md := "# Title\n\nuser: hi\n"
				switch path {
				case "/api/v5/import/transcript":
					check("no space", p, md, 422)
					check("malformed space id", p+"?space_id=nope", md, 400)
					check("unknown space", p+"?space_id="+smriti.NewID().String(), md, 404)
				case "/api/v5/spaces/import":
					check("not a bundle", p, "not gzip \x00\xff", 400)
					check("empty file", p, "", 400)
				case "/api/v5/spaces/{space_id}/sync/push":
					check("unknown space", p+"?branch=main&head="+strings.Repeat("a", 64), "not gzip", 404)
				default:
					t.Fatalf("no bad-input cases for the file route %s %s", method, path)
				}
			}
			if takesBody {
				p := fill(path, smriti.NewID().String())
				check("malformed json", p, `{"name": `, 400)
				check("empty body", p, ``, 400)
				check("array body", p, `[1,2]`, 422)
				check("oversized body", p, big, 413)
				check("wrong types", p, `{"session_id": 5, "repo_id": true, "message": ["x"], "name": 3, "text": 1, "content": 2, "space_id": [], "checkpoint_id": {}}`, 400, 404, 422)
				check("NUL in text", p, `{"message": "a\u0000", "name": "a\u0000", "text": "a\u0000", "content": "a\u0000", "markdown": "a\u0000", "title": "a\u0000"}`, 422)
				check("invalid UTF-8 in text", p, "{\"message\": \"caf\xe9\", \"name\": \"caf\xe9\", \"text\": \"caf\xe9\"}", 422)
				if status, resp, _ := e.send(t, method, p, `{"name":"x","message":"m"}`, map[string]string{"Content-Type": "text/plain"}); status != 415 {
					t.Fatalf("text/plain body: status %d (%s), want 415", status, resp)
				}
				check("bad uuids in body", p, `{"session_id": "nope", "repo_id": "nope", "space_id": "nope", "checkpoint_id": "nope", "mounted_checkpoint_id": "x", "message": "m", "name": "n", "text": "t", "content": "c"}`)
			}
		})
	}
}

func TestSpacesEndToEnd(t *testing.T) {
	e := newEnv(t)
	sp := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("Australia Trip"), Description: new("Planning")})).Must(t)
	if sp.Name != "Australia Trip" || sp.Metadata == nil || sp.RepoSlug != nil {
		t.Fatalf("space = %+v", sp)
	}
	list := storetest.Get(e.c.Spaces(bg)).Must(t)
	if len(list) != 1 || list[0].ID != sp.ID {
		t.Fatalf("spaces = %+v", list)
	}
	root := storetest.Get(e.c.SetProjectRoot(bg, sp.ID, "/src/trip")).Must(t)
	if root.ProjectRoot == nil || *root.ProjectRoot != "/src/trip" {
		t.Fatal("project root not set")
	}
	_, err := e.c.SetProjectRoot(bg, sp.ID, "   ")
	wantCode(t, err, smriti.EINVALID)
	_, err = e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("  "), Description: new("")})
	wantCode(t, err, smriti.EUNPROCESSABLE)
	_, err = e.c.LatestCheckpoint(bg, sp.ID, "")
	wantCode(t, err, smriti.ENOTFOUND)
	status, _ := e.raw(t, "POST", "/api/v2/repos", `{"name": "x", "user_id": "00000000-0000-0000-0000-000000000001"}`)
	if status != http.StatusForbidden {
		t.Fatalf("creating a space for another user: %d", status)
	}
	if err := e.c.DeleteSpace(bg, sp.ID); err != nil {
		t.Fatal(err)
	}
	_, err = e.c.Space(bg, sp.ID)
	wantCode(t, err, smriti.ENOTFOUND)
	wantCode(t, e.c.DeleteSpace(bg, sp.ID), smriti.ENOTFOUND)
}

func strp(s string) *string { return &s }

func TestCheckpointsEndToEnd(t *testing.T) {
	e := newEnv(t)
	sp := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("S"), Description: new("")})).Must(t)
	se := storetest.Get(e.c.CreateSession(bg, &sp.ID, "", "mock", "")).Must(t)
	commit := func(msg string, extra func(*wire.CommitRequest)) (*wire.Commit, error) {
		req := wire.CommitRequest{RepoID: strp(sp.ID.String()), SessionID: strp(se.ID.String())}
		req.Message = strp(msg)
		if extra != nil {
			extra(&req)
		}
		return e.c.Commit(bg, req)
	}
	a := storetest.Get(commit("A", func(r *wire.CommitRequest) {
		r.Decisions = []string{"East coast only"}
		r.Tasks = []smriti.Task{{Text: "Book flights"}, {Text: "Visa", ID: "visa", IntentHint: "investigate", Structured: true}}
		r.Artifacts = []smriti.Artifact{{ID: "a1", Type: "text", Label: "Itinerary", Content: "Day 1: Sydney"}}
	})).Must(t)
	if a.BranchName != "main" || a.ParentCommitID != nil || len(a.CommitHash) != 64 || a.AuthorType != "user" || a.AuthorAgent != nil {
		t.Fatalf("checkpoint A = %+v", a)
	}
	raw := storetest.Get(e.c.Checkpoint(bg, a.ID)).Must(t)
	b, _ := json.Marshal(raw.Tasks)
	if string(b) != `["Book flights",{"text":"Visa","id":"visa","intent_hint":"investigate"}]` {
		t.Fatalf("tasks round trip = %s", b)
	}
	bcp := storetest.Get(commit("B", nil)).Must(t)
	if bcp.ParentCommitID == nil || *bcp.ParentCommitID != a.ID {
		t.Fatal("B does not parent to A")
	}
	latest := storetest.Get(e.c.LatestCheckpoint(bg, sp.ID, "")).Must(t)
	if latest.ID != bcp.ID {
		t.Fatal("latest is not B")
	}
	head := storetest.Get(e.c.Head(bg, sp.ID)).Must(t)
	if head.CommitID == nil || *head.CommitID != bcp.ID || head.LatestSessionID == nil || *head.LatestSessionID != se.ID {
		t.Fatalf("head = %+v", head)
	}

	// Wrong types and validation.
	for body, want := range map[string]int{
		`{"repo_id": "` + sp.ID.String() + `", "session_id": "` + se.ID.String() + `", "message": "x", "decisions": "one"}`:            422,
		`{"repo_id": "` + sp.ID.String() + `", "session_id": "` + se.ID.String() + `", "message": "x", "tasks": [5]}`:                  422,
		`{"repo_id": "` + sp.ID.String() + `", "session_id": "` + se.ID.String() + `", "message": "x", "tasks": [{"id": "no-text"}]}`:  422,
		`{"repo_id": "` + sp.ID.String() + `", "session_id": "` + se.ID.String() + `", "message": ""}`:                                 422,
		`{"repo_id": "` + sp.ID.String() + `", "session_id": "` + se.ID.String() + `", "message": "` + strings.Repeat("m", 300) + `"}`: 422,
		`{"repo_id": "` + sp.ID.String() + `", "session_id": "` + smriti.NewID().String() + `", "message": "x"}`:                       404,
		`{"repo_id": "` + smriti.NewID().String() + `", "session_id": "` + se.ID.String() + `", "message": "x"}`:                       404,
		`{"repo_id": "zzz", "session_id": "` + se.ID.String() + `", "message": "x"}`:                                                   400,
		`{"session_id": "` + se.ID.String() + `", "message": "x"}`:                                                                     422,
	} {
		if status, resp := e.raw(t, "POST", "/api/v4/chat/commit", body); status != want {
			t.Errorf("commit %s: %d %s, want %d", textutil.Truncate(body, 120), status, resp, want)
		}
	}

	// Notes.
	n := storetest.Get(e.c.AddNote(bg, a.ID, "shipped", "", "milestone")).Must(t)
	if n.Author != "founder" || n.Kind != "milestone" {
		t.Fatalf("note = %+v", n)
	}
	_, err := e.c.AddNote(bg, a.ID, "x", "", "rant")
	wantCode(t, err, smriti.EINVALID)
	_, err = e.c.AddNote(bg, a.ID, strings.Repeat("x", 2001), "", "note")
	wantCode(t, err, smriti.EUNPROCESSABLE)
	withNote := storetest.Get(e.c.Checkpoint(bg, a.ID)).Must(t)
	if notes, ok := withNote.Metadata["notes"].([]any); !ok || len(notes) != 1 {
		t.Fatalf("metadata.notes = %v", withNote.Metadata["notes"])
	}

	// Legacy create with an explicit parent.
	legacy := wire.LegacyCommitRequest{RepoID: strp(sp.ID.String()), ParentCommitID: strp(a.ID.String()), BranchName: "side"}
	legacy.Message = strp("L")
	l := storetest.Get(e.c.CreateCheckpoint(bg, legacy)).Must(t)
	if l.ParentCommitID == nil || *l.ParentCommitID != a.ID || l.BranchName != "side" {
		t.Fatalf("legacy = %+v", l)
	}
	legacy.ParentCommitID = strp(smriti.NewID().String())
	_, err = e.c.CreateCheckpoint(bg, legacy)
	wantCode(t, err, smriti.EINVALID)

	// Verify, then tamper with a row directly and verify again.
	v := storetest.Get(e.c.Verify(bg, bcp.ID)).Must(t)
	if !v.OK || v.Checked != 2 {
		t.Fatalf("verify = %+v", v)
	}
	if _, err := e.store.DB().Exec(e.store.Rebind(`UPDATE checkpoints SET decisions = '["West coast only"]' WHERE id = ?`), a.ID); err != nil {
		t.Fatal(err)
	}
	v = storetest.Get(e.c.Verify(bg, bcp.ID)).Must(t)
	if v.OK || v.FirstMismatch == nil || *v.FirstMismatch != a.ID {
		t.Fatalf("verify after tampering = %+v", v)
	}

	// Delete with dependents: 409 with the dependents object, then cascade.
	err = e.c.DeleteCheckpoint(bg, a.ID, false)
	wantCode(t, err, smriti.ECONFLICT)
	data, _ := smriti.ErrorData(err).(map[string]any)
	deps, _ := data["dependents"].(map[string]any)
	if deps == nil || deps["blocking_count"].(float64) != 2 {
		t.Fatalf("409 detail = %v", data)
	}
	status, _ := e.raw(t, "DELETE", "/api/v2/commits/"+a.ID.String()+"?cascade=maybe", "")
	if status != 400 {
		t.Fatalf("cascade=maybe: %d", status)
	}
	if err := e.c.DeleteCheckpoint(bg, a.ID, true); err != nil {
		t.Fatal(err)
	}
	for _, id := range []smriti.ID{a.ID, bcp.ID, l.ID} {
		_, err := e.c.Checkpoint(bg, id)
		wantCode(t, err, smriti.ENOTFOUND)
	}
}

func TestSessionsEndToEnd(t *testing.T) {
	e := newEnv(t)
	sp := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("S"), Description: new("")})).Must(t)
	loose := storetest.Get(e.c.CreateSession(bg, nil, "Loose", "", "")).Must(t)
	if loose.RepoID != nil || loose.ActiveProvider != "mock" || loose.BranchName != "main" {
		t.Fatalf("loose = %+v", loose)
	}
	storetest.Get(e.c.Send(bg, wire.SendRequest{SessionID: strp(loose.ID.String()), Message: strp("hello")}, "")).Must(t)
	att := storetest.Get(e.c.Attach(bg, loose.ID, sp.ID)).Must(t)
	if att.RepoID == nil || *att.RepoID != sp.ID {
		t.Fatal("attach failed")
	}
	turns := storetest.Get(e.c.Turns(bg, loose.ID)).Must(t)
	if len(turns) != 2 || turns[0].RepoID == nil || *turns[0].RepoID != sp.ID {
		t.Fatalf("turns after attach = %+v", turns)
	}
	var inSpace wire.SessionOut
	if _, err := e.c.Do(bg, "POST", "/api/v4/chat/spaces/"+sp.ID.String()+"/sessions", map[string]any{"title": "T"}, &inSpace); err != nil {
		t.Fatal(err)
	}
	var got wire.SessionOut
	if _, err := e.c.Do(bg, "GET", "/api/v4/chat/spaces/"+sp.ID.String()+"/sessions/"+inSpace.ID.String(), nil, &got); err != nil || got.ID != inSpace.ID {
		t.Fatalf("space session: %v", err)
	}
	other := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("Other"), Description: new("")})).Must(t)
	_, err := e.c.Do(bg, "GET", "/api/v4/chat/spaces/"+other.ID.String()+"/sessions/"+inSpace.ID.String(), nil, nil)
	wantCode(t, err, smriti.ENOTFOUND)
	var spaceTurns []wire.TurnOut
	if _, err := e.c.Do(bg, "GET", "/api/v4/chat/spaces/"+sp.ID.String()+"/sessions/"+loose.ID.String()+"/turns", nil, &spaceTurns); err != nil || len(spaceTurns) != 2 {
		t.Fatalf("space turns: %v (%d)", err, len(spaceTurns))
	}
	list := storetest.Get(e.c.Sessions(bg)).Must(t)
	if len(list) != 2 {
		t.Fatalf("sessions = %d", len(list))
	}
	status, _ := e.raw(t, "POST", "/api/v4/chat/sessions", `{"repo_id": "`+sp.ID.String()+`", "seed_from": "bogus"}`)
	if status != 400 {
		t.Fatalf("bogus seed_from: %d", status)
	}
	if err := e.c.DeleteSession(bg, loose.ID); err != nil {
		t.Fatal(err)
	}
	_, err = e.c.Turns(bg, loose.ID)
	wantCode(t, err, smriti.ENOTFOUND)
}

func TestTurnsPageBySequence(t *testing.T) {
	e := newEnv(t)
	se := storetest.Get(e.c.CreateSession(bg, nil, "", "", "")).Must(t)
	for i := 0; i < 6; i++ {
		storetest.Get(e.c.Send(bg, wire.SendRequest{SessionID: strp(se.ID.String()), Message: strp(fmt.Sprint(i))}, "")).Must(t)
	}
	var page []wire.TurnOut
	resp, err := e.c.Do(bg, "GET", "/api/v4/chat/sessions/"+se.ID.String()+"/turns?limit=5", nil, &page)
	if err != nil || len(page) != 5 || resp.Header.Get("X-Next-Cursor") != "4" {
		t.Fatalf("first page: %v, %d turns, cursor %q", err, len(page), resp.Header.Get("X-Next-Cursor"))
	}
	all := storetest.Get(e.c.AllTurns(bg, se.ID)).Must(t)
	if len(all) != 12 {
		t.Fatalf("all turns = %d", len(all))
	}
}

func TestConcurrentCommitsOverHTTPFormOneChain(t *testing.T) {
	e := newEnv(t)
	sp := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("S"), Description: new("")})).Must(t)
	se := storetest.Get(e.c.CreateSession(bg, &sp.ID, "", "", "")).Must(t)
	var wg sync.WaitGroup
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			req := wire.CommitRequest{RepoID: strp(sp.ID.String()), SessionID: strp(se.ID.String())}
			req.Message = strp(fmt.Sprint(i))
			if _, err := e.c.Commit(bg, req); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	list := storetest.Get(e.c.Checkpoints(bg, sp.ID, "main")).Must(t)
	if len(list) != 32 {
		t.Fatalf("checkpoints = %d", len(list))
	}
	for i := 0; i < len(list)-1; i++ {
		if list[i].ParentCommitID == nil || *list[i].ParentCommitID != list[i+1].ID {
			t.Fatalf("checkpoint %d does not parent to the previous one", i)
		}
	}
}

func TestHealthAndMetrics(t *testing.T) {
	e := newEnv(t)
	h := storetest.Get(e.c.Health(bg)).Must(t)
	if h.Status != "ok" || h.Database != "sqlite" || len(h.Capabilities) == 0 {
		t.Fatalf("health = %+v", h)
	}
	e.raw(t, "GET", "/api/v2/repos/not-a-uuid", "")
	se := storetest.Get(e.c.CreateSession(bg, nil, "", "mock", "")).Must(t)
	storetest.Get(e.c.Send(bg, wire.SendRequest{SessionID: strp(se.ID.String()), Message: strp("count me")}, "")).Must(t)
	_, body := e.raw(t, "GET", "/metrics", "")
	for _, want := range []string{"smriti_http_requests_total", `route="/api/v2/repos/{repo_id}"`, `smriti_errors_total{code="invalid"}`,
		`smriti_provider_calls_total{model="mock",outcome="ok",provider="mock"} 1`, `smriti_provider_tokens_total{direction="output",provider="mock"}`} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	// The reference page is self-contained: it renders /openapi.json with
	// its own script and loads nothing from elsewhere.
	_, docs := e.raw(t, "GET", "/docs", "")
	if !strings.Contains(docs, `fetch("/openapi.json")`) || !strings.Contains(docs, "Context modes") {
		t.Error("docs page does not render /openapi.json or lacks the context modes")
	}
	for _, external := range []string{"http://", "https://", "//cdn", "<link "} {
		if strings.Contains(docs, external) {
			t.Errorf("docs page refers outside the server: %q", external)
		}
	}
}

// The two import routes take a file, not JSON: the document says which
// media types, with a binary schema, so a client generated from it sends
// the file as is.
func TestOpenAPIDocumentsFileBodies(t *testing.T) {
	e := newEnv(t)
	var doc struct {
		Paths map[string]map[string]struct {
			RequestBody struct {
				Required bool `json:"required"`
				Content  map[string]struct {
					Schema map[string]string `json:"schema"`
				} `json:"content"`
			} `json:"requestBody"`
		} `json:"paths"`
	}
	if _, err := e.c.Do(bg, "GET", "/openapi.json", nil, &doc); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string][]string{
		"/api/v5/import/transcript": {"application/json", "application/octet-stream"},
		"/api/v5/spaces/import":     {"application/gzip", "application/octet-stream"},
	} {
		body := doc.Paths[path]["post"].RequestBody
		if !body.Required || len(body.Content) != len(want) {
			t.Errorf("POST %s request body = %+v, want required with %v", path, body, want)
		}
		for _, mt := range want {
			if s := body.Content[mt].Schema; s["type"] != "string" || s["format"] != "binary" {
				t.Errorf("POST %s %s schema = %v, want a binary string", path, mt, s)
			}
		}
	}
}
