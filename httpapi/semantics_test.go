package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"smriti"
	"smriti/contract"
	"smriti/httpapi"
	"smriti/intelligence"
	"smriti/internal/estimate"
	"smriti/provider"
	"smriti/store/storetest"
	"smriti/tokenizer"
	"smriti/wire"
)

func i64(n int64) *int64 { return &n }

// planned sets up a space with two main checkpoints and turns around them:
// Australia (cp1), then New Zealand (cp2).
func planned(t *testing.T, e *testEnv) (wire.Repo, wire.SessionOut, *wire.Commit, *wire.Commit) {
	t.Helper()
	sp := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("Trips " + smriti.NewID().String()[:8]), Description: new("")})).Must(t)
	se := storetest.Get(e.c.CreateSession(bg, &sp.ID, "", "mock", "")).Must(t)
	commit := func(s smriti.ID, msg, decision string) *wire.Commit {
		req := wire.CommitRequest{RepoID: strp(sp.ID.String()), SessionID: strp(s.String())}
		req.Message, req.Decisions = strp(msg), []string{decision}
		return storetest.Get(e.c.Commit(bg, req)).Must(t)
	}
	storetest.Get(e.c.Send(bg, sendReq(se.ID, "Australia: Sydney first?"), "")).Must(t)
	cp1 := commit(se.ID, "Australia plan", "Start in Sydney")
	storetest.Get(e.c.Send(bg, sendReq(se.ID, "New Zealand: Queenstown"), "")).Must(t)
	cp2 := commit(se.ID, "New Zealand plan", "Ski in Queenstown")
	return *sp, *se, cp1, cp2
}

func TestMountKeptOnTheSession(t *testing.T) {
	onBothEngines(t, func(t *testing.T, e *testEnv) {
		sp, se, cp1, _ := planned(t, e)
		mountAt := storetest.Get(e.c.Session(bg, se.ID)).Must(t).TurnCount - 1
		mounted := func(msg string) wire.SendRequest {
			r := sendReq(se.ID, msg)
			r.MountedCheckpointID = strp(cp1.ID.String())
			return r
		}
		first := storetest.Get(e.c.Send(bg, mounted("first after the mount"), "")).Must(t)
		if first.Context.Mode != "MOUNTED" || !strings.Contains(first.Reply, "turns=0") {
			t.Fatalf("first: %s / %s", first.Context.Mode, first.Reply)
		}
		s := storetest.Get(e.c.Session(bg, se.ID)).Must(t)
		if s.Mount == nil || s.Mount.CheckpointID != cp1.ID || s.Mount.HistoryBaseSeq != mountAt {
			t.Fatalf("session mount = %+v, want %s at %d", s.Mount, cp1.ID, mountAt)
		}
		// Two stateless sends (no history_base_seq) both see the first one's turns.
		second := storetest.Get(e.c.Send(bg, mounted("second"), "")).Must(t)
		third := storetest.Get(e.c.Send(bg, sendReq(se.ID, "third, no mount fields"), "")).Must(t)
		for i, tt := range []struct {
			res  *wire.SendResponse
			from int64
			to   int64
		}{{second, mountAt + 1, mountAt + 2}, {third, mountAt + 1, mountAt + 4}} {
			c := tt.res.Context
			if c.Mode != "MOUNTED" || c.FromSeq == nil || *c.FromSeq != tt.from || *c.ToSeq != tt.to || c.CommitHashes[0] != cp1.CommitHash {
				t.Fatalf("send %d context = %+v, want turns %d..%d", i+2, c, tt.from, tt.to)
			}
		}
		// The preview shows the mount; a draft drafts the turns since it.
		p := storetest.Get(e.c.PreviewContext(bg, sendReq(se.ID, "preview"))).Must(t)
		if p.Mount == nil || p.Mount.CheckpointID != cp1.ID || p.Mode != "MOUNTED" || p.TurnRange.FromSeq != mountAt+1 {
			t.Fatalf("preview mount %+v mode %s range %+v", p.Mount, p.Mode, p.TurnRange)
		}
		if p.LastUsage == nil || p.LastUsage.OutputTokens == 0 || p.ReplyTokens != intelligence.ReplyTokens(8192) || p.ExactTokens {
			t.Fatalf("preview usage %+v reply %d exact %v", p.LastUsage, p.ReplyTokens, p.ExactTokens)
		}
		d := storetest.Get(e.c.Draft(bg, wire.DraftRequest{SessionID: strp(se.ID.String())})).Must(t)
		if d.SourceTurns == nil || d.SourceTurns.FromSeq != mountAt+1 || d.SourceTurns.ToSeq != mountAt+6 {
			t.Fatalf("draft after a mount read %+v, want %d..%d", d.SourceTurns, mountAt+1, mountAt+6)
		}
		// An explicit base still wins, for that send only.
		explicit := mounted("explicit base")
		explicit.HistoryBaseSeq = i64(-1)
		if p := storetest.Get(e.c.PreviewContext(bg, explicit)).Must(t); p.TurnRange.FromSeq != 0 {
			t.Fatalf("explicit base -1 range %+v", p.TurnRange)
		}
		// Unmount: back to HEAD.
		if s := storetest.Get(e.c.Unmount(bg, se.ID)).Must(t); s.Mount != nil {
			t.Fatalf("unmount left %+v", s.Mount)
		}
		if p := storetest.Get(e.c.PreviewContext(bg, sendReq(se.ID, "after"))).Must(t); p.Mode != "HEAD" || p.Mount != nil {
			t.Fatalf("after unmount: %s %+v", p.Mode, p.Mount)
		}
		// The mount endpoint: default base is the last turn; bad input refused.
		s = storetest.Get(e.c.Mount(bg, se.ID, cp1.ID, nil)).Must(t)
		if s.Mount == nil || s.Mount.HistoryBaseSeq != s.TurnCount-1 {
			t.Fatalf("mount endpoint = %+v (turns %d)", s.Mount, s.TurnCount)
		}
		other := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("Other " + smriti.NewID().String()[:8]), Description: new("")})).Must(t)
		oSe := storetest.Get(e.c.CreateSession(bg, &other.ID, "", "mock", "")).Must(t)
		oCp := storetest.Get(e.c.Commit(bg, wire.CommitRequest{RepoID: strp(other.ID.String()), SessionID: strp(oSe.ID.String()),
			ContentFields: wire.ContentFields{Message: strp("elsewhere")}})).Must(t)
		_, err := e.c.Mount(bg, se.ID, oCp.ID, nil)
		wantCode(t, err, smriti.EINVALID)
		_, err = e.c.Mount(bg, se.ID, smriti.NewID(), nil)
		wantCode(t, err, smriti.ENOTFOUND)
		_, err = e.c.Mount(bg, se.ID, cp1.ID, i64(-2))
		wantCode(t, err, smriti.EUNPROCESSABLE)
		_ = sp
	})
}

func TestSeedFromACheckpointMountsIt(t *testing.T) {
	onBothEngines(t, func(t *testing.T, e *testEnv) {
		sp, _, cp1, cp2 := planned(t, e)
		var out wire.SessionOut
		if _, err := e.c.Do(bg, "POST", "/api/v4/chat/spaces/"+sp.ID.String()+"/sessions",
			map[string]any{"provider": "mock", "seed_from": cp1.ID.String()}, &out); err != nil {
			t.Fatal(err)
		}
		if out.Mount == nil || out.Mount.CheckpointID != cp1.ID || out.Mount.HistoryBaseSeq != -1 || *out.SeededCommitID != cp1.ID {
			t.Fatalf("seeded session = %+v mount %+v", out, out.Mount)
		}
		storetest.Get(e.c.Send(bg, sendReq(out.ID, "one"), "")).Must(t)
		p := storetest.Get(e.c.PreviewContext(bg, sendReq(out.ID, "two"))).Must(t)
		if p.Mode != "MOUNTED" || len(p.CheckpointIDs) != 1 || p.CheckpointIDs[0] != cp1.ID || p.TurnCount != 2 ||
			strings.Contains(allText(p), cp2.CommitHash[:7]) {
			t.Fatalf("seeded preview: %s %v turns %d", p.Mode, p.CheckpointIDs, p.TurnCount)
		}
		var head wire.SessionOut
		if _, err := e.c.Do(bg, "POST", "/api/v4/chat/spaces/"+sp.ID.String()+"/sessions",
			map[string]any{"provider": "mock", "seed_from": "head"}, &head); err != nil {
			t.Fatal(err)
		}
		if head.Mount != nil {
			t.Fatalf("seed_from head mounted %+v", head.Mount)
		}
		if p := storetest.Get(e.c.PreviewContext(bg, sendReq(head.ID, "x"))).Must(t); p.Mode != "HEAD" || p.CheckpointIDs[0] != cp2.ID {
			t.Fatalf("head seed preview %s %v", p.Mode, p.CheckpointIDs)
		}
	})
}

func TestForkAnchorsOnItsOwnBranch(t *testing.T) {
	onBothEngines(t, func(t *testing.T, e *testEnv) {
		sp, _, cp1, _ := planned(t, e)
		f := storetest.Get(e.c.Fork(bg, wire.ForkRequest{SpaceID: strp(sp.ID.String()), CheckpointID: strp(cp1.ID.String()), BranchName: "east"})).Must(t)
		commit := func(msg string) *wire.Commit {
			return storetest.Get(e.c.Commit(bg, wire.CommitRequest{RepoID: strp(sp.ID.String()), SessionID: strp(f.SessionID.String()),
				ContentFields: wire.ContentFields{Message: strp(msg)}})).Must(t)
		}
		storetest.Get(e.c.Send(bg, sendReq(f.SessionID, "fork turn"), "")).Must(t)
		r := storetest.Get(e.c.Send(bg, sendReq(f.SessionID, "second fork turn"), "")).Must(t)
		if r.Context.Mode != "FORKED" || r.Context.CheckpointIDs[0] != cp1.ID || r.Context.FromSeq == nil || *r.Context.FromSeq != 0 {
			t.Fatalf("before a commit: %+v", r.Context)
		}
		commit("East 1")
		storetest.Get(e.c.Send(bg, sendReq(f.SessionID, "after east 1"), "")).Must(t)
		e2 := commit("East 2")
		r = storetest.Get(e.c.Send(bg, sendReq(f.SessionID, "after east 2"), "")).Must(t)
		if r.Context.Mode != "FORKED" || len(r.Context.CheckpointIDs) != 1 || r.Context.CheckpointIDs[0] != e2.ID || r.Context.FromSeq != nil {
			t.Fatalf("after the second commit the context is %+v, want East 2 and no earlier turns", r.Context)
		}
		r = storetest.Get(e.c.Send(bg, sendReq(f.SessionID, "and again"), "")).Must(t)
		if *r.Context.FromSeq != r.UserSeq-2 || r.Context.CheckpointIDs[0] != e2.ID {
			t.Fatalf("next send context %+v", r.Context)
		}
	})
}

func TestAuthorship(t *testing.T) {
	onBothEngines(t, func(t *testing.T, e *testEnv) {
		sp, se := e.spaceSession(t)
		storetest.Get(e.c.Send(bg, sendReq(se.ID, "hello"), "")).Must(t)
		commit := func(extra func(*wire.CommitRequest)) *wire.Commit {
			req := wire.CommitRequest{RepoID: strp(sp.ID.String()), SessionID: strp(se.ID.String())}
			req.Message = strp("c " + smriti.NewID().String()[:6])
			extra(&req)
			return storetest.Get(e.c.Commit(bg, req)).Must(t)
		}
		for _, tt := range []struct {
			name      string
			extra     func(*wire.CommitRequest)
			wantType  string
			wantAgent any
		}{
			{"TypedByHand", func(*wire.CommitRequest) {}, "user", nil},
			{"NamedAgent", func(r *wire.CommitRequest) { r.AuthorAgent = strp("claude-code") }, "agent", "claude-code"},
			{"Drafted", func(r *wire.CommitRequest) {
				r.SourceTurns = &wire.SourceTurnsIn{SessionID: strp(se.ID.String()), FromSeq: i64(0), ToSeq: i64(1)}
			}, "llm", "mock"},
			{"Extracted", func(r *wire.CommitRequest) { r.AuthorType = "llm" }, "llm", "mock"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				c := commit(tt.extra)
				var agent any
				if c.AuthorAgent != nil {
					agent = *c.AuthorAgent
				}
				if c.AuthorType != tt.wantType || agent != tt.wantAgent {
					t.Fatalf("author %s/%v, want %s/%v", c.AuthorType, agent, tt.wantType, tt.wantAgent)
				}
			})
		}
		base := commit(func(*wire.CommitRequest) {})
		f := storetest.Get(e.c.Fork(bg, wire.ForkRequest{SpaceID: strp(sp.ID.String()), CheckpointID: strp(base.ID.String())})).Must(t)
		side := storetest.Get(e.c.Commit(bg, wire.CommitRequest{RepoID: strp(sp.ID.String()), SessionID: strp(f.SessionID.String()),
			ContentFields: wire.ContentFields{Message: strp("side"), Decisions: []string{"New"}}})).Must(t)
		m := storetest.Get(e.c.Merge(bg, wire.MergeRequest{SpaceID: strp(sp.ID.String()), SourceCheckpointID: strp(side.ID.String())})).Must(t)
		if m.Checkpoint.AuthorAgent == nil || *m.Checkpoint.AuthorAgent != "local" || m.Checkpoint.AuthorType != "system" {
			t.Fatalf("merge author %s/%v, want system/local", m.Checkpoint.AuthorType, m.Checkpoint.AuthorAgent)
		}
	})
}

func TestIdempotencyAsStripeDoesIt(t *testing.T) {
	onBothEngines(t, func(t *testing.T, e *testEnv) {
		sp, se, _, cp2 := planned(t, e)
		_ = sp
		send := func(msg, key string) (int, []byte) {
			b, _ := json.Marshal(sendReq(se.ID, msg))
			req, _ := http.NewRequest("POST", e.url+"/api/v4/chat/send", strings.NewReader(string(b)))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Idempotency-Key", key)
			resp, err := e.http.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var raw json.RawMessage
			json.NewDecoder(resp.Body).Decode(&raw)
			return resp.StatusCode, raw
		}
		st, first := send("book the flights", "key-1")
		if st != 200 {
			t.Fatalf("first send %d %s", st, first)
		}
		st, again := send("book the flights", "key-1")
		var a, b map[string]any
		json.Unmarshal(first, &a)
		json.Unmarshal(again, &b)
		if st != 200 || b["replayed"] != true {
			t.Fatalf("replay %d %s", st, again)
		}
		b["replayed"] = false
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("replay differs from the first response:\nfirst  %s\nreplay %s", first, again)
		}
		if hashes := a["context"].(map[string]any)["commit_hashes"].([]any); len(hashes) != 1 || hashes[0] != cp2.CommitHash {
			t.Fatalf("commit_hashes = %v", hashes)
		}
		st, diff := send("cancel the flights", "key-1")
		if st != 422 || !strings.Contains(string(diff), "different request") {
			t.Fatalf("same key, different message: %d %s", st, diff)
		}
		turns := storetest.Get(e.c.AllTurns(bg, se.ID)).Must(t)
		if len(turns) != 6 {
			t.Fatalf("turns = %d, want 6 (nothing written by the replay or the refusal)", len(turns))
		}
	})
}

func TestSendDefaults(t *testing.T) {
	f := newFakeLLM(t, false, func(int) llmReply { return ok("from the fake") })
	e := newEnv(t, withFake(f), fastProviders)
	sp := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("Defaults"), Description: new("")})).Must(t)
	se := storetest.Get(e.c.CreateSession(bg, &sp.ID, "", "openai", "gpt-4o-mini")).Must(t)

	// use_mock: the mock answers one send in the name of the session's
	// provider and model, which stay the session's; the provider is not asked.
	r := sendReq(se.ID, "offline please")
	r.Provider, r.UseMock = "", true
	res := storetest.Get(e.c.Send(bg, r, "")).Must(t)
	if res.Provider != "openai" || res.Model != "gpt-4o-mini" || !strings.HasPrefix(res.Reply, "[mock:gpt-4o-mini] You said: ") || len(f.requests()) != 0 {
		t.Fatalf("use_mock send = %s/%s %q, provider asked %d times", res.Provider, res.Model, res.Reply, len(f.requests()))
	}
	if s := storetest.Get(e.c.Session(bg, se.ID)).Must(t); s.ActiveProvider != "openai" || s.ActiveModel != "gpt-4o-mini" {
		t.Fatalf("use_mock switched the session to %s/%s", s.ActiveProvider, s.ActiveModel)
	}
	// A send without a model uses the session's, and asks for the reserve.
	r = sendReq(se.ID, "and now for real")
	r.Provider = ""
	res = storetest.Get(e.c.Send(bg, r, "")).Must(t)
	reqs := f.requests()
	last := reqs[len(reqs)-1]
	if res.Model != "gpt-4o-mini" || last["model"] != "gpt-4o-mini" || last["max_completion_tokens"] != float64(intelligence.ReplyTokens(128000)) {
		t.Fatalf("model %s, provider asked for %v with max_completion_tokens %v", res.Model, last["model"], last["max_completion_tokens"])
	}
	// The preview of an OpenAI model counts exactly: the fixed messages now,
	// the history by the counts stored with each turn (exact too, as every
	// turn of this session was written by an OpenAI model).
	se2 := storetest.Get(e.c.CreateSession(bg, nil, "", "openai", "gpt-4o-mini")).Must(t)
	r = sendReq(se2.ID, "count me: 東京 and 550e8400-e29b-41d4-a716-446655440000")
	r.Provider = ""
	storetest.Get(e.c.Send(bg, r, "")).Must(t)
	p := storetest.Get(e.c.PreviewContext(bg, r)).Must(t)
	if !p.ExactTokens {
		t.Fatal("an OpenAI preview is not exact")
	}
	want := 0
	for _, m := range p.Messages {
		n, _ := tokenizer.Count(tokenizer.O200K, m.Content)
		want += n + intelligence.MessageOverheadTokens
	}
	if want += intelligence.ReplyPrimingTokens; p.TokenEstimate != want {
		t.Fatalf("token_estimate %d, tiktoken says %d", p.TokenEstimate, want)
	}
	// An unknown provider is named as such whatever else is missing.
	r.Provider = "gemini"
	_, err := e.c.Send(bg, r, "")
	wantCode(t, err, smriti.EINVALID)
	if !strings.Contains(err.Error(), `Unknown provider "gemini"`) || !strings.Contains(err.Error(), "openai") {
		t.Fatalf("unknown provider error: %v", err)
	}
	// The providers endpoint names the chat defaults.
	var st map[string]json.RawMessage
	if _, err := e.c.Do(bg, "GET", "/api/v4/chat/providers", nil, &st); err != nil {
		t.Fatal(err)
	}
	var chat httpapi.ChatDefaults
	json.Unmarshal(st["chat"], &chat)
	if chat.DefaultProvider != "openai" {
		t.Fatalf("chat defaults = %+v", chat)
	}
}

func TestMethodNotAllowedAndCursors(t *testing.T) {
	e := newEnv(t)
	for _, tt := range []struct{ method, path, allow string }{
		{"PUT", "/api/v2/repos", "GET, HEAD, POST"},
		{"POST", "/api/v4/chat/sessions/" + smriti.NewID().String(), "GET, HEAD, DELETE"},
		{"GET", "/api/v4/chat/send", "POST"},
	} {
		req, _ := http.NewRequest(tt.method, e.url+tt.path, nil)
		resp, err := e.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body map[string]string
		json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != 405 || resp.Header.Get("Allow") != tt.allow || !strings.Contains(body["detail"], "not allowed") {
			t.Errorf("%s %s = %d Allow %q %v, want 405 Allow %q", tt.method, tt.path, resp.StatusCode, resp.Header.Get("Allow"), body, tt.allow)
		}
	}
	if st, _ := e.raw(t, "GET", "/api/v9/nothing", ""); st != 404 {
		t.Errorf("unknown path = %d, want 404", st)
	}
	// Turns page with ?after= (the X-Next-Cursor value), as every list does;
	// the old ?after_seq= still works.
	se := storetest.Get(e.c.CreateSession(bg, nil, "", "mock", "")).Must(t)
	for i := range 3 {
		storetest.Get(e.c.Send(bg, sendReq(se.ID, fmt.Sprint("m", i)), "")).Must(t)
	}
	for _, name := range []string{"after", "after_seq"} {
		var seqs []int64
		cursor := ""
		for page := 0; page < 10; page++ {
			path := "/api/v4/chat/sessions/" + se.ID.String() + "/turns?limit=4"
			if cursor != "" {
				path += "&" + name + "=" + cursor
			}
			var turns []wire.TurnOut
			resp, err := e.c.Do(bg, "GET", path, nil, &turns)
			if err != nil {
				t.Fatal(err)
			}
			for _, tu := range turns {
				seqs = append(seqs, tu.SequenceNumber)
			}
			if cursor = resp.Header.Get("X-Next-Cursor"); cursor == "" {
				break
			}
		}
		if !reflect.DeepEqual(seqs, []int64{0, 1, 2, 3, 4, 5}) {
			t.Errorf("?%s= paging gave %v", name, seqs)
		}
	}
}

func TestExtractKeepsCheckboxes(t *testing.T) {
	doc := "# Hand-off\n\n## Tasks\n- [x] Write the migration\n- [ ] Update the docs\n- Review the API\n"
	// The mock, and a model that drops the markers, both keep the state.
	f := newFakeLLM(t, false, func(int) llmReply {
		return ok(`{"title": "Hand-off", "tasks": [{"text": "Write the migration"}, {"text": "Update the docs"}, {"text": "Review the API"}]}`)
	})
	for name, env := range map[string]*testEnv{"Mock": newEnv(t), "Model": newEnv(t, withFake(f), fastProviders)} {
		t.Run(name, func(t *testing.T) {
			x := storetest.Get(env.c.Extract(bg, doc, name == "Mock", nil)).Must(t)
			got := map[string]string{}
			for _, task := range x.Tasks {
				got[task.Text] = task.Status
			}
			want := map[string]string{"Write the migration": "done", "Update the docs": "open", "Review the API": ""}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("tasks %v, want %v", got, want)
			}
		})
	}
}

// TestWindowEdgeAnthropic fills a session far past a model's window and
// sends against a fake Anthropic server that, like the real one, rejects a
// request whose prompt plus max_tokens exceeds the window. It measures the
// prompt with a real BPE tokenizer (cl100k) standing in for the vendor's.
// The budget's estimate (with its margin) and a reply reserve equal to the
// max_tokens sent keep every request inside.
func TestWindowEdgeAnthropic(t *testing.T) {
	const window = 8192 // the window assumed for a model Smriti does not know
	var (
		mu       sync.Mutex
		measured []int
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			System    any `json:"system"`
			MaxTokens int `json:"max_tokens"`
			Messages  []struct {
				Content any `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			t.Errorf("request is not JSON: %v", err)
		}
		text := func(v any) string {
			switch c := v.(type) {
			case string:
				return c
			case []any:
				var b strings.Builder
				for _, part := range c {
					p, _ := part.(map[string]any)
					s, _ := p["text"].(string)
					b.WriteString(s)
				}
				return b.String()
			}
			return ""
		}
		n, _ := tokenizer.Count(tokenizer.CL100K, text(body.System))
		total := n + intelligence.MessageOverheadTokens + intelligence.ReplyPrimingTokens
		for _, m := range body.Messages {
			n, _ := tokenizer.Count(tokenizer.CL100K, text(m.Content))
			total += n + intelligence.MessageOverheadTokens
		}
		mu.Lock()
		measured = append(measured, total+body.MaxTokens)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if total+body.MaxTokens > window {
			w.WriteHeader(400)
			fmt.Fprintf(w, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: %d tokens + max_tokens %d > %d maximum"}}`, total, body.MaxTokens, window)
			return
		}
		fmt.Fprintf(w, `{"id":"msg_01","type":"message","role":"assistant","model":"edge-model","content":[{"type":"text","text":"fits"}],`+
			`"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":%d,"output_tokens":1}}`, total)
	}))
	t.Cleanup(srv.Close)
	e := newEnv(t, withProviderEnv(map[string]string{provider.EnvAnthropicKey: "sk-ant-test-0123456789", provider.EnvAnthropicBaseURL: srv.URL}), fastProviders)
	se := storetest.Get(e.c.CreateSession(bg, nil, "", "anthropic", "edge-model")).Must(t)
	kinds := []string{
		strings.Repeat("版本控制用于保存推理状态。", 20),
		strings.Repeat("550e8400-e29b-41d4-a716-446655440000 ", 12),
		strings.Repeat("func (c *Chat) run(ctx context.Context) error { return nil }\n", 8),
		strings.Repeat(`{"id":"a1","tasks":[{"text":"x","status":"done"}]} `, 8),
		strings.Repeat("स्मृति लंबी बातचीत की तर्क-स्थिति को सहेजती है। ", 6),
		strings.Repeat("Ship it 🚀 — tests pass ✅ 👍🏽 ", 10),
	}
	for i := range 60 {
		msg := kinds[i%len(kinds)]
		if _, err := e.store.AppendExchange(bg, contract.Exchange{SessionID: se.ID,
			User:      contract.TurnWrite{Content: msg, Provider: "anthropic", Model: "edge-model", Tokens: estimate.Tokens(msg)},
			Assistant: contract.TurnWrite{Content: msg, Provider: "anthropic", Model: "edge-model", Tokens: estimate.Tokens(msg)}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, msg := range kinds {
		r := sendReq(se.ID, msg)
		r.Provider = ""
		res, err := e.c.Send(bg, r, "")
		if err != nil {
			t.Fatalf("rejected at the window's edge: %v", err)
		}
		if res.Context.DroppedTurns == 0 {
			t.Fatalf("nothing was dropped: the test did not reach the edge (%+v)", res.Context)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for i, n := range measured {
		// Inside the window, and not absurdly far from it either.
		if n > window || n < window/2 {
			t.Errorf("request %d used %d of %d tokens", i, n, window)
		}
	}
}
