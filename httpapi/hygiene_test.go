package httpapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"smriti"
	"smriti/store/storetest"
	"smriti/wire"
)

func TestAttackNULAndInvalidUTF8InTextRefused(t *testing.T) {
	e := newEnv(t)
	status, body := e.raw(t, "POST", "/api/v2/repos", `{"name":"a\u0000b"}`)
	if status != 422 || body != `{"detail":"name contains a NUL character"}`+"\n" {
		t.Fatalf("NUL in name = %d %s", status, body)
	}
	status, body = e.raw(t, "POST", "/api/v2/repos", "{\"name\":\"ok\",\"description\":\"caf\xe9\"}")
	if status != 422 || body != `{"detail":"description is not valid UTF-8"}`+"\n" {
		t.Fatalf("invalid UTF-8 in description = %d %s", status, body)
	}
	se := storetest.Get(e.c.CreateSession(bg, nil, "", "mock", "")).Must(t)
	status, body = e.raw(t, "POST", "/api/v4/chat/send", fmt.Sprintf(`{"session_id":%q,"message":"hi\u0000"}`, se.ID))
	if status != 422 || body != `{"detail":"message contains a NUL character"}`+"\n" {
		t.Fatalf("NUL in message = %d %s", status, body)
	}
	if n := len(storetest.Get(e.c.Spaces(bg)).Must(t)); n != 0 {
		t.Fatalf("refused bodies created %d spaces", n)
	}
}

func TestAttackDeepOrHugeMetadataRefused(t *testing.T) {
	e := newEnv(t)
	deep := strings.Repeat(`{"d":`, smriti.MaxMetadataDepth) + "1" + strings.Repeat("}", smriti.MaxMetadataDepth)
	status, body := e.raw(t, "POST", "/api/v2/repos", `{"name":"x","metadata":{"d":`+deep+`}}`)
	if status != 422 || !strings.Contains(body, "nests deeper than 32 levels") {
		t.Fatalf("33-deep metadata = %d %s", status, body)
	}
	status, body = e.raw(t, "POST", "/api/v2/repos", `{"name":"x","metadata":{"blob":"`+strings.Repeat("x", smriti.MaxMetadataBytes)+`"}}`)
	if status != 422 || !strings.Contains(body, "the limit is 65536") {
		t.Fatalf("oversized metadata = %d %s", status, body)
	}
	status, body = e.raw(t, "POST", "/api/v2/repos", `{"name":"x","metadata":`+strings.Repeat("[", 10000)+strings.Repeat("]", 10000)+`}`)
	if status != 422 || !strings.Contains(body, "nests deeper than 40 levels") {
		t.Fatalf("10,000-deep body = %d %s", status, body)
	}
}

func TestSourceTurnsMustNameExistingTurns(t *testing.T) {
	e := newEnv(t)
	sp := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("S"), Description: new("")})).Must(t)
	se := storetest.Get(e.c.CreateSession(bg, &sp.ID, "", "mock", "")).Must(t)
	storetest.Get(e.c.Send(bg, sendReq(se.ID, "one"), "")).Must(t) // turns 0 and 1
	commit := func(session smriti.ID, from, to int64) error {
		req := wire.CommitRequest{RepoID: strp(sp.ID.String()), SessionID: strp(se.ID.String()),
			SourceTurns: &wire.SourceTurnsIn{SessionID: strp(session.String()), FromSeq: &from, ToSeq: &to}}
		req.Message = strp("from turns")
		_, err := e.c.Commit(bg, req)
		return err
	}
	err := commit(se.ID, 0, 5)
	wantCode(t, err, smriti.EUNPROCESSABLE)
	if want := fmt.Sprintf("source_turns names turns 0..5, but session %s ends at turn 1", se.ID); err.Error() != want {
		t.Fatalf("detail = %q, want %q", err.Error(), want)
	}
	other := smriti.NewID()
	err = commit(other, 0, 1)
	wantCode(t, err, smriti.EUNPROCESSABLE)
	if want := fmt.Sprintf("source_turns.session_id %s names no session of yours", other); err.Error() != want {
		t.Fatalf("detail = %q, want %q", err.Error(), want)
	}
	if err := commit(se.ID, 0, 1); err != nil {
		t.Fatalf("existing turns refused: %v", err)
	}
}

func TestHistoryBaseSeqBeyondLastTurnRefused(t *testing.T) {
	e := newEnv(t)
	se := storetest.Get(e.c.CreateSession(bg, nil, "", "mock", "")).Must(t)
	storetest.Get(e.c.Send(bg, sendReq(se.ID, "one"), "")).Must(t)
	status, body := e.raw(t, "POST", "/api/v4/chat/send", fmt.Sprintf(`{"session_id":%q,"message":"hi","history_base_seq":7}`, se.ID))
	if status != 422 || body != `{"detail":"history_base_seq 7 is beyond the session's last turn (1)"}`+"\n" {
		t.Fatalf("history_base_seq 7 = %d %s", status, body)
	}
	if n := len(storetest.Get(e.c.Turns(bg, se.ID)).Must(t)); n != 2 {
		t.Fatalf("turns = %d after a refused send, want 2", n)
	}
}

func TestAttackPathTraversalIDsAreNotRedirected(t *testing.T) {
	e := newEnv(t)
	noRedirect := &http.Client{Transport: e.http.Transport, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for path, want := range map[string]int{
		"/api/v2/repos/../../etc/passwd":  404,
		"/api/v2/repos/x/..":              404,
		"/api/v2//repos":                  404,
		"/api/v2/repos/./x":               404,
		"/api/v2/repos/..%2F..%2Fetc":     404,
		"/api/v2/repos/%2e%2e%2fsessions": 404,
	} {
		req, _ := http.NewRequest("GET", e.url+path, nil)
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want || resp.Header.Get("Location") != "" {
			t.Errorf("GET %s = %d (Location %q), want %d", path, resp.StatusCode, resp.Header.Get("Location"), want)
		}
	}
}
