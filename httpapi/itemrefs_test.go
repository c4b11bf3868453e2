package httpapi_test

import (
	"context"
	"strings"
	"testing"

	"smriti/store/storetest"
)

// Refs go in with an item over HTTP and come back in the items view; a
// malformed ref is a 422 naming the field, never stored.
func TestItemRefsOverHTTP(t *testing.T) {
	e := newEnv(t)
	sp, se := e.spaceSession(t)
	commit, span := strings.Repeat("ab", 20), strings.Repeat("cd", 32)
	body := func(ref string) string {
		return `{"repo_id": "` + sp.ID.String() + `", "session_id": "` + se.ID.String() + `", "message": "x", "decisions": ["Sends go through app.Send"],
			"items": [{"kind": "decision", "text": "Sends go through app.Send", "refs": [` + ref + `]}]}`
	}
	for _, tc := range []struct{ ref, want string }{
		{`{"path": "/etc/passwd", "commit": "` + commit + `", "span_hash": "` + span + `"}`, `items[0].refs[0].path must be relative to the project root`},
		{`{"path": "a/../../b.go", "commit": "` + commit + `", "span_hash": "` + span + `"}`, `items[0].refs[0].path must be a clean path inside the project root`},
		{`{"path": "a.go", "lines": {"from": 9, "to": 3}, "commit": "` + commit + `", "span_hash": "` + span + `"}`, `items[0].refs[0].lines must run from 1 or more`},
		{`{"path": "a.go", "commit": "HEAD", "span_hash": "` + span + `"}`, `items[0].refs[0].commit must be a full git commit id`},
		{`{"path": "a.go", "commit": "` + commit + `", "span_hash": "x"}`, `items[0].refs[0].span_hash must be 64 lowercase hex digits`},
		{`{"path": "a.go", "symbol": "a b", "commit": "` + commit + `", "span_hash": "` + span + `"}`, `items[0].refs[0].symbol must be a Go name`},
		{`{"path": 7}`, `refs`},
	} {
		status, out := e.raw(t, "POST", "/api/v4/chat/commit", body(tc.ref))
		if status != 422 || !strings.Contains(out, tc.want) || !strings.Contains(out, `"detail"`) {
			t.Errorf("ref %s: %d %s; want 422 saying %q", tc.ref, status, out, tc.want)
		}
	}
	status, out := e.raw(t, "POST", "/api/v4/chat/commit", body(`{"path": "app/send.go", "lines": {"from": 4, "to": 7}, "symbol": "app.Send", "commit": "`+commit+`", "span_hash": "`+span+`"}`))
	if status != 201 {
		t.Fatalf("commit with a ref: %d %s", status, out)
	}
	cps := storetest.Get(e.c.Checkpoints(context.Background(), sp.ID, "")).Must(t)
	items := storetest.Get(e.c.CheckpointItems(context.Background(), cps[0].ID)).Must(t)
	if len(items) != 1 || len(items[0].Refs) != 1 || items[0].Refs[0].String() != "app/send.go#app.Send:4-7" || items[0].Refs[0].SpanHash != span {
		t.Fatalf("items view = %+v", items)
	}

	// ?cites_code=true keeps only the items that cite code: what a client
	// checks against its work tree.
	status, out = e.raw(t, "POST", "/api/v4/chat/commit", `{"repo_id": "`+sp.ID.String()+`", "session_id": "`+se.ID.String()+`", "message": "y",
		"decisions": ["Sends go through app.Send", "Logs are JSON lines"]}`)
	if status != 201 {
		t.Fatalf("second commit: %d %s", status, out)
	}
	cps = storetest.Get(e.c.Checkpoints(context.Background(), sp.ID, "")).Must(t)
	all := storetest.Get(e.c.CheckpointItems(context.Background(), cps[0].ID)).Must(t)
	citing := storetest.Get(e.c.CodeCitingItems(context.Background(), cps[0].ID)).Must(t)
	if len(all) != 2 || len(citing) != 1 || citing[0].Text != "Sends go through app.Send" || citing[0].Refs[0].String() != "app/send.go#app.Send:4-7" {
		t.Fatalf("all items %+v, citing code %+v", all, citing)
	}
	head := storetest.Get(e.c.HeadCitingCode(context.Background(), sp.ID)).Must(t)
	if len(head) != 1 || head[0].Text != "Sends go through app.Send" || head[0].Refs[0].String() != "app/send.go#app.Send:4-7" {
		t.Fatalf("head items citing code = %+v", head)
	}
	if status, out := e.raw(t, "GET", "/api/v5/checkpoints/"+cps[0].ID.String()+"/items?cites_code=yes", ""); status != 400 ||
		out != `{"detail":"query parameter cites_code must be true or false, got \"yes\""}`+"\n" {
		t.Fatalf("cites_code=yes: %d %s", status, out)
	}
}
