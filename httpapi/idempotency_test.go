package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"smriti"
	"smriti/client"
	"smriti/store/storetest"
	"smriti/wire"
)

// keyedAnswer is one answer to a keyed request.
type keyedAnswer struct {
	status int
	header http.Header
	body   string
}

// keyed sends a request with an Idempotency-Key ("" for none).
func (e *testEnv) keyed(t *testing.T, method, path, key, contentType string, body []byte) keyedAnswer {
	t.Helper()
	req, err := http.NewRequest(method, e.url+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := e.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return keyedAnswer{resp.StatusCode, resp.Header, string(b)}
}

// idemFixture is a space with a session on main, a checkpoint with a ready
// task, and a fork with a checkpoint of its own (something to merge).
type idemFixture struct {
	space, session, base, fork, east smriti.ID
}

func newIdemFixture(t *testing.T, e *testEnv) idemFixture {
	t.Helper()
	var f idemFixture
	sp := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("Australia Trip"), Description: new("2026")})).Must(t)
	f.space = sp.ID
	se := storetest.Get(e.c.CreateSession(bg, &f.space, "plan", "mock", "mock")).Must(t)
	f.session = se.ID
	base := storetest.Get(e.c.Commit(bg, wire.CommitRequest{RepoID: strp(f.space.String()), SessionID: strp(f.session.String()),
		ContentFields: wire.ContentFields{Message: strp("Plan"), Tasks: []smriti.Task{{Text: "Book flights", ID: "flights"}}}})).Must(t)
	f.base = base.ID
	fork := storetest.Get(e.c.Fork(bg, wire.ForkRequest{SpaceID: strp(f.space.String()), CheckpointID: strp(f.base.String()), BranchName: "east"})).Must(t)
	f.fork = fork.SessionID
	east := storetest.Get(e.c.Commit(bg, wire.CommitRequest{RepoID: strp(f.space.String()), SessionID: strp(f.fork.String()),
		ContentFields: wire.ContentFields{Message: strp("East"), Decisions: []string{"East coast only"}}})).Must(t)
	f.east = east.ID
	return f
}

// counts is how many checkpoints, sessions, claims and notes the fixture's
// space holds, and how many spaces there are.
func (e *testEnv) counts(t *testing.T, f idemFixture) string {
	t.Helper()
	tree := storetest.Get(e.c.Tree(bg, f.space)).Must(t)
	claims, _, err := e.c.Claims(bg, f.space, client.ClaimsOptions{IncludeExpired: true})
	if err != nil {
		t.Fatal(err)
	}
	base := storetest.Get(e.store.Checkpoint(bg, f.base)).Must(t)
	spaces := storetest.Get(e.c.Spaces(bg)).Must(t)
	return fmt.Sprintf("checkpoints=%d sessions=%d claims=%d notes=%d spaces=%d", len(tree.Checkpoints), len(tree.Sessions), len(claims), len(base.Notes), len(spaces))
}

// idemCase is one creating write: its request, another request (same
// route), its status and the counts after it wrote once.
type idemCase struct {
	name, path, contentType string
	body, other             []byte
	status                  int
	after                   string
}

var idemCaseNames = []string{"ChatCommit", "SpaceCheckpoint", "LegacyCommit", "Note", "Fork", "Merge", "Claim", "ReadyClaim", "TranscriptImport", "SpaceImport"}

func idemCases(t *testing.T, e *testEnv, f idemFixture) []idemCase {
	js := "application/json"
	var bundle bytes.Buffer
	if err := e.c.ExportSpace(bg, f.space, &bundle); err != nil {
		t.Fatal(err)
	}
	sp, se, base, east := f.space.String(), f.session.String(), f.base.String(), f.east.String()
	return []idemCase{
		{"ChatCommit", "/api/v4/chat/commit", js,
			[]byte(`{"repo_id":"` + sp + `","session_id":"` + se + `","message":"Second"}`),
			[]byte(`{"repo_id":"` + sp + `","session_id":"` + se + `","message":"Other"}`),
			201, "checkpoints=3 sessions=2 claims=0 notes=0 spaces=1"},
		{"SpaceCheckpoint", "/api/v5/spaces/" + sp + "/checkpoints", js,
			[]byte(`{"message":"Second"}`), []byte(`{"message":"Other"}`),
			201, "checkpoints=3 sessions=2 claims=0 notes=0 spaces=1"},
		{"LegacyCommit", "/api/v2/commits", js,
			[]byte(`{"repo_id":"` + sp + `","message":"Second"}`), []byte(`{"repo_id":"` + sp + `","message":"Other"}`),
			201, "checkpoints=3 sessions=2 claims=0 notes=0 spaces=1"},
		{"Note", "/api/v5/checkpoint/" + base + "/notes", js,
			[]byte(`{"text":"shipped","kind":"milestone"}`), []byte(`{"text":"shipped","kind":"note"}`),
			201, "checkpoints=2 sessions=2 claims=0 notes=1 spaces=1"},
		{"Fork", "/api/v5/lineage/sessions/fork", js,
			[]byte(`{"space_id":"` + sp + `","checkpoint_id":"` + base + `","branch_name":"west"}`),
			[]byte(`{"space_id":"` + sp + `","checkpoint_id":"` + base + `","branch_name":"north"}`),
			201, "checkpoints=2 sessions=3 claims=0 notes=0 spaces=1"},
		{"Merge", "/api/v5/lineage/merge", js,
			[]byte(`{"space_id":"` + sp + `","source_checkpoint_id":"` + east + `","message":"Merge east"}`),
			[]byte(`{"space_id":"` + sp + `","source_checkpoint_id":"` + east + `","message":"Merge it"}`),
			201, "checkpoints=3 sessions=2 claims=0 notes=0 spaces=1"},
		{"Claim", "/api/v5/claims", js,
			[]byte(`{"space_id":"` + sp + `","agent":"claude-code","scope":"docs/README"}`),
			[]byte(`{"space_id":"` + sp + `","agent":"claude-code","scope":"docs/OTHER"}`),
			201, "checkpoints=2 sessions=2 claims=1 notes=0 spaces=1"},
		{"ReadyClaim", "/api/v5/spaces/" + sp + "/ready/claim", js,
			[]byte(`{"agent":"planner","ttl":"2h"}`), []byte(`{"agent":"other","ttl":"2h"}`),
			201, "checkpoints=2 sessions=2 claims=1 notes=0 spaces=1"},
		{"TranscriptImport", "/api/v5/import/transcript?space_id=" + sp + "&filename=notes.md", "application/octet-stream",
			[]byte("# Trip\n\n**User:** Where first?\n\n**Assistant:** Sydney.\n"), []byte("# Trip\n\n**User:** Where next?\n\n**Assistant:** Cairns.\n"),
			200, "checkpoints=2 sessions=3 claims=0 notes=0 spaces=1"},
		{"SpaceImport", "/api/v5/spaces/import?as_new=true", "application/gzip",
			bundle.Bytes(), append(bytes.Clone(bundle.Bytes()), 0),
			201, "checkpoints=2 sessions=2 claims=0 notes=0 spaces=2"},
	}
}

// Every creating write: a retry with the same key answers the same status
// and body (same ids) without writing; the same key with another request
// is 422 and writes nothing either.
func TestIdempotencyKeyOnEveryCreatingWrite(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			var opts []envOption
			if engine == "postgres" {
				opts = append(opts, withPostgres())
			}
			for i, name := range idemCaseNames {
				t.Run(name, func(t *testing.T) {
					e := newEnv(t, opts...)
					f := newIdemFixture(t, e)
					c := idemCases(t, e, f)[i]
					if c.name != name {
						t.Fatalf("case %d is %s, want %s", i, c.name, name)
					}
					before := e.counts(t, f)
					if before != "checkpoints=2 sessions=2 claims=0 notes=0 spaces=1" {
						t.Fatalf("fixture counts = %s", before)
					}
					first := e.keyed(t, "POST", c.path, "key-1", c.contentType, c.body)
					if first.status != c.status || first.header.Get("Idempotent-Replayed") != "" {
						t.Fatalf("first = %d %q (replayed %q), want %d", first.status, first.body, first.header.Get("Idempotent-Replayed"), c.status)
					}
					again := e.keyed(t, "POST", c.path, "key-1", c.contentType, c.body)
					if again.status != c.status || again.body != first.body || again.header.Get("Idempotent-Replayed") != "true" {
						t.Fatalf("retry = %d %q (replayed %q), want %d %q replayed", again.status, again.body, again.header.Get("Idempotent-Replayed"), c.status, first.body)
					}
					if got := e.counts(t, f); got != c.after {
						t.Fatalf("after a write and its retry: %s, want %s", got, c.after)
					}
					other := e.keyed(t, "POST", c.path, "key-1", c.contentType, c.other)
					want := `{"detail":"Idempotency-Key \"key-1\" was already used for a different request; use a new key for a new request"}` + "\n"
					if other.status != 422 || other.body != want {
						t.Fatalf("same key, other request = %d %q, want 422 %q", other.status, other.body, want)
					}
					if got := e.counts(t, f); got != c.after {
						t.Fatalf("after the refused request: %s, want %s", got, c.after)
					}
				})
			}
		})
	}
}

// client_request_id in the body is the key when no header is sent; the
// header wins when both are; the key itself is not part of the request.
func TestClientRequestIDIsTheBodyFormOfTheKey(t *testing.T) {
	e := newEnv(t)
	f := newIdemFixture(t, e)
	path := "/api/v5/spaces/" + f.space.String() + "/checkpoints"
	first := e.keyed(t, "POST", path, "", "application/json", []byte(`{"message":"Second","client_request_id":"req-1"}`))
	again := e.keyed(t, "POST", path, "", "application/json", []byte(`{"client_request_id":"req-1","message":"Second"}`))
	if first.status != 201 || again.status != 201 || again.body != first.body || again.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("first %d %q, retry %d %q (replayed %q)", first.status, first.body, again.status, again.body, again.header.Get("Idempotent-Replayed"))
	}
	// The header names the key: req-1 in the body is ignored, and the body
	// without its key is the same request as before.
	viaHeader := e.keyed(t, "POST", path, "req-1", "application/json", []byte(`{"message":"Second","client_request_id":"ignored"}`))
	if viaHeader.status != 201 || viaHeader.body != first.body {
		t.Fatalf("header key = %d %q, want the first answer", viaHeader.status, viaHeader.body)
	}
	if got := e.counts(t, f); got != "checkpoints=3 sessions=2 claims=0 notes=0 spaces=1" {
		t.Fatalf("counts = %s", got)
	}
	// No key: every request writes.
	e.keyed(t, "POST", path, "", "application/json", []byte(`{"message":"Second"}`))
	e.keyed(t, "POST", path, "", "application/json", []byte(`{"message":"Second"}`))
	if got := e.counts(t, f); got != "checkpoints=5 sessions=2 claims=0 notes=0 spaces=1" {
		t.Fatalf("counts without keys = %s", got)
	}
}

// A request refused before it wrote leaves its key free for the corrected
// request; a merge preview (dry_run) writes nothing and keeps no key; a key
// over 200 characters is refused.
func TestIdempotencyKeyEdges(t *testing.T) {
	e := newEnv(t)
	f := newIdemFixture(t, e)
	path := "/api/v5/spaces/" + f.space.String() + "/checkpoints"
	bad := e.keyed(t, "POST", path, "fix-me", "application/json", []byte(`{"message":"  "}`))
	if bad.status != 422 {
		t.Fatalf("blank message = %d %q, want 422", bad.status, bad.body)
	}
	good := e.keyed(t, "POST", path, "fix-me", "application/json", []byte(`{"message":"Fixed"}`))
	if good.status != 201 || good.header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("corrected request = %d %q, want a fresh 201", good.status, good.body)
	}
	merge := func(msg string) keyedAnswer {
		return e.keyed(t, "POST", "/api/v5/lineage/merge", "preview", "application/json",
			[]byte(`{"space_id":"`+f.space.String()+`","source_checkpoint_id":"`+f.east.String()+`","message":"`+msg+`","dry_run":true}`))
	}
	if a, b := merge("one"), merge("two"); a.status != 200 || b.status != 200 || b.header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("previews under one key = %d, %d (replayed %q); want 200, 200, not replayed", a.status, b.status, b.header.Get("Idempotent-Replayed"))
	}
	if got := e.counts(t, f); got != "checkpoints=3 sessions=2 claims=0 notes=0 spaces=1" {
		t.Fatalf("counts = %s", got)
	}
	long := e.keyed(t, "POST", path, strings.Repeat("k", 201), "application/json", []byte(`{"message":"Long"}`))
	if want := `{"detail":"Idempotency-Key must be at most 200 characters"}` + "\n"; long.status != 422 || long.body != want {
		t.Fatalf("long key = %d %q, want 422 %q", long.status, long.body, want)
	}
}

// Concurrent requests with one key write once: each answer is the first
// one's (201, the same checkpoint) or 409 "in progress" with Retry-After.
func TestConcurrentRequestsWithOneKeyWriteOnce(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			var opts []envOption
			if engine == "postgres" {
				opts = append(opts, withPostgres())
			}
			e := newEnv(t, opts...)
			f := newIdemFixture(t, e)
			path := "/api/v5/spaces/" + f.space.String() + "/checkpoints"
			const n = 8
			answers := make([]keyedAnswer, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					answers[i] = e.keyed(t, "POST", path, "together", "application/json", []byte(`{"message":"Once"}`))
				}()
			}
			wg.Wait()
			var id string
			inProgress := `{"detail":"a request with Idempotency-Key \"together\" is still in progress; send it again shortly for its answer"}` + "\n"
			for _, a := range answers {
				switch a.status {
				case 201:
					var c wire.Commit
					if err := json.Unmarshal([]byte(a.body), &c); err != nil {
						t.Fatal(err)
					}
					if id == "" {
						id = c.ID.String()
					}
					if c.ID.String() != id {
						t.Fatalf("two checkpoints answered: %s and %s", id, c.ID)
					}
				case 409:
					if a.body != inProgress || a.header.Get("Retry-After") != "1" {
						t.Fatalf("409 = %q (Retry-After %q), want %q with Retry-After 1", a.body, a.header.Get("Retry-After"), inProgress)
					}
				default:
					t.Fatalf("answer %d %q", a.status, a.body)
				}
			}
			if id == "" {
				t.Fatal("no request answered 201")
			}
			replays := 0
			for _, a := range answers {
				if a.header.Get("Idempotent-Replayed") == "true" {
					replays++
				}
			}
			t.Logf("%d concurrent requests: %d replayed the first answer, %d answered 409", n, replays, n-1-replays)
			if got := e.counts(t, f); got != "checkpoints=3 sessions=2 claims=0 notes=0 spaces=1" {
				t.Fatalf("counts = %s, want one checkpoint written", got)
			}
			// Once answered, the key replays it.
			again := e.keyed(t, "POST", path, "together", "application/json", []byte(`{"message":"Once"}`))
			if again.status != 201 || !strings.Contains(again.body, `"id":"`+id+`"`) || again.header.Get("Idempotent-Replayed") != "true" {
				t.Fatalf("retry = %d %q, want the replay of %s", again.status, again.body, id)
			}
		})
	}
}

// The OpenAPI document declares the header, the replay marker and the
// 409 with Retry-After on every creating write.
func TestOpenAPIDocumentsIdempotencyKeys(t *testing.T) {
	e := newEnv(t)
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct{ Name, In string }
			Responses  map[string]struct {
				Headers map[string]any
			}
		}
	}
	if _, err := e.c.Do(bg, "GET", "/openapi.json", nil, &doc); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/api/v4/chat/commit", "/api/v5/spaces/{space_id}/checkpoints", "/api/v2/commits", "/api/v5/checkpoint/{commit_id}/notes",
		"/api/v5/lineage/sessions/fork", "/api/v5/lineage/merge", "/api/v5/claims", "/api/v5/spaces/{space_id}/ready/claim",
		"/api/v5/import/transcript", "/api/v5/spaces/import"} {
		op := doc.Paths[p]["post"]
		header := false
		for _, prm := range op.Parameters {
			header = header || prm.Name == "Idempotency-Key" && prm.In == "header"
		}
		_, conflictRetry := op.Responses["409"].Headers["Retry-After"]
		replayed := false
		for st, r := range op.Responses {
			if _, ok := r.Headers["Idempotent-Replayed"]; ok && st[0] == '2' {
				replayed = true
			}
		}
		if !header || !conflictRetry || !replayed {
			t.Errorf("POST %s: header %v, 409 Retry-After %v, Idempotent-Replayed %v; want all", p, header, conflictRetry, replayed)
		}
	}
}
