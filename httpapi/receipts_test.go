package httpapi_test

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"smriti"
	"smriti/client"
	"smriti/render"
	"smriti/store/storetest"
	"smriti/tokenizer"
	"smriti/wire"
)

// TestCompactionReceipts: a hook that injected the whole compact brief gets
// a complete receipt whose ids are exactly the live items; one whose text
// lost a decision gets an incomplete receipt naming it, and the next brief
// says so. Bad reports are refused with a 4xx and a detail.
func TestCompactionReceipts(t *testing.T) {
	e := newEnv(t)
	space := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("receipts")})).Must(t)
	se := storetest.Get(e.c.CreateSession(bg, &space.ID, "s", "mock", "m")).Must(t)
	var head wire.Commit
	if _, err := e.c.Do(bg, http.MethodPost, "/api/v4/chat/commit", map[string]any{"repo_id": space.ID, "session_id": se.ID,
		"message": "Limits", "decisions": []string{"Access tokens expire after 30 minutes", "Retry a failed upload 5 times"},
		"assumptions": []string{"The pool holds 20 connections"},
		"tasks":       []any{"Write the migration", map[string]any{"text": "Bench the pool", "status": "done"}}}, &head); err != nil {
		t.Fatal(err)
	}
	var items []wire.ItemOut
	if _, err := e.c.Do(bg, http.MethodGet, "/api/v5/checkpoints/"+head.ID.String()+"/items", nil, &items); err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	var live []string
	for _, it := range items {
		ids[it.Text] = it.ID
		live = append(live, it.ID)
	}
	if len(live) != 5 {
		t.Fatalf("live items = %v", live)
	}
	if got := storetest.Get(e.c.Receipts(bg, space.ID, 0)).Must(t); len(got) != 0 || got == nil {
		t.Fatalf("receipts before any compaction = %#v, want []", got)
	}

	brief := storetest.Get(e.c.Brief(bg, space.ID, client.BriefOptions{Compact: true})).Must(t)
	full := storetest.Get(e.c.RecordReceipt(bg, space.ID, wire.ReceiptRequest{AgentSession: new("5e55a0e1-1111-4222-8333-444455556666"),
		Host: new("claude-code"), Event: new("SessionStart"), Injected: &brief, Tokens: ptr(321)})).Must(t)
	want := wire.ReceiptOut{ID: full.ID, SpaceID: space.ID, AgentSession: "5e55a0e1-1111-4222-8333-444455556666", Host: "claude-code",
		Event: "SessionStart", CheckpointID: &head.ID, LiveItemIDs: live, InjectedItemIDs: live, OmittedItemIDs: []string{}, MissingItemIDs: []string{},
		ListCommand: "smriti state receipts --all", Tokens: 321, Status: "complete", CreatedAt: full.CreatedAt}
	if !reflect.DeepEqual(*full, want) {
		t.Fatalf("receipt =\n%+v\nwant\n%+v", *full, want)
	}

	// The injected text lost a decision (and the assumption): incomplete,
	// the decision missing, the assumption only omitted.
	lossy := strings.ReplaceAll(strings.ReplaceAll(brief, "- Retry a failed upload 5 times\n", ""), "- The pool holds 20 connections\n", "")
	part := storetest.Get(e.c.RecordReceipt(bg, space.ID, wire.ReceiptRequest{AgentSession: new("019a-codex-thread"),
		Host: new("codex"), Event: new("PostCompact"), Trigger: new("manual"), Injected: &lossy})).Must(t)
	retry, pool := ids["Retry a failed upload 5 times"], ids["The pool holds 20 connections"]
	var in []string
	for _, id := range live {
		if id != retry && id != pool {
			in = append(in, id)
		}
	}
	want = wire.ReceiptOut{ID: part.ID, SpaceID: space.ID, AgentSession: "019a-codex-thread", Host: "codex", Event: "PostCompact", Trigger: "manual",
		CheckpointID: &head.ID, LiveItemIDs: live, InjectedItemIDs: in, OmittedItemIDs: []string{retry, pool}, MissingItemIDs: []string{retry},
		ListCommand: "smriti state receipts --all", Tokens: tokenizer.CountO200K(lossy), Status: "incomplete", CreatedAt: part.CreatedAt}
	if !reflect.DeepEqual(*part, want) {
		t.Fatalf("receipt =\n%+v\nwant\n%+v", *part, want)
	}
	list := storetest.Get(e.c.Receipts(bg, space.ID, 0)).Must(t)
	if len(list) != 2 || list[0].ID != part.ID || list[1].ID != full.ID {
		t.Fatalf("receipts = %+v, want the incomplete one then the complete one", list)
	}
	if one := storetest.Get(e.c.Receipts(bg, space.ID, 1)).Must(t); len(one) != 1 || one[0].ID != part.ID {
		t.Fatalf("limit=1 = %+v", one)
	}

	// The next brief carries the line.
	next := storetest.Get(e.c.Brief(bg, space.ID, client.BriefOptions{Compact: true})).Must(t)
	line := render.CompactionLine(part.Receipt(), time.Now())
	if wantLine := "After compaction at " + part.CreatedAt.UTC().Format("15:04 UTC") + " (codex): 3 of 5 live items re-injected, 2 omitted. " +
		"INCOMPLETE: 1 decision(s) or open task(s) were not re-injected: " + retry + " (list them: `smriti state receipts --all`)."; line != wantLine {
		t.Fatalf("line = %q\nwant %q", line, wantLine)
	}
	if !strings.Contains(next, "\n"+line+"\n") {
		t.Fatalf("the brief after the compaction does not say %q:\n%s", line, next)
	}
	// The state answer carries the receipt, so a client renders the same line.
	st := storetest.Get(e.c.State(bg, space.ID, client.StateOptions{})).Must(t)
	if st.LastCompaction == nil || !reflect.DeepEqual(*st.LastCompaction, *part) {
		t.Fatalf("state last_compaction = %+v, want %+v", st.LastCompaction, *part)
	}
	if got := render.RenderBrief(st.Brief(), render.BriefOptions{Mode: render.BriefCompact, Now: time.Now()}); !strings.Contains(got, "\n"+line+"\n") {
		t.Fatalf("the brief rendered from the state does not say %q:\n%s", line, got)
	}

	sid := space.ID.String()
	for _, c := range []struct {
		method, path, body string
		status             int
		detail             string
	}{
		{"POST", "/api/v5/spaces/" + sid + "/receipts", `{"host":"codex","event":"SessionStart","injected":"x"}`, 400, "agent_session is required: the host's session_id"},
		{"POST", "/api/v5/spaces/" + sid + "/receipts", `{"agent_session":"a","host":"cursor","event":"SessionStart","injected":"x"}`, 400, `host must be claude-code or codex, not \"cursor\"`},
		{"POST", "/api/v5/spaces/" + sid + "/receipts", `{"agent_session":"a","host":"codex","event":"Stop","injected":"x"}`, 400, `event must be SessionStart or PostCompact, not \"Stop\"`},
		{"POST", "/api/v5/spaces/" + sid + "/receipts", `{"agent_session":"a","host":"codex","event":"PostCompact","trigger":"sometimes","injected":"x"}`, 400, `trigger must be manual, auto or empty, not \"sometimes\"`},
		{"POST", "/api/v5/spaces/" + sid + "/receipts", `{"agent_session":"a","host":"codex","event":"PostCompact","injected":"  "}`, 400, "injected is required: the text the hook gave the agent"},
		{"POST", "/api/v5/spaces/" + sid + "/receipts", `{"agent_session":"a","host":"codex","event":"PostCompact","injected":"x","tokens":-1}`, 400, "tokens must not be negative"},
		{"GET", "/api/v5/spaces/" + sid + "/receipts?limit=0", "", 400, `limit must be a positive integer, got \"0\"`},
		{"GET", "/api/v5/spaces/" + smriti.NewID().String() + "/receipts", "", 404, "Space not found"},
		{"GET", "/api/v5/spaces/" + sid + "/brief?compact=true&budget=0", "", 400, `budget must be a positive number of tokens, got \"0\"`},
	} {
		status, body := e.raw(t, c.method, c.path, c.body)
		if wantBody := `{"detail":"` + c.detail + `"}`; status != c.status || strings.TrimSpace(body) != wantBody {
			t.Errorf("%s %s %s = %d %s, want %d %s", c.method, c.path, c.body, status, body, c.status, wantBody)
		}
	}
}

func ptr[T any](v T) *T { return &v }
