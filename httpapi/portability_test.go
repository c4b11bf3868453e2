package httpapi_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"smriti"
	"smriti/client"
	"smriti/portability"
	"smriti/store/storetest"
	"smriti/wire"
)

// buildSpace makes a space through the API with a fork, a merge, notes and
// turns, and returns it with its checkpoints.
func buildSpace(t *testing.T, e *testEnv) (smriti.ID, []wire.Commit) {
	t.Helper()
	repo := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("Portable — Zürich"), Description: new("travels between servers")})).Must(t)
	rid := repo.ID.String()
	se := storetest.Get(e.c.CreateSession(bg, &repo.ID, "main talk", "mock", "")).Must(t)
	sid := se.ID.String()
	storetest.Get(e.c.Send(bg, wire.SendRequest{SessionID: &sid, RepoID: &rid, Message: sp("Which route to Melbourne?"), UseMock: true}, "")).Must(t)
	c1 := storetest.Get(e.c.Commit(bg, wire.CommitRequest{RepoID: &rid, SessionID: &sid, ContentFields: wire.ContentFields{
		Message: sp("Route"), Decisions: []string{"Fly via Singapore"}, Tasks: []smriti.Task{{Text: "Book", Status: "open", Structured: true}}}})).Must(t)
	storetest.Get(e.c.AddNote(bg, c1.ID, "Tickets booked — café at the gate", "ana", "milestone")).Must(t)
	fork := storetest.Get(e.c.Fork(bg, wire.ForkRequest{SpaceID: &rid, CheckpointID: sp(c1.ID.String()), BranchName: "budget"})).Must(t)
	fid := fork.SessionID.String()
	storetest.Get(e.c.Send(bg, wire.SendRequest{SessionID: &fid, RepoID: &rid, Message: sp("A hostel in Fitzroy?"), UseMock: true}, "")).Must(t)
	c2 := storetest.Get(e.c.Commit(bg, wire.CommitRequest{RepoID: &rid, SessionID: &fid, ContentFields: wire.ContentFields{
		Message: sp("Budget"), Decisions: []string{"Fly via Singapore", "Hostel in Fitzroy"}}})).Must(t)
	c3 := storetest.Get(e.c.Commit(bg, wire.CommitRequest{RepoID: &rid, SessionID: &sid, ContentFields: wire.ContentFields{
		Message: sp("Hotel"), Decisions: []string{"Fly via Singapore", "Hotel near the tram"}}})).Must(t)
	m := storetest.Get(e.c.Merge(bg, wire.MergeRequest{SpaceID: &rid, SourceCheckpointID: sp(c2.ID.String()), TargetCheckpointID: sp(c3.ID.String())})).Must(t)
	return repo.ID, []wire.Commit{*c1, *c2, *c3, m.Checkpoint}
}

func export(t *testing.T, e *testEnv, id smriti.ID) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := e.c.ExportSpace(bg, id, &buf); err != nil {
		t.Fatalf("export: %v", err)
	}
	return buf.Bytes()
}

func TestSpaceMovesFromSQLiteToPostgresAndBack(t *testing.T) {
	lite := newEnv(t)
	pg := newEnv(t, withPostgres())
	id, cps := buildSpace(t, lite)
	first := export(t, lite, id)

	res := storetest.Get(pg.c.ImportSpace(bg, bytes.NewReader(first), false)).Must(t)
	if res.Repo.ID != id || res.AsNew || res.Counts != (portability.BundleCounts{Checkpoints: 4, Notes: 1, Sessions: 2, Turns: 4}) {
		t.Fatalf("import = %+v", res)
	}
	for _, c := range cps {
		v := storetest.Get(pg.c.Verify(bg, c.ID)).Must(t)
		if !v.OK {
			t.Fatalf("verify %s on PostgreSQL: %+v", c.ID, v)
		}
		got := storetest.Get(pg.c.Checkpoint(bg, c.ID)).Must(t)
		if got.CommitHash != c.CommitHash {
			t.Fatalf("hash changed: %s vs %s", got.CommitHash, c.CommitHash)
		}
	}
	second := export(t, pg, id)
	if !bytes.Equal(first, second) {
		t.Fatalf("SQLite and PostgreSQL exports differ (%d vs %d bytes)", len(first), len(second))
	}
	// Back to a fresh SQLite server: same bytes again.
	lite2 := newEnv(t)
	storetest.Get(lite2.c.ImportSpace(bg, bytes.NewReader(second), false)).Must(t)
	if third := export(t, lite2, id); !bytes.Equal(first, third) {
		t.Fatal("PostgreSQL → SQLite export differs")
	}
	// The space exists where it came from: 409, then a copy with as_new.
	_, err := lite.c.ImportSpace(bg, bytes.NewReader(first), false)
	wantCode(t, err, smriti.ECONFLICT)
	cp := storetest.Get(lite.c.ImportSpace(bg, bytes.NewReader(first), true)).Must(t)
	if cp.Repo.ID == id || !cp.AsNew {
		t.Fatalf("as_new = %+v", cp)
	}
	tree := storetest.Get(lite.c.Checkpoints(bg, cp.Repo.ID, "")).Must(t)
	if len(tree) != 4 || tree[0].MergeParentID == nil || !storetest.Get(lite.c.Verify(bg, tree[0].ID)).Must(t).OK {
		t.Fatalf("copy = %+v", tree)
	}
	// Search reaches the imported rows on PostgreSQL with the hash and branch.
	hits := storetest.Get(pg.c.Search(bg, client.SearchParams{Q: "hostel fitzroy", Kinds: []string{"checkpoint"}, Branch: "budget"})).Must(t)
	if len(hits.Results) != 1 || *hits.Results[0].CommitHash != cps[1].CommitHash || hits.Results[0].Branch != "budget" ||
		hits.Results[0].Snippet != "Budget · Fly via Singapore · <mark>Hostel</mark> in <mark>Fitzroy</mark>" {
		t.Fatalf("search on PostgreSQL = %d results", len(hits.Results))
	}
}

func TestSpaceImportRefusesBadBundles(t *testing.T) {
	e := newEnv(t)
	id, cps := buildSpace(t, e)
	good := export(t, e, id)
	target := newEnv(t)
	lines := storetest.BundleLines(t, good)
	edit := func(f func([]string) []string) []byte {
		cp := append([]string(nil), lines...)
		return storetest.BundleOf(t, f(cp))
	}
	cases := []struct {
		name   string
		body   []byte
		code   string
		detail string
	}{
		{"TamperedDecision", edit(func(l []string) []string {
			for i, s := range l {
				if strings.Contains(s, `"Hotel near the tram"`) && strings.Contains(s, `"message":"Hotel"`) {
					l[i] = strings.Replace(s, "Hotel near the tram", "Hotel near the beach", 1)
				}
			}
			return l
		}), smriti.EUNPROCESSABLE, "checkpoint " + cps[2].ID.String() + " (" + cps[2].CommitHash[:7] + `, "Hotel") does not verify`},
		{"UnknownVersion", edit(func(l []string) []string {
			l[0] = strings.Replace(l[0], `"version":1`, `"version":99`, 1)
			return l
		}), smriti.EUNPROCESSABLE, "unsupported bundle version 99"},
		{"TruncatedGzip", good[:len(good)/2], smriti.EINVALID, "truncated"},
		{"NotGzip", []byte(`{"type":"header"}`), smriti.EINVALID, "not gzip-compressed"},
		{"Empty", nil, smriti.EINVALID, "request body is empty"},
		{"DroppedParent", edit(func(l []string) []string {
			return append(l[:2], l[3:]...) // the first checkpoint
		}), smriti.EUNPROCESSABLE, "not an earlier checkpoint of this bundle"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := target.c.ImportSpace(bg, bytes.NewReader(c.body), false)
			wantCode(t, err, c.code)
			if !strings.Contains(err.Error(), c.detail) {
				t.Fatalf("detail %q lacks %q", err.Error(), c.detail)
			}
			if spaces := storetest.Get(target.c.Spaces(bg)).Must(t); len(spaces) != 0 {
				t.Fatalf("refused import left %d spaces", len(spaces))
			}
		})
	}
	t.Run("FiveGigabytesDeclared", func(t *testing.T) {
		status, body := rawDeclared(t, target.url, "/api/v5/spaces/import", 5<<30)
		if status != http.StatusRequestEntityTooLarge || !strings.Contains(body, "larger than the 1073741824-byte import limit") {
			t.Fatalf("status %d body %s", status, body)
		}
		status, body = rawDeclared(t, target.url, "/api/v5/import/transcript?space_id="+id.String(), 5<<30)
		if status != http.StatusNotFound {
			t.Fatalf("transcript into a space of another server: status %d body %s", status, body)
		}
	})
	_, err := e.c.ImportSpace(bg, bytes.NewReader(good), false)
	wantCode(t, err, smriti.ECONFLICT)
	err = e.c.ExportSpace(bg, smriti.NewID(), io.Discard)
	wantCode(t, err, smriti.ENOTFOUND)
	status, body := e.raw(t, "GET", "/api/v5/spaces/not-a-uuid/export", "")
	if status != 400 || !strings.Contains(body, "space_id") {
		t.Fatalf("bad uuid: %d %s", status, body)
	}
}

// rawDeclared sends a request whose Content-Length header declares n bytes
// and whose body is a few bytes, and returns the answer.
func rawDeclared(t *testing.T, base, path string, n int64) (int, string) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/gzip\r\nContent-Length: %d\r\n\r\nabc", path, n)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestTranscriptImport(t *testing.T) {
	e := newEnv(t)
	repo := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("Imported"), Description: new("")})).Must(t)
	imp := func(name string, draft bool) *wire.TranscriptImportResponse {
		t.Helper()
		f, err := os.Open("../portability/testdata/transcripts/" + name)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		return storetest.Get(e.c.ImportTranscript(bg, repo.ID, name, f, draft)).Must(t)
	}
	cases := []struct {
		file                       string
		imported, unchanged, fails int
		failedIndex                int
	}{
		{"chatgpt-conversations.json", 3, 0, 1, 1},
		{"claude-conversations.json", 2, 0, 1, 1},
		{"headings.md", 1, 0, 0, -1},
		{"colons.txt", 1, 0, 0, -1},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			res := imp(c.file, false)
			if res.Imported != c.imported || res.Unchanged != c.unchanged || res.Failed != c.fails {
				t.Fatalf("first import = %d/%d/%d", res.Imported, res.Unchanged, res.Failed)
			}
			if c.failedIndex >= 0 {
				f := res.Conversations[c.failedIndex]
				if f.Status != portability.ImportFailed || f.Error == nil || f.SessionID != nil {
					t.Fatalf("failed conversation = %+v", f)
				}
			}
			again := imp(c.file, false)
			if again.Imported != 0 || again.Unchanged != c.imported || again.Failed != c.fails {
				t.Fatalf("re-import = %d/%d/%d", again.Imported, again.Unchanged, again.Failed)
			}
			for i, conv := range again.Conversations {
				if conv.Status == portability.ImportUnchanged && *conv.SessionID != *res.Conversations[i].SessionID {
					t.Fatalf("re-import points at another session")
				}
			}
		})
	}
	// The ChatGPT conversation's turns, in order, with original times.
	res := imp("chatgpt-conversations.json", false)
	turns := storetest.Get(e.c.Turns(bg, *res.Conversations[0].SessionID)).Must(t)
	if len(turns) != 3 || turns[0].Content != "Grüezi! Plan two days in Zürich — café first?" || turns[2].SequenceNumber != 2 {
		t.Fatalf("turns = %+v", turns)
	}
	if md := fmt.Sprint(turns[0].Metadata["import"]); md != "map[original_created_at:2024-03-01T09:30:01.5Z source:chatgpt]" {
		t.Fatalf("turn metadata = %s", md)
	}
	se := storetest.Get(e.c.Session(bg, *res.Conversations[0].SessionID)).Must(t)
	if se.Title != "Trip to Zürich ☕" {
		t.Fatalf("title = %q", se.Title)
	}
	// Empty conversations import as sessions without turns.
	if empty := res.Conversations[2]; empty.Status != portability.ImportUnchanged || empty.Turns != 0 {
		t.Fatalf("empty conversation = %+v", empty)
	}
	// Imported turns are searchable.
	hits := storetest.Get(e.c.Search(bg, client.SearchParams{Q: "Üetliberg", SpaceID: &repo.ID})).Must(t)
	if len(hits.Results) != 1 || hits.Results[0].Kind != "turn" || *hits.Results[0].Seq != 1 {
		t.Fatalf("search = %+v", hits.Results)
	}
}

func TestTranscriptImportDraftsACheckpoint(t *testing.T) {
	e := newEnv(t)
	repo := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("Drafted"), Description: new("")})).Must(t)
	f, err := os.Open("../portability/testdata/transcripts/headings.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res := storetest.Get(e.c.ImportTranscript(bg, repo.ID, "headings.md", f, true)).Must(t)
	conv := res.Conversations[0]
	if conv.CheckpointID == nil || conv.Error != nil {
		t.Fatalf("drafted import = %+v", conv)
	}
	cp := storetest.Get(e.c.Checkpoint(bg, *conv.CheckpointID)).Must(t)
	st, _ := cp.Metadata["source_turns"].(map[string]any)
	if cp.BranchName != "main" || st == nil || st["from_seq"] != float64(0) || st["to_seq"] != float64(3) {
		t.Fatalf("drafted checkpoint = %+v", cp)
	}
}

func TestTranscriptImportBadInput(t *testing.T) {
	e := newEnv(t)
	repo := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("X"), Description: new("")})).Must(t)
	cases := []struct {
		name, path, body string
		status           int
		detail           string
	}{
		{"NoSpace", "/api/v5/import/transcript", "User: hi", 422, "space_id is required"},
		{"BadSpace", "/api/v5/import/transcript?space_id=nope", "User: hi", 400, "space_id"},
		{"UnknownSpace", "/api/v5/import/transcript?space_id=" + smriti.NewID().String(), "User: hi", 404, "not found"},
		{"BadDraft", "/api/v5/import/transcript?draft=maybe&space_id=" + repo.ID.String(), "User: hi", 400, "draft"},
		{"Empty", "/api/v5/import/transcript?space_id=" + repo.ID.String(), "", 422, "empty"},
		{"UnreadableJSON", "/api/v5/import/transcript?space_id=" + repo.ID.String(), `[{"mapping": `, 400, "malformed JSON"},
		{"SearchNoQuery", "/api/v5/search", "", 422, "q is required"},
		{"SearchBadKind", "/api/v5/search?q=x&kind=space", "", 422, "kind must be"},
		{"SearchBadSpace", "/api/v5/search?q=x&space_id=1", "", 400, "space_id"},
		{"SearchUnknownSpace", "/api/v5/search?q=x&space_id=" + smriti.NewID().String(), "", 404, "not found"},
		{"SearchBadLimit", "/api/v5/search?q=x&limit=1000", "", 422, "limit"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			method := "POST"
			if strings.Contains(c.path, "/search") {
				method = "GET"
			}
			status, body := e.raw(t, method, c.path, c.body)
			if status != c.status || !strings.Contains(body, c.detail) || !strings.HasPrefix(body, `{"detail":`) {
				t.Fatalf("status %d body %s, want %d with %q", status, body, c.status, c.detail)
			}
		})
	}
	if spaces := storetest.Get(e.c.Sessions(bg)).Must(t); len(spaces) != 0 {
		t.Fatalf("bad input wrote %d sessions", len(spaces))
	}
	// A file that breaks after its first conversation keeps that one and
	// says where reading stopped.
	res := storetest.Get(e.c.ImportTranscript(bg, repo.ID, "cut.json", strings.NewReader(`[{"title":"kept","mapping":{}}, {"title": "cut`), false)).Must(t)
	if res.Imported != 1 || res.Failed != 1 || !strings.Contains(*res.Conversations[1].Error, "the rest of the file was not read") {
		t.Fatalf("cut file = %+v", res)
	}
}
