package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"smriti/httpapi"
	"smriti/secrets"
)

// conformancePending lists routes (as "METHOD /path") that have no success
// case in TestOpenAPIConformance yet; their schemas are still generated and
// their bad input still swept. A route added without a case or an entry
// here fails TestEveryRouteHasAConformanceCase.
var conformancePending = map[string]bool{
	// A clone needs a second server holding a space this one lacks; it runs
	// in TestSyncTwoClonesStory (a team server and two laptops).
	"POST /api/v5/clone": true,
}

// conformanceStep is one real request of the scenario: a route's success
// path. Path and body may hold {name} placeholders filled from values
// captured by earlier steps; capture names values of the answer to keep.
type conformanceStep struct {
	method, path, body string
	headers            map[string]string
	capture            map[string]string // name → top-level field (dotted for nested)
	// contentType is the request body's media type (default JSON).
	contentType string
	// keep names the raw answer, for a later step's body ("{name}").
	keep string
	// until ends a never-ending stream once this text has arrived.
	until string
	// status, when set, is the answer expected instead of the route's main
	// success: an error case, or another success (a dry run's 200). The
	// contract layer checks the document describes it, body and all.
	status int
}

// placeholder is {name}, or {name:N} for the value's first N characters
// (an id prefix).
var placeholder = regexp.MustCompile(`\{([a-z_]+)(?::([0-9]+))?\}`)

// TestOpenAPIConformance drives every route's success path on a real
// server and checks each answer against the document: the status is the
// documented one, every field of the answer is documented (with the right
// type, and within its enum), every required field is present, and every
// documented field of every schema the answers reach shows up in at least
// one real answer.
func TestOpenAPIConformance(t *testing.T) {
	// Worktrees run the real git in a real repository (the space's
	// project root).
	repo := newRepo(t)
	e := newEnv(t, withGit(filepath.Join(t.TempDir(), "worktrees"), &testClock{t: time.Now().UTC()}))
	var doc map[string]any
	if _, err := e.c.Do(bg, "GET", "/openapi.json", nil, &doc); err != nil {
		t.Fatal(err)
	}
	addConformanceUser(t, e)
	v := &validator{doc: doc, seen: map[string]bool{}, reached: map[string]bool{}}
	// fake_key is a random fake credential that the scenario pastes into a
	// send, a commit, a note and a claim, whose answers then list their
	// redactions.
	vals := map[string]string{"git_repo": repo, "self": e.url, "remotename": "origin", "fake_key": fakeKey(7), "fake_fp": secrets.Fingerprint(fakeKey(7)), "fake_rule": "github-pat"}
	covered := map[string]bool{}
	for i, st := range conformanceScenario() {
		fill := func(s string) string {
			return placeholder.ReplaceAllStringFunc(s, func(m string) string {
				sub := placeholder.FindStringSubmatch(m)
				val, ok := vals[sub[1]]
				if !ok {
					return m
				}
				if n, err := strconv.Atoi(sub[2]); err == nil && n < len(val) {
					val = val[:n]
				}
				return val
			})
		}
		path, body := fill(st.path), fill(st.body)
		route := st.path // a wrong method's path has no operation
		if st.status != http.StatusMethodNotAllowed {
			route = e.routeOf(t, doc, st.method, st.path)
		}
		if st.status == 0 {
			covered[st.method+" "+route] = true
		}
		ctx, cancel := context.WithCancel(bg)
		req, err := http.NewRequestWithContext(ctx, st.method, e.url+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if body != "" {
			ct := st.contentType
			if ct == "" {
				ct = "application/json"
			}
			req.Header.Set("Content-Type", ct)
		}
		for k, h := range st.headers {
			req.Header.Set(k, fill(h))
		}
		resp, err := e.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := readAnswer(resp.Body, st.until)
		cancel()
		resp.Body.Close()
		if err != nil {
			t.Fatalf("step %d %s %s: %v", i, st.method, path, err)
		}
		if st.keep != "" {
			vals[st.keep] = string(raw)
		}
		where := fmt.Sprintf("step %d %s %s", i, st.method, route)
		if st.status != 0 {
			if resp.StatusCode != st.status {
				t.Errorf("%s: status %d, want %d: %s", where, resp.StatusCode, st.status, raw)
			}
			continue
		}
		op := doc["paths"].(map[string]any)[route].(map[string]any)[strings.ToLower(st.method)].(map[string]any)
		// The step's answer is one of the documented successes (most
		// routes have one; a merge's dry run is the second of its).
		var successes []string
		for code := range op["responses"].(map[string]any) {
			if code < "400" {
				successes = append(successes, code)
			}
		}
		success := strconv.Itoa(resp.StatusCode)
		if !slices.Contains(successes, success) {
			t.Fatalf("%s: status %d, documented %v: %s", where, resp.StatusCode, successes, raw)
		}
		content, _ := op["responses"].(map[string]any)[success].(map[string]any)["content"].(map[string]any)
		if js, ok := content["application/json"].(map[string]any); ok {
			var got any
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatalf("%s: answer is not JSON: %v", where, err)
			}
			for _, problem := range v.check(got, js["schema"].(map[string]any), "") {
				t.Errorf("%s: %s", where, problem)
			}
			for name, field := range st.capture {
				vals[name] = lookup(got, field)
				if vals[name] == "" {
					t.Fatalf("%s: no %s in %s", where, field, raw)
				}
			}
		} else if len(content) == 1 {
			// A text, stream or file answer: the document names its media
			// type, and the answer says the same.
			for media := range content {
				got, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";")
				if got != media {
					t.Errorf("%s: Content-Type %q, documented %q", where, got, media)
				}
				if len(raw) == 0 {
					t.Errorf("%s: empty %s answer", where, media)
				}
			}
		} else if len(content) > 1 {
			t.Errorf("%s: several success media types %v", where, content)
		} else if len(raw) > 0 {
			t.Errorf("%s: undocumented %s body %s", where, resp.Header.Get("Content-Type"), short(string(raw)))
		}
	}
	for _, r := range routesOf(doc) {
		if !covered[r] && !conformancePending[r] {
			t.Errorf("%s has no success case in the conformance scenario", r)
		}
	}
	var never []string
	for comp := range v.reached {
		props, _ := v.component(comp)["properties"].(map[string]any)
		for p := range props {
			if !v.seen[comp+"."+p] {
				never = append(never, comp+"."+p)
			}
		}
	}
	sort.Strings(never)
	for _, f := range never {
		t.Errorf("documented field %s never appears in a real answer", f)
	}
}

// TestEveryRouteHasAConformanceCase keeps the scenario complete as routes
// are added.
func TestEveryRouteHasAConformanceCase(t *testing.T) {
	e := newEnv(t)
	var doc map[string]any
	if _, err := e.c.Do(bg, "GET", "/openapi.json", nil, &doc); err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, st := range conformanceScenario() {
		if st.status != 0 {
			continue
		}
		have[st.method+" "+e.routeOf(t, doc, st.method, st.path)] = true
	}
	for _, r := range routesOf(doc) {
		if !have[r] && !conformancePending[r] {
			t.Errorf("%s: add a success case to conformanceScenario (or list it in conformancePending)", r)
		}
	}
}

// readAnswer reads a whole answer, or, for a stream that never ends, up
// to the first occurrence of until.
func readAnswer(r io.Reader, until string) ([]byte, error) {
	if until == "" {
		return io.ReadAll(r)
	}
	var got []byte
	buf := make([]byte, 4096)
	for !strings.Contains(string(got), until) {
		n, err := r.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			return got, fmt.Errorf("stream ended before %q: %v: %s", until, err, got)
		}
	}
	return got, nil
}

func routesOf(doc map[string]any) []string {
	var out []string
	for path, ops := range doc["paths"].(map[string]any) {
		for m := range ops.(map[string]any) {
			out = append(out, strings.ToUpper(m)+" "+path)
		}
	}
	sort.Strings(out)
	return out
}

// routeOf finds the documented path template a scenario path is written
// against (the scenario writes templates with its own placeholder names
// where they differ, so match segment by segment).
func (e *testEnv) routeOf(t *testing.T, doc map[string]any, method, path string) string {
	t.Helper()
	path, _, _ = strings.Cut(path, "?")
	segs := strings.Split(path, "/")
	for route, ops := range doc["paths"].(map[string]any) {
		if _, ok := ops.(map[string]any)[strings.ToLower(method)]; !ok {
			continue
		}
		rs := strings.Split(route, "/")
		if len(rs) != len(segs) {
			continue
		}
		match := true
		for i := range rs {
			isParam := strings.HasPrefix(rs[i], "{")
			if isParam != strings.HasPrefix(segs[i], "{") || (!isParam && rs[i] != segs[i]) {
				match = false
				break
			}
		}
		if match {
			return route
		}
	}
	t.Fatalf("no documented route for %s %s", method, path)
	return ""
}

func lookup(v any, dotted string) string {
	for _, k := range strings.Split(dotted, ".") {
		if i, err := strconv.Atoi(k); err == nil {
			arr, _ := v.([]any)
			if i >= len(arr) {
				return ""
			}
			v = arr[i]
			continue
		}
		m, _ := v.(map[string]any)
		v = m[k]
	}
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return ""
}

// validator checks JSON values against the document's schemas and
// records which properties of which components it saw.
type validator struct {
	doc     map[string]any
	seen    map[string]bool // "Component.field"
	reached map[string]bool // components an answer was checked against
}

func (v *validator) component(name string) map[string]any {
	return v.doc["components"].(map[string]any)["schemas"].(map[string]any)[name].(map[string]any)
}

func (v *validator) check(val any, s map[string]any, at string) []string {
	return v.checkIn(val, s, at, "")
}

func (v *validator) checkIn(val any, s map[string]any, at, comp string) []string {
	if ref, ok := s["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/components/schemas/")
		v.reached[name] = true
		return v.checkIn(val, v.component(name), at, name)
	}
	if all, ok := s["allOf"].([]any); ok {
		return v.checkIn(val, all[0].(map[string]any), at, comp)
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		alts, ok := s[key].([]any)
		if !ok {
			continue
		}
		var first []string
		for i, alt := range alts {
			// Try each alternative on a scratch record, keep the one that fits.
			scratch := &validator{doc: v.doc, seen: map[string]bool{}, reached: map[string]bool{}}
			problems := scratch.checkIn(val, alt.(map[string]any), at, comp)
			if len(problems) == 0 {
				for k := range scratch.seen {
					v.seen[k] = true
				}
				for k := range scratch.reached {
					v.reached[k] = true
				}
				return nil
			}
			if i == 0 {
				first = problems
			}
		}
		return append([]string{fmt.Sprintf("%s: %v matches no alternative of %s", at, short(val), key)}, first...)
	}
	if enum, ok := s["enum"].([]any); ok {
		found := false
		for _, e := range enum {
			found = found || e == val
		}
		if !found {
			return []string{fmt.Sprintf("%s: %v is not one of %v", at, short(val), enum)}
		}
	}
	typ, _ := s["type"].(string)
	switch typ {
	case "":
		return nil
	case "null":
		if val != nil {
			return []string{fmt.Sprintf("%s: want null, got %v", at, short(val))}
		}
	case "string":
		if _, ok := val.(string); !ok {
			return []string{fmt.Sprintf("%s: want a string, got %v", at, short(val))}
		}
	case "boolean":
		if _, ok := val.(bool); !ok {
			return []string{fmt.Sprintf("%s: want a boolean, got %v", at, short(val))}
		}
	case "integer", "number":
		f, ok := val.(float64)
		if !ok || (typ == "integer" && f != float64(int64(f))) {
			return []string{fmt.Sprintf("%s: want %s, got %v", at, typ, short(val))}
		}
	case "array":
		arr, ok := val.([]any)
		if !ok {
			return []string{fmt.Sprintf("%s: want an array, got %v", at, short(val))}
		}
		var out []string
		for i, item := range arr {
			out = append(out, v.checkIn(item, s["items"].(map[string]any), fmt.Sprintf("%s[%d]", at, i), "")...)
		}
		return out
	case "object":
		obj, ok := val.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: want an object, got %v", at, short(val))}
		}
		props, _ := s["properties"].(map[string]any)
		var out []string
		if req, ok := s["required"].([]any); ok {
			for _, r := range req {
				if _, ok := obj[r.(string)]; !ok {
					out = append(out, fmt.Sprintf("%s: required field %q missing", at, r))
				}
			}
		}
		extra := s["additionalProperties"]
		for k, item := range obj {
			if p, ok := props[k].(map[string]any); ok {
				if comp != "" {
					v.seen[comp+"."+k] = true
				}
				out = append(out, v.checkIn(item, p, at+"."+k, "")...)
				continue
			}
			switch x := extra.(type) {
			case bool:
				if !x {
					out = append(out, fmt.Sprintf("%s: field %q is not documented", at, k))
				}
			case map[string]any:
				out = append(out, v.checkIn(item, x, at+"."+k, "")...)
			default:
				out = append(out, fmt.Sprintf("%s: field %q is not documented", at, k))
			}
		}
		return out
	}
	return nil
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}

// conformanceScenario reaches every route's success path once, in an
// order where each step has what it needs.
func conformanceScenario() []conformanceStep {
	content := `"summary": "Plan the trip", "objective": "A two-week trip", "decisions": ["East coast only"],
		"assumptions": ["Flights under $1500"], "tasks": ["Book flights", {"text": "Visa", "id": "visa", "intent_hint": "investigate", "status": "done", "blocked_by": "flights"}],
		"open_questions": ["Which month?"], "entities": ["Sydney"], "artifacts": [{"id": "a1", "type": "text", "label": "Itinerary", "content": "Day 1"}]`
	return append(append([]conformanceStep{
		{method: "GET", path: "/health"},
		{method: "GET", path: "/health/live"},
		{method: "GET", path: "/health/ready"},
		{method: "GET", path: "/openapi.json"},
		{method: "GET", path: "/docs"},
		{method: "GET", path: "/api/v4/chat/providers"},
		{method: "POST", path: "/api/v2/repos", body: `{"name": "Trip", "description": "2026", "project_root": "/srv/trip", "metadata": {"k": "v"}}`,
			capture: map[string]string{"repo": "id"}},
		{method: "GET", path: "/api/v2/repos"},
		{method: "GET", path: "/api/v2/repos/{repo}"},
		{method: "PATCH", path: "/api/v2/repos/{repo}/project-root", body: `{"project_root": "{git_repo}"}`},
		{method: "POST", path: "/api/v5/worktrees", body: `{"space_id": "{repo}", "agent": "codex", "branch_name": "codex/trip"}`,
			capture: map[string]string{"worktree": "id"}},
		{method: "GET", path: "/api/v5/worktrees?space_id={repo}&include_closed=true"},
		{method: "GET", path: "/api/v5/worktrees/{worktree}"},
		// Issue 48: a worktree is named by an id prefix too (not a UUID).
		{method: "GET", path: "/api/v5/worktrees/{worktree:8}"},
		{method: "POST", path: "/api/v5/worktrees", body: `{"space_id": "{repo}", "agent": "codex", "branch_name": "main"}`, status: 409},
		{method: "POST", path: "/api/v5/claims", body: `{"space_id": "{repo}", "agent": "codex", "scope": "x", "worktree_id": "00000000-0000-4000-8000-000000000000"}`, status: 404},
		{method: "DELETE", path: "/api/v5/worktrees/{worktree:8}?force=true"},
		{method: "POST", path: "/api/v4/chat/spaces/{repo}/sessions", body: `{"title": "Planning", "provider": "mock", "model": "mock"}`,
			capture: map[string]string{"session": "id"}},
		{method: "POST", path: "/api/v4/chat/sessions", body: `{"title": "Loose"}`, capture: map[string]string{"loose": "id"}},
		{method: "PUT", path: "/api/v4/chat/sessions/{loose}/attach", body: `{"repo_id": "{repo}"}`},
		{method: "POST", path: "/api/v4/chat/send", body: `{"session_id": "{session}", "message": "Plan Sydney; the booking API key is {fake_key}", "use_mock": true}`,
			headers: map[string]string{"Idempotency-Key": "first"}, capture: map[string]string{"reply": "assistant_turn_id"}},
		{method: "GET", path: "/api/v5/turns/{reply}/context"},
		// Issue 48: ids the body names that are not there are 404.
		{method: "POST", path: "/api/v4/chat/send", body: `{"session_id": "00000000-0000-4000-8000-000000000000", "message": "Hi", "use_mock": true}`, status: 404},
		{method: "POST", path: "/api/v5/lineage/sessions/fork", body: `{"space_id": "{repo}", "checkpoint_id": "00000000-0000-4000-8000-000000000000", "branch_name": "nowhere"}`, status: 404},
		// Issue 48: a body that is not JSON is 415; a wrong method is 405 on
		// the health and docs routes as on the others.
		{method: "POST", path: "/api/v2/repos", body: `name=Trip`, contentType: "application/x-www-form-urlencoded", status: 415},
		{method: "POST", path: "/health", status: 405},
		{method: "DELETE", path: "/docs", status: 405},
		{method: "PUT", path: "/openapi.json", status: 405},
		{method: "POST", path: "/api/v4/chat/commit", body: `{"repo_id": "{repo}", "session_id": "{session}", "message": "Base", ` + content + `,
			"author_agent": "planner", "project_root": "/srv/trip", "source_turns": {"session_id": "{session}", "from_seq": 0, "to_seq": 1}}`,
			capture: map[string]string{"base": "id"}},
		{method: "POST", path: "/api/v2/commits", body: `{"repo_id": "{repo}", "parent_commit_id": "{base}", "message": "Second", "author_type": "user",
			"context_blob": {"k": 1}, "raw_source_text": "notes; used {fake_key}", "metadata": {"m": true}, ` + content + `}`, capture: map[string]string{"second": "id"}},
		{method: "GET", path: "/api/v2/commits/{second}"},
		{method: "GET", path: "/api/v5/checkpoints/resolve?ref={second}&space_id={repo}"},
		{method: "GET", path: "/api/v2/commits/{second}?items=true", capture: map[string]string{"item": "items.0.id"}},
		{method: "GET", path: "/api/v5/checkpoints/{second}/items"},
		{method: "GET", path: "/api/v5/spaces/{repo}/items/{item}"},
		{method: "GET", path: "/api/v5/items/resolve?ref={item}&space_id={repo}"},
		{method: "GET", path: "/api/v5/sessions/resolve?ref={session}"},
		{method: "GET", path: "/api/v5/spaces/{repo}/state?as_of={base}"},
		{method: "POST", path: "/api/v2/context/from-commit", body: `{"commit_id": "{second}", "target": "claude"}`},
		{method: "GET", path: "/api/v2/context/parent-delta/{second}"},
		{method: "POST", path: "/api/v5/import/transcript?space_id={repo}&filename=call.md", contentType: "application/octet-stream",
			body: "# Call notes\n\nUser: Where do we land?\n\nAssistant: Sydney, on the east coast.\n"},
		{method: "POST", path: "/api/v5/import/transcript?space_id={repo}&filename=s.jsonl&format=claude-code&session_key=k1", contentType: "application/octet-stream",
			body: `{"type":"user","uuid":"u1","timestamp":"2025-10-01T09:00:00Z","message":{"role":"user","content":"Land in Sydney?"}}` + "\n"},
		{method: "GET", path: "/api/v5/search?q=Sydney&space_id={repo}&limit=50"},
		{method: "GET", path: "/api/v5/search/grouped?q=Sydney&space_id={repo}&limit=50"},
		{method: "GET", path: "/api/v5/spaces/{repo}/events?after=0", until: "event: checkpoint.created"},
		{method: "POST", path: "/api/v5/spaces/{repo}/receipts", body: `{"agent_session": "019a-thread", "host": "codex", "event": "SessionStart", "trigger": "auto", "injected": "- East coast only\n", "tokens": 5}`},
		{method: "GET", path: "/api/v5/spaces/{repo}/export", keep: "bundle"},
		{method: "GET", path: "/api/v5/secrets/scan?space_id={repo}"},
		{method: "POST", path: "/api/v5/spaces/import?as_new=true", contentType: "application/gzip", body: "{bundle}"},
		{method: "GET", path: "/api/v2/repos/{repo}/commits"},
		{method: "GET", path: "/api/v2/repos/{repo}/commits/latest"},
		{method: "POST", path: "/api/v5/checkpoint/{second}/notes", body: `{"text": "Checked the visa rules with {fake_key}", "author": "ana", "kind": "note"}`},
		{method: "GET", path: "/api/v5/checkpoints/{second}/verify"},
		{method: "PUT", path: "/api/v5/chat/sessions/{session}/mount", body: `{"checkpoint_id": "{base}", "history_base_seq": 1}`},
		{method: "POST", path: "/api/v5/chat/context", body: `{"session_id": "{session}", "message": "What next?", "memory_scope": "latest_3"}`},
		{method: "POST", path: "/api/v5/chat/send/stream", body: `{"session_id": "{session}", "message": "And then?", "use_mock": true}`},
		{method: "DELETE", path: "/api/v5/chat/sessions/{session}/mount"},
		{method: "GET", path: "/api/v4/chat/sessions"},
		{method: "GET", path: "/api/v4/chat/sessions/{session}"},
		{method: "GET", path: "/api/v4/chat/sessions/{session}/turns?limit=1&after=0"},
		{method: "GET", path: "/api/v4/chat/spaces/{repo}/sessions/{session}"},
		{method: "GET", path: "/api/v4/chat/spaces/{repo}/sessions/{session}/turns"},
		{method: "GET", path: "/api/v4/chat/spaces/{repo}/head"},
		{method: "POST", path: "/api/v5/checkpoint/draft", body: `{"session_id": "{session}", "num_turns": 4}`},
		{method: "POST", path: "/api/v5/checkpoint/extract", body: "{\"content\": \"# Notes\\n\\n## Tasks\\n- [x] Book flights\\n\\n```sql\\nSELECT 1;\\n```\", \"use_mock\": true}"},
		{method: "POST", path: "/api/v5/checkpoint/extract", body: `{"content": "# Notes\n\nDecision: keep the itinerary in one file.", "use_mock": true, "space_id": "{repo}", "session_id": "{session}"}`},
		{method: "POST", path: "/api/v5/checkpoint/{second}/review"},
		{method: "POST", path: "/api/v4/chat/sessions/{session}/title"},
		{method: "POST", path: "/api/v5/lineage/sessions/fork", body: `{"space_id": "{repo}", "checkpoint_id": "{base}", "branch_name": "east", "provider": "mock", "model": "mock"}`,
			capture: map[string]string{"fork": "session_id"}},
		{method: "GET", path: "/api/v5/spaces/{repo}/next-base?session_id={fork}"},
		{method: "GET", path: "/api/v5/spaces/{repo}/next-base"},
		{method: "POST", path: "/api/v4/chat/commit", body: `{"repo_id": "{repo}", "session_id": "{fork}", "message": "East", "decisions": ["East coast only", "Fly into Sydney"]}`,
			capture: map[string]string{"east": "id"}},
		{method: "GET", path: "/api/v5/lineage/spaces/{repo}"},
		{method: "GET", path: "/api/v5/lineage/checkpoints/{second}/compare/{east}"},
		{method: "GET", path: "/api/v5/lineage/sessions/{fork}/checkpoints"},
		// Issue 48: a dry run is 200 with the typed preview.
		{method: "POST", path: "/api/v5/lineage/merge", body: `{"space_id": "{repo}", "source_checkpoint_id": "{east}", "target_checkpoint_id": "{second}", "dry_run": true}`, status: 200},
		{method: "POST", path: "/api/v5/lineage/merge", body: `{"space_id": "{repo}", "source_checkpoint_id": "{east}", "target_checkpoint_id": "{second}", "message": "Merge east"}`},
		{method: "PUT", path: "/api/v5/chat/sessions/{session}/mount", body: `{"checkpoint_id": "{base}"}`},
		{method: "POST", path: "/api/v5/claims", body: `{"space_id": "{repo}", "agent": "claude-code", "scope": "docs/README", "branch_name": "east",
			"base_commit_id": "{base}", "session_id": "{fork}", "task_id": "visa", "intent_type": "implement", "ttl_hours": 2}`,
			capture: map[string]string{"claim": "id"}},
		{method: "GET", path: "/api/v5/claims/resolve?ref={claim}"},
		{method: "POST", path: "/api/v5/claims", body: `{"space_id": "{repo}", "agent": "other", "scope": "docs/README"}`},
		{method: "POST", path: "/api/v5/claims", body: `{"space_id": "{repo}", "agent": "rotator", "scope": "rotate {fake_key}"}`},
		{method: "POST", path: "/api/v4/chat/commit", body: `{"repo_id": "{repo}", "session_id": "{session}", "message": "Plan", "tasks": [
			{"text": "Book flights", "id": "flights", "intent_hint": "implement"}, {"text": "Pack", "id": "pack", "blocked_by": "flights"}]}`},
		{method: "POST", path: "/api/v4/chat/commit", body: `{"repo_id": "{repo}", "session_id": "{session}", "message": "Rebased", "base_checkpoint_id": "{base}", ` + content + `}`},
		{method: "GET", path: "/api/v5/spaces/{repo}/ready?limit=10"},
		{method: "POST", path: "/api/v5/spaces/{repo}/ready/claim", body: `{"agent": "planner", "ttl": "2h", "session_id": "{fork}", "intent_type": "docs"}`},
		{method: "POST", path: "/api/v5/claims/{claim}/heartbeat", body: `{"ttl": "90m"}`},
		{method: "GET", path: "/api/v4/chat/spaces/{repo}/state?session_id={session}&since_commit_id={base}"},
		{method: "GET", path: "/api/v5/spaces/{repo}/brief?session_id={session}&since_commit_id={base}"},
		{method: "GET", path: "/api/v5/spaces/{repo}/receipts?limit=10"},
		{method: "GET", path: "/api/v5/claims?space_id={repo}"},
		{method: "PATCH", path: "/api/v5/claims/{claim}", body: `{"status": "done"}`},
		// Issue 48: a finished claim is neither finished again nor renewed;
		// claims need a space, and search kinds are checkpoint, turn or note.
		{method: "PATCH", path: "/api/v5/claims/{claim}", body: `{"status": "done"}`, status: 409},
		{method: "POST", path: "/api/v5/claims/{claim}/heartbeat", body: `{"ttl": "90m"}`, status: 409},
		{method: "GET", path: "/api/v5/claims", status: 422},
		{method: "GET", path: "/api/v5/search?q=Sydney&kind=decision", status: 422},
		{method: "GET", path: "/api/v5/search?q=Sydney&kind=turn,note&kind=checkpoint"},
		{method: "GET", path: "/api/v5/metrics/spaces/{repo}"},
		{method: "PATCH", path: "/api/v5/lineage/branches/disposition", body: `{"space_id": "{repo}", "branch_name": "east", "disposition": "abandoned"}`},
		{method: "DELETE", path: "/api/v2/commits/{east}?cascade=true"},
		{method: "DELETE", path: "/api/v4/chat/sessions/{loose}"},
		{method: "POST", path: "/api/v5/spaces/{repo}/checkpoints?items=true", body: `{"message": "No session", "decisions": ["Checkpoints need no conversation"]}`},
		// A value allowed in the space (a fixture's fake key) is kept; then
		// purged by its fingerprint, the checkpoint still verifies and verify
		// names the purged fields.
		{method: "POST", path: "/api/v5/spaces/{repo}/secrets/allowlist", body: `{"rule": "github-pat", "fingerprint": "{fake_fp}"}`},
		{method: "GET", path: "/api/v5/spaces/{repo}/secrets/allowlist"},
		{method: "POST", path: "/api/v5/spaces/{repo}/checkpoints", body: `{"message": "Fixture", "decisions": ["fixture key {fake_key}"]}`,
			capture: map[string]string{"fixture": "id"}},
		{method: "POST", path: "/api/v5/spaces/{repo}/secrets/purge", body: `{"fingerprint": "{fake_fp}"}`},
		{method: "GET", path: "/api/v5/checkpoints/{fixture}/verify"},
		{method: "DELETE", path: "/api/v5/spaces/{repo}/secrets/allowlist/{fake_rule}/{fake_fp}"},
		{method: "POST", path: "/api/v5/spaces/{repo}/proposals", body: `{"session_id": "{session}", "source": "cli", "message": "Later", ` + content + `,
			"author_agent": "planner", "author_type": "agent", "project_root": "/srv/trip", "model": "mock", "items": [{"kind": "decision", "text": "East coast only",
				"refs": [{"path": "trip/route.go", "lines": {"from": 3, "to": 9}, "symbol": "Route", "commit": "0123456789abcdef0123456789abcdef01234567",
					"span_hash": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}]}],
			"source_turns": {"session_id": "{session}", "from_seq": 0, "to_seq": 1}, "git": {"commit": "0123456789abcdef0123456789abcdef01234567", "branch": "main"}}`,
			capture: map[string]string{"proposal": "id"}},
		{method: "GET", path: "/api/v5/spaces/{repo}/proposals?status=pending"},
		{method: "PATCH", path: "/api/v5/spaces/{repo}/proposals/{proposal}", body: `{"summary": "Edited before accepting"}`},
		{method: "POST", path: "/api/v5/spaces/{repo}/proposals/{proposal}/accept", body: `{}`},
		{method: "GET", path: "/api/v5/spaces/{repo}/proposals/{proposal}"},
		{method: "GET", path: "/api/v5/proposals/resolve?ref={proposal}&space_id={repo}"},
		{method: "POST", path: "/api/v5/spaces/{repo}/proposals", body: `{"message": "Not this one"}`, capture: map[string]string{"declined": "id"}},
		{method: "POST", path: "/api/v5/spaces/{repo}/proposals/{declined}/reject"},
		// A bundle with proposals in it travels (its end record counts them).
		{method: "GET", path: "/api/v5/spaces/{repo}/export", keep: "withproposals"},
		{method: "POST", path: "/api/v5/spaces/import?as_new=true", contentType: "application/gzip", body: "{withproposals}"},
		// Copies of one space: the answering side, then this server as its
		// own remote (everything is already here, so nothing moves).
		{method: "GET", path: "/api/v5/spaces/{repo}/sync/refs", capture: map[string]string{"syncbranch": "heads.0.branch", "synchead": "heads.0.commit_hash"}},
		{method: "POST", path: "/api/v5/spaces/{repo}/sync/fetch", body: `{"haves": [], "branches": [], "since": -1}`, keep: "syncstream"},
		{method: "POST", path: "/api/v5/spaces/{repo}/sync/push?branch={syncbranch}&head={synchead}&expect={synchead}", contentType: "application/gzip", body: "{syncstream}"},
		{method: "PUT", path: "/api/v5/sessions/{session}/private", body: `{"private": true}`},
		{method: "GET", path: "/api/v5/sessions/{session}/private"},
		{method: "POST", path: "/api/v5/spaces/{repo}/remotes", body: `{"name": "origin", "url": "{self}", "remote_space_id": "{repo}", "token": null}`},
		{method: "GET", path: "/api/v5/spaces/{repo}/remotes"},
		{method: "POST", path: "/api/v5/spaces/{repo}/remotes/{remotename}/fetch", body: `{}`},
		{method: "POST", path: "/api/v5/spaces/{repo}/remotes/{remotename}/pull", body: `{"on_conflict": "propose"}`},
		{method: "POST", path: "/api/v5/spaces/{repo}/remotes/{remotename}/push", body: `{}`},
		{method: "GET", path: "/api/v5/spaces/{repo}/remotes/{remotename}"},
		{method: "DELETE", path: "/api/v5/spaces/{repo}/remotes/{remotename}"},
	}, accountScenario()...), conformanceStep{method: "DELETE", path: "/api/v2/repos/{repo}"})
}

// The validator itself: each kind of mismatch is reported.
func TestConformanceValidatorReports(t *testing.T) {
	doc := map[string]any{"components": map[string]any{"schemas": map[string]any{
		"Thing": map[string]any{"type": "object", "required": []any{"id", "mode"}, "properties": map[string]any{
			"id":   map[string]any{"type": "string"},
			"mode": map[string]any{"enum": []any{"A", "B"}},
			"n":    map[string]any{"anyOf": []any{map[string]any{"type": "integer"}, map[string]any{"type": "null"}}},
		}},
	}}}
	ref := map[string]any{"$ref": "#/components/schemas/Thing"}
	for _, tt := range []struct {
		name, body string
		want       string // substring of the only problem; "" for none
	}{
		{"Conforms", `{"id": "x", "mode": "A", "n": null}`, ""},
		{"Undocumented", `{"id": "x", "mode": "A", "extra": 1}`, `field "extra" is not documented`},
		{"MissingRequired", `{"mode": "B"}`, `required field "id" missing`},
		{"WrongType", `{"id": 5, "mode": "A"}`, "want a string"},
		{"OutsideEnum", `{"id": "x", "mode": "C"}`, "is not one of"},
		{"NoAlternative", `{"id": "x", "mode": "A", "n": 1.5}`, "matches no alternative"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var val any
			if err := json.Unmarshal([]byte(tt.body), &val); err != nil {
				t.Fatal(err)
			}
			v := &validator{doc: doc, seen: map[string]bool{}, reached: map[string]bool{}}
			problems := v.check(val, ref, "")
			if tt.want == "" {
				if len(problems) != 0 {
					t.Fatalf("problems %v, want none", problems)
				}
				if !v.seen["Thing.id"] || !v.seen["Thing.n"] || !v.reached["Thing"] {
					t.Fatalf("seen %v reached %v", v.seen, v.reached)
				}
				return
			}
			if len(problems) == 0 || !strings.Contains(problems[0], tt.want) {
				t.Fatalf("problems %v, want %q", problems, tt.want)
			}
		})
	}
}

// Request schemas list what the server refuses a body without, and only
// that; enums and defaults come from the struct tags.
func TestOpenAPIRequestSchemas(t *testing.T) {
	e := newEnv(t)
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Required   []string                  `json:"required"`
				Properties map[string]map[string]any `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if _, err := e.c.Do(bg, "GET", "/openapi.json", nil, &doc); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		schema   string
		required []string
	}{
		{"CommitRequest", []string{"message", "repo_id", "session_id"}},
		{"SendRequest", []string{"message", "session_id"}},
		{"MountRequest", []string{"checkpoint_id"}},
		{"SessionCreateRequest", nil},
		{"LegacyCommitRequest", []string{"message", "repo_id"}},
	} {
		got := doc.Components.Schemas[tt.schema].Required
		if strings.Join(got, ",") != strings.Join(tt.required, ",") {
			t.Errorf("%s required = %v, want %v", tt.schema, got, tt.required)
		}
	}
	scope := doc.Components.Schemas["SendRequest"].Properties["memory_scope"]
	if fmt.Sprint(scope["enum"]) != "[latest_1 latest_3 ]" || scope["default"] != "latest_1" || scope["description"] == nil {
		t.Errorf("memory_scope = %v", scope)
	}
	if mode := doc.Components.Schemas["ContextInfo"].Properties["mode"]; fmt.Sprint(mode["enum"]) != "[FRESH HEAD MOUNTED FORKED]" {
		t.Errorf("context mode = %v", mode)
	}
}

// Each route documents every status it can answer.
func TestOpenAPIStatuses(t *testing.T) {
	e := newEnv(t)
	type response struct {
		Description string `json:"description"`
		Headers     map[string]struct {
			Description string         `json:"description"`
			Schema      map[string]any `json:"schema"`
		} `json:"headers"`
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]response `json:"responses"`
		} `json:"paths"`
	}
	if _, err := e.c.Do(bg, "GET", "/openapi.json", nil, &doc); err != nil {
		t.Fatal(err)
	}
	codes := func(path, method string) string {
		var out []string
		for c := range doc.Paths[path][method].Responses {
			out = append(out, c)
		}
		sort.Strings(out)
		return strings.Join(out, ",")
	}
	// The auth statuses are listed on every server: public routes never
	// answer 401, reads never 403, only the LLM routes and streams 429.
	for _, tt := range []struct{ path, method, want string }{
		{"/health", "get", "200,421,500,503"},
		{"/health/live", "get", "200,421,500"},
		{"/health/ready", "get", "200,421,500,503"},
		{"/openapi.json", "get", "200,421,500"},
		{"/docs", "get", "200,421,500"},
		// Public writes: no 401, but 403 from another origin and 415.
		{"/api/v4/auth/login", "post", "200,400,401,403,413,415,421,422,429,500,503"},
		{"/api/v4/auth/logout", "post", "204,403,415,421,500,503"},
		{"/api/v2/repos", "get", "200,400,401,421,422,500,503"},
		{"/api/v5/spaces/{space_id}/events", "get", "200,400,401,404,421,422,429,500,503"},
		// 404: the session the body names.
		{"/api/v4/chat/send", "post", "200,400,401,403,404,413,415,421,422,429,500,502,503"},
		{"/api/v5/checkpoint/{commit_id}/review", "post", "200,400,401,403,404,415,421,429,500,502,503"},
		{"/api/v2/commits/{commit_id}", "get", "200,400,401,404,421,422,500,503"},
		{"/api/v5/chat/sessions/{session_id}/mount", "put", "200,400,401,403,404,413,415,421,422,500,503"},
		{"/api/v5/checkpoint/{commit_id}/notes", "post", "201,400,401,403,404,409,413,415,421,422,500,503"}, // 409: its Idempotency-Key is in use
		// The issue-48 answers: a dry run's 200, a finished claim's 409, a
		// worktree on an existing branch, a missing space_id's 422.
		{"/api/v5/lineage/merge", "post", "200,201,400,401,403,404,409,413,415,421,422,500,503"},
		{"/api/v5/claims/{claim_id}", "patch", "200,400,401,403,404,409,413,415,421,422,500,503"},
		{"/api/v5/claims/{claim_id}/heartbeat", "post", "200,400,401,403,404,409,413,415,421,422,500,503"},
		{"/api/v5/worktrees", "post", "201,400,401,403,404,409,413,415,421,422,500,502,503"},
		{"/api/v5/claims", "get", "200,400,401,404,421,422,500,503"},
		{"/api/v5/lineage/sessions/fork", "post", "201,400,401,403,404,409,413,415,421,422,500,503"},
	} {
		if got := codes(tt.path, tt.method); got != tt.want {
			t.Errorf("%s %s answers %s, want %s", tt.method, tt.path, got, tt.want)
		}
	}
	send := doc.Paths["/api/v4/chat/send"]["post"].Responses
	const (
		want401 = "In auth mode: no credential, or one that is unknown, expired or revoked (with WWW-Authenticate: Bearer)"
		want403 = "In auth mode: the token's scope, or the caller's role in the space, does not permit this"
	)
	if send["401"].Description != want401 || send["403"].Description != want403 {
		t.Errorf("send's 401 = %q, 403 = %q", send["401"].Description, send["403"].Description)
	}
	for _, path := range []string{"/api/v4/chat/send", "/api/v5/checkpoint/{commit_id}/review", "/api/v4/chat/sessions/{session_id}/title"} {
		r := doc.Paths[path]["post"].Responses["429"]
		ra, ok := r.Headers["Retry-After"]
		if !ok || ra.Description != "Whole seconds to wait before trying again" || ra.Schema["type"] != "integer" || ra.Schema["minimum"] != 1.0 {
			t.Errorf("POST %s 429 = %+v, want a Retry-After header of whole seconds", path, r)
		}
	}
}

// Issue 48: the credentials of auth mode are declared (bearer token or the
// session cookie), optional for local mode, and none on the public routes;
// the licence is named.
func TestOpenAPISecurityAndLicence(t *testing.T) {
	e := newEnv(t)
	var doc struct {
		Info struct {
			License map[string]string `json:"license"`
		} `json:"info"`
		Security   []map[string][]string `json:"security"`
		Components struct {
			SecuritySchemes map[string]map[string]string `json:"securitySchemes"`
		} `json:"components"`
		Paths map[string]map[string]struct {
			Security *[]map[string][]string `json:"security"`
		} `json:"paths"`
	}
	if _, err := e.c.Do(bg, "GET", "/openapi.json", nil, &doc); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(doc.Info.License); got != "map[identifier:Apache-2.0 name:Apache License 2.0]" {
		t.Errorf("info.license = %s", got)
	}
	bearer, session := doc.Components.SecuritySchemes["bearer"], doc.Components.SecuritySchemes["session"]
	if bearer["type"] != "http" || bearer["scheme"] != "bearer" || session["type"] != "apiKey" || session["in"] != "cookie" || session["name"] != httpapi.SessionCookie {
		t.Errorf("security schemes = %v", doc.Components.SecuritySchemes)
	}
	if got := fmt.Sprint(doc.Security); got != "[map[bearer:[]] map[session:[]] map[]]" {
		t.Errorf("security = %s, want bearer or session or none (local mode)", got)
	}
	var public []string
	for path, ops := range doc.Paths {
		for method, op := range ops {
			if op.Security != nil {
				if len(*op.Security) != 0 {
					t.Errorf("%s %s overrides security with %v", method, path, *op.Security)
				}
				public = append(public, strings.ToUpper(method)+" "+path)
			}
		}
	}
	sort.Strings(public)
	want := "GET /docs, GET /health, GET /health/live, GET /health/ready, GET /openapi.json, POST /api/v4/auth/login, POST /api/v4/auth/logout"
	if got := strings.Join(public, ", "); got != want {
		t.Errorf("routes needing no credential: %s, want %s", got, want)
	}
}
