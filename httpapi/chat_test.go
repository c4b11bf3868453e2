package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"smriti"
	"smriti/client"
	"smriti/intelligence"
	"smriti/internal/textutil"
	"smriti/provider"
	"smriti/store/storetest"
	"smriti/wire"
)

func sendReq(session smriti.ID, msg string) wire.SendRequest {
	return wire.SendRequest{SessionID: strp(session.String()), Message: strp(msg), Provider: "mock"}
}

func allText(p *wire.ContextPreview) string {
	var b strings.Builder
	for _, m := range p.Messages {
		b.WriteString(m.Content)
		b.WriteString("\n")
	}
	return b.String()
}

// TestIsolationAustraliaThenNewZealand is the SPEC scenario end to end:
// turns about Australia → checkpoint 1 → turns about New Zealand →
// checkpoint 2; mounting checkpoint 1 shows the model checkpoint 1 and
// nothing about New Zealand.
func TestIsolationAustraliaThenNewZealand(t *testing.T) {
	e := newEnv(t)
	sp := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("Travel"), Description: new("")})).Must(t)
	se := storetest.Get(e.c.CreateSession(bg, &sp.ID, "", "mock", "")).Must(t)
	send := func(msg string) *wire.SendResponse {
		return storetest.Get(e.c.Send(bg, sendReq(se.ID, msg), "")).Must(t)
	}
	commit := func(msg, decision string) *wire.Commit {
		req := wire.CommitRequest{RepoID: strp(sp.ID.String()), SessionID: strp(se.ID.String())}
		req.Message, req.Decisions = strp(msg), []string{decision}
		return storetest.Get(e.c.Commit(bg, req)).Must(t)
	}
	send("Australia: Sydney or Melbourne first?")
	send("Australia: the Great Barrier Reef in June")
	cp1 := commit("Australia plan", "Start in Sydney")
	send("New Zealand: Queenstown for skiing")
	cp2 := commit("New Zealand plan", "Ski in Queenstown")
	send("New Zealand: Milford Sound day trip")

	t.Run("MountedExcludesLaterTurnsAndCheckpoints", func(t *testing.T) {
		req := sendReq(se.ID, "What did we decide?")
		req.MountedCheckpointID = strp(cp1.ID.String())
		p := storetest.Get(e.c.PreviewContext(bg, req)).Must(t)
		text := allText(p)
		if p.Mode != "MOUNTED" || len(p.CheckpointIDs) != 1 || p.CheckpointIDs[0] != cp1.ID {
			t.Fatalf("mode %s checkpoints %v", p.Mode, p.CheckpointIDs)
		}
		for _, leak := range []string{"New Zealand", "Queenstown", "Milford", cp2.CommitHash[:7]} {
			if strings.Contains(text, leak) {
				t.Fatalf("mounted prompt leaks %q:\n%s", leak, text)
			}
		}
		if !strings.Contains(text, "Start in Sydney") || p.TurnCount != 0 {
			t.Fatalf("mounted prompt lacks checkpoint 1 or has turns (%d):\n%s", p.TurnCount, text)
		}
		res := storetest.Get(e.c.Send(bg, req, "")).Must(t)
		if res.Context.Mode != "MOUNTED" || !strings.Contains(res.Reply, "checkpoints="+cp1.CommitHash[:7]+" turns=0") {
			t.Fatalf("mock saw: %s", res.Reply)
		}
		// After the mount, later sends with the client's boundary see only
		// what came after it.
		base := res.UserSeq - 1
		req.HistoryBaseSeq = &base
		p = storetest.Get(e.c.PreviewContext(bg, req)).Must(t)
		if p.TurnCount != 2 || p.TurnRange.FromSeq != res.UserSeq {
			t.Fatalf("post-mount turns = %d from %+v", p.TurnCount, p.TurnRange)
		}
	})

	t.Run("HeadUsesTurnsAfterNewestCheckpoint", func(t *testing.T) {
		// The mount above is kept on the session until it is ended.
		if after := storetest.Get(e.c.Unmount(bg, se.ID)).Must(t); after.Mount != nil {
			t.Fatalf("unmount left %+v", after.Mount)
		}
		p := storetest.Get(e.c.PreviewContext(bg, sendReq(se.ID, "next?"))).Must(t)
		if p.Mode != "HEAD" || p.CheckpointIDs[0] != cp2.ID {
			t.Fatalf("head preview = %s %v", p.Mode, p.CheckpointIDs)
		}
		text := allText(p)
		if strings.Contains(text, "Great Barrier Reef") || !strings.Contains(text, "Milford") {
			t.Fatalf("head prompt has the wrong turns:\n%s", text)
		}
		req := sendReq(se.ID, "next?")
		req.MemoryScope = "latest_3"
		p = storetest.Get(e.c.PreviewContext(bg, req)).Must(t)
		if len(p.CheckpointIDs) != 2 || p.CheckpointIDs[0] != cp1.ID {
			t.Fatalf("latest_3 = %v", p.CheckpointIDs)
		}
	})

	t.Run("ForkSeesItsOwnFirstMessage", func(t *testing.T) {
		fork := storetest.Get(e.store.ForkSession(context.Background(), smriti.ForkCreate{SpaceID: sp.ID, CheckpointID: cp1.ID})).Must(t)
		first := storetest.Get(e.c.Send(bg, sendReq(fork.ID, "Fork: what about Perth?"), "")).Must(t)
		if first.Context.Mode != "FORKED" {
			t.Fatalf("fork mode = %s", first.Context.Mode)
		}
		p := storetest.Get(e.c.PreviewContext(bg, sendReq(fork.ID, "and then?"))).Must(t)
		text := allText(p)
		if !strings.Contains(text, "Fork: what about Perth?") || strings.Contains(text, "Queenstown") || strings.Contains(text, "Sydney or Melbourne") {
			t.Fatalf("fork prompt:\n%s", text)
		}
	})

	t.Run("MountOfAnotherSpaceIsRejected", func(t *testing.T) {
		other := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("Other"), Description: new("")})).Must(t)
		ose := storetest.Get(e.c.CreateSession(bg, &other.ID, "", "mock", "")).Must(t)
		req := sendReq(ose.ID, "x")
		req.MountedCheckpointID = strp(cp1.ID.String())
		_, err := e.c.Send(bg, req, "")
		wantCode(t, err, smriti.EINVALID)
		req.MountedCheckpointID = strp(smriti.NewID().String())
		_, err = e.c.Send(bg, req, "")
		wantCode(t, err, smriti.ENOTFOUND)
	})
}

func TestBudgetDropsOldestTurnsAndReportsThem(t *testing.T) {
	e := newEnv(t)
	se := storetest.Get(e.c.CreateSession(bg, nil, "", "mock", "")).Must(t)
	for i := 0; i < 20; i++ {
		storetest.Get(e.c.Send(bg, sendReq(se.ID, fmt.Sprintf("message number %d with some words in it", i)), "")).Must(t)
	}
	req := sendReq(se.ID, "now")
	req.HistoryTokenBudget = 100
	p := storetest.Get(e.c.PreviewContext(bg, req)).Must(t)
	if p.TurnCount == 0 || p.TurnCount+p.DroppedTurns != 40 || p.TurnRange.ToSeq != 39 {
		t.Fatalf("kept %d dropped %d range %+v", p.TurnCount, p.DroppedTurns, p.TurnRange)
	}
	if !strings.Contains(p.Messages[len(p.Messages)-1].Content, "now") {
		t.Fatal("the new message was not last")
	}
	req.MemoryScope = "latest_7"
	_, err := e.c.PreviewContext(bg, req)
	wantCode(t, err, smriti.EUNPROCESSABLE)
}

func TestIdempotentSendReturnsStoredReply(t *testing.T) {
	e := newEnv(t)
	se := storetest.Get(e.c.CreateSession(bg, nil, "", "mock", "")).Must(t)
	first := storetest.Get(e.c.Send(bg, sendReq(se.ID, "hello"), "key-1")).Must(t)
	again := storetest.Get(e.c.Send(bg, sendReq(se.ID, "hello"), "key-1")).Must(t)
	if !again.Replayed || again.AssistantTurnID != first.AssistantTurnID || again.Reply != first.Reply {
		t.Fatalf("replay = %+v", again)
	}
	body := sendReq(se.ID, "hello")
	body.ClientRequestID = "key-2"
	storetest.Get(e.c.Send(bg, body, "")).Must(t)
	r2 := storetest.Get(e.c.Send(bg, body, "")).Must(t)
	if !r2.Replayed {
		t.Fatal("client_request_id did not make the send idempotent")
	}
	turns := storetest.Get(e.c.Turns(bg, se.ID)).Must(t)
	if len(turns) != 4 {
		t.Fatalf("turns = %d, want 4", len(turns))
	}
}

func checkPairs(t *testing.T, turns []wire.TurnOut, n int) {
	t.Helper()
	if len(turns) != 2*n {
		t.Fatalf("turns = %d, want %d", len(turns), 2*n)
	}
	for i, tr := range turns {
		if tr.SequenceNumber != int64(i) {
			t.Fatalf("turn %d has sequence %d", i, tr.SequenceNumber)
		}
		if i%2 == 1 && (turns[i-1].Role != "user" || tr.Role != "assistant" || !strings.Contains(tr.Content, turns[i-1].Content)) {
			t.Fatalf("reply %d %q does not follow its question %q", i, tr.Content, turns[i-1].Content)
		}
	}
}

func concurrentSends(t *testing.T, clients []*client.Client, session smriti.ID) {
	var wg sync.WaitGroup
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c := clients[i%len(clients)]
			if _, err := c.Send(bg, sendReq(session, fmt.Sprintf("question %d", i)), ""); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
}

func TestConcurrentSendsSQLite(t *testing.T) {
	e := newEnv(t)
	se := storetest.Get(e.c.CreateSession(bg, nil, "", "mock", "")).Must(t)
	concurrentSends(t, []*client.Client{e.c}, se.ID)
	checkPairs(t, storetest.Get(e.c.AllTurns(bg, se.ID)).Must(t), 64)
}

// TestConcurrentSendsPostgresTwoReplicas runs two servers on one
// PostgreSQL database, as replicas behind a load balancer would.
func TestConcurrentSendsPostgresTwoReplicas(t *testing.T) {
	a := newEnv(t, withPostgres())
	b := newEnvOn(t, a.dsn)
	se := storetest.Get(a.c.CreateSession(bg, nil, "", "mock", "")).Must(t)
	concurrentSends(t, []*client.Client{a.c, b.c}, se.ID)
	checkPairs(t, storetest.Get(b.c.AllTurns(bg, se.ID)).Must(t), 64)
}

// fakeOpenAI answers chat completions the way OpenAI does.
func fakeOpenAI(t *testing.T, handler func(w http.ResponseWriter, r *http.Request)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(handler))
	t.Cleanup(srv.Close)
	return srv
}

func openAIEnv(t *testing.T, url string) *testEnv {
	return newEnv(t, withProviderEnv(map[string]string{"OPENAI_API_KEY": "sk-test-secret-key", "OPENAI_BASE_URL": url}),
		withProviderOptions(provider.WithRetryPolicy(provider.RetryPolicy{MaxRetries: 0}), provider.WithTimeout(5*time.Second)))
}

func TestProviderFailureStoresNothing(t *testing.T) {
	upstream := fakeOpenAI(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(500)
		w.Write([]byte(`{"error":{"message":"The server had an error (key sk-test-secret-key)","type":"server_error","param":null,"code":null}}`))
	})
	e := openAIEnv(t, upstream.URL)
	se := storetest.Get(e.c.CreateSession(bg, nil, "", "openai", "gpt-4o")).Must(t)
	req := wire.SendRequest{SessionID: strp(se.ID.String()), Message: strp("hello"), Provider: "openai", Model: "gpt-4o"}
	_, err := e.c.Send(bg, req, "")
	wantCode(t, err, smriti.EUPSTREAM)
	if !strings.Contains(err.Error(), "openai") || !strings.Contains(err.Error(), "500") || strings.Contains(err.Error(), "sk-test-secret-key") {
		t.Fatalf("502 detail = %q", err.Error())
	}
	if turns := storetest.Get(e.c.Turns(bg, se.ID)).Must(t); len(turns) != 0 {
		t.Fatalf("a failed send stored %d turns", len(turns))
	}
	_, err = e.c.SendStream(bg, req, nil)
	wantCode(t, err, smriti.EUPSTREAM)
	if turns := storetest.Get(e.c.Turns(bg, se.ID)).Must(t); len(turns) != 0 {
		t.Fatalf("a failed stream stored %d turns", len(turns))
	}
}

func TestUnconfiguredProviderIs503(t *testing.T) {
	e := newEnv(t)
	se := storetest.Get(e.c.CreateSession(bg, nil, "", "", "")).Must(t)
	_, err := e.c.Send(bg, wire.SendRequest{SessionID: strp(se.ID.String()), Message: strp("hi"), Provider: "anthropic", Model: "claude-x"}, "")
	wantCode(t, err, smriti.EUNAVAILABLE)
	if !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Fatalf("503 detail = %q", err.Error())
	}
	_, err = e.c.Send(bg, wire.SendRequest{SessionID: strp(se.ID.String()), Message: strp("hi"), Provider: "nonsense", Model: "m"}, "")
	wantCode(t, err, smriti.EINVALID)
	status := storetest.Get(e.c.ProviderStatus(bg)).Must(t)
	var bgs intelligence.BackgroundStatus
	json.Unmarshal(status["background_intelligence"], &bgs)
	if !bgs.UsingMock {
		t.Fatalf("background status = %s", status["background_intelligence"])
	}
}

func TestStreamDeliversEventsAndStores(t *testing.T) {
	e := newEnv(t)
	se := storetest.Get(e.c.CreateSession(bg, nil, "", "mock", "")).Must(t)
	var events []string
	var text strings.Builder
	done := storetest.Get(e.c.SendStream(bg, sendReq(se.ID, "stream this"), func(ev client.StreamEvent) {
		events = append(events, ev.Event)
		if ev.Event == "delta" {
			var d struct{ Text string }
			json.Unmarshal(ev.Data, &d)
			text.WriteString(d.Text)
		}
	})).Must(t)
	if events[0] != "meta" || events[len(events)-1] != "done" || len(events) < 3 {
		t.Fatalf("events = %v", events)
	}
	if text.String() != done.Reply || done.AssistantSeq != 1 {
		t.Fatalf("streamed %q, stored %q (seq %d)", text.String(), done.Reply, done.AssistantSeq)
	}
	if turns := storetest.Get(e.c.Turns(bg, se.ID)).Must(t); len(turns) != 2 {
		t.Fatalf("turns = %d", len(turns))
	}
}

// TestStreamStoppedByClientKeepsPartialReply: the client goes away
// mid-stream (the user pressed Stop); the provider call is cancelled, and
// the question is stored with the reply as far as it got, marked stopped.
// The next send's context includes it, and the preview says so.
func TestStreamStoppedByClientKeepsPartialReply(t *testing.T) {
	var cancelled atomic.Bool
	upstream := fakeOpenAI(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, piece := range []string{"Hel", "lo, wor"} {
			fmt.Fprint(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"role":"assistant","content":"`+piece+`"},"finish_reason":null}]}`+"\n\n")
			w.(http.Flusher).Flush()
		}
		select {
		case <-r.Context().Done():
			cancelled.Store(true)
		case <-time.After(10 * time.Second):
		}
	})
	e := openAIEnv(t, upstream.URL)
	se := storetest.Get(e.c.CreateSession(bg, nil, "", "openai", "gpt-4o")).Must(t)
	ctx, cancel := context.WithCancel(bg)
	req := wire.SendRequest{SessionID: strp(se.ID.String()), Message: strp("hello"), Provider: "openai", Model: "gpt-4o"}
	var got strings.Builder
	_, err := e.c.SendStream(ctx, req, func(ev client.StreamEvent) {
		if ev.Event == "delta" {
			var d struct{ Text string }
			json.Unmarshal(ev.Data, &d)
			if got.WriteString(d.Text); got.String() == "Hello, wor" {
				cancel()
			}
		}
	})
	if err == nil {
		t.Fatal("stream finished although the client went away")
	}
	var turns []wire.TurnOut
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if turns = storetest.Get(e.c.Turns(bg, se.ID)).Must(t); len(turns) == 2 && cancelled.Load() {
			break
		}
	}
	if !cancelled.Load() {
		t.Fatal("the provider call was not cancelled")
	}
	type row struct {
		Seq     int64
		Role    string
		Content string
		Stopped any
	}
	var rows []row
	for _, tu := range turns {
		rows = append(rows, row{tu.SequenceNumber, tu.Role, tu.Content, tu.Metadata["stopped"]})
	}
	want := []row{{0, "user", "hello", nil}, {1, "assistant", "Hello, wor", true}}
	if fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Fatalf("stored turns = %v, want %v", rows, want)
	}
	pv := storetest.Get(e.c.PreviewContext(bg, wire.SendRequest{SessionID: strp(se.ID.String()), Message: strp("next"), Provider: "openai", Model: "gpt-4o"})).Must(t)
	if fmt.Sprint(pv.StoppedTurns) != "[1]" || pv.AllowedFromSeq != 0 || pv.TurnRange == nil || *pv.TurnRange != (wire.SeqRange{FromSeq: 0, ToSeq: 1}) {
		t.Fatalf("preview: stopped %v, allowed from #%d, range %+v; want [1], #0, 0–1", pv.StoppedTurns, pv.AllowedFromSeq, pv.TurnRange)
	}
	if m := pv.Messages[len(pv.Messages)-2]; m.Role != "assistant" || m.Content != "Hello, wor" {
		t.Fatalf("the stopped reply reaches the next prompt as %+v", m)
	}
}

// TestPreviewTellsWhereTheContextStarts: a mounted session's preview names
// the first turn after the mount as where the model's context starts.
func TestPreviewTellsWhereTheContextStarts(t *testing.T) {
	e := newEnv(t)
	sp := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("ctx start"), Description: new("")})).Must(t)
	se := storetest.Get(e.c.CreateSession(bg, &sp.ID, "", "mock", "")).Must(t)
	for _, m := range []string{"one", "two"} {
		storetest.Get(e.c.Send(bg, sendReq(se.ID, m), "")).Must(t)
	}
	pv := storetest.Get(e.c.PreviewContext(bg, sendReq(se.ID, "next"))).Must(t)
	if pv.Mode != "FRESH" || pv.AllowedFromSeq != 0 || fmt.Sprint(pv.StoppedTurns) != "[]" {
		t.Fatalf("fresh preview: %s from #%d stopped %v", pv.Mode, pv.AllowedFromSeq, pv.StoppedTurns)
	}
	cp := storetest.Get(e.c.Commit(bg, wire.CommitRequest{RepoID: strp(sp.ID.String()), SessionID: strp(se.ID.String()),
		ContentFields: wire.ContentFields{Message: strp("base"), Summary: "s"}})).Must(t)
	storetest.Get(e.c.Send(bg, sendReq(se.ID, "three"), "")).Must(t)
	head := storetest.Get(e.c.PreviewContext(bg, sendReq(se.ID, "next"))).Must(t)
	if head.Mode != "HEAD" || head.AllowedFromSeq != 4 || head.TurnRange == nil || head.TurnRange.FromSeq != 4 {
		t.Fatalf("head preview: %s from #%d range %+v, want HEAD from #4", head.Mode, head.AllowedFromSeq, head.TurnRange)
	}
	mreq := sendReq(se.ID, "next")
	mreq.MountedCheckpointID = strp(cp.ID.String())
	mounted := storetest.Get(e.c.PreviewContext(bg, mreq)).Must(t)
	if mounted.Mode != "MOUNTED" || mounted.AllowedFromSeq != 6 || mounted.TurnRange != nil {
		t.Fatalf("mounted preview: %s from #%d range %+v, want MOUNTED from #6 (no turns yet)", mounted.Mode, mounted.AllowedFromSeq, mounted.TurnRange)
	}
}

func TestSendValidation(t *testing.T) {
	e := newEnv(t)
	se := storetest.Get(e.c.CreateSession(bg, nil, "", "mock", "")).Must(t)
	id := se.ID.String()
	for body, want := range map[string]int{
		`{"session_id": "` + id + `"}`:                                          422,
		`{"session_id": "` + id + `", "message": "   "}`:                        422,
		`{"session_id": "` + id + `", "message": 5}`:                            422,
		`{"session_id": "` + id + `", "message": "x", "history_base_seq": "3"}`: 422,
		`{"session_id": "` + id + `", "message": "x", "history_base_seq": -5, "mounted_checkpoint_id": "` + smriti.NewID().String() + `"}`: 422,
		`{"session_id": "` + id + `", "message": "x", "mounted_checkpoint_id": "bad"}`:                                                     400,
		`{"session_id": "` + smriti.NewID().String() + `", "message": "x"}`:                                                                404,
		`{"message": "x"}`: 422,
		`{"session_id": "` + id + `", "message": "` + strings.Repeat("x", 100001) + `"}`: 422,
	} {
		if status, resp := e.raw(t, "POST", "/api/v4/chat/send", body); status != want {
			t.Errorf("send %s: %d %s, want %d", textutil.Truncate(body, 100), status, resp, want)
		}
	}
	if turns := storetest.Get(e.c.Turns(bg, se.ID)).Must(t); len(turns) != 0 {
		t.Fatalf("rejected sends stored %d turns", len(turns))
	}
}
