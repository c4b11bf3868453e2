package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"smriti/eval/oracle"
	"smriti/intelligence"
	"smriti/provider"
)

// chatCompletionsServer is an OpenAI-compatible server on 127.0.0.1 that
// speaks the Chat Completions wire format — JSON bodies, response_format
// json_object and json_schema, SSE streams with a usage chunk and [DONE] —
// with the oracle as its model: what a user's own model server looks like to
// `smriti eval --base-url`.
type chatCompletionsServer struct {
	*httptest.Server
	mu                          sync.Mutex
	plain, streamed, jsonObject int
	models                      map[string]int
}

func newChatCompletionsServer(t *testing.T) *chatCompletionsServer {
	f := &chatCompletionsServer{models: map[string]int{}}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			http.Error(w, `{"error":{"message":"no such route","type":"invalid_request_error"}}`, http.StatusNotFound)
			return
		}
		var body struct {
			Model    string `json:"model"`
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
			Stream         bool `json:"stream"`
			ResponseFormat *struct {
				Type       string `json:"type"`
				JSONSchema *struct {
					Name string `json:"name"`
				} `json:"json_schema"`
			} `json:"response_format"`
		}
		data, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(data, &body); err != nil {
			http.Error(w, `{"error":{"message":"bad JSON","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		req := intelligence.CompletionRequest{Model: body.Model}
		for _, m := range body.Messages {
			req.Messages = append(req.Messages, intelligence.Message{Role: m.Role, Content: contentText(m.Content)})
		}
		f.mu.Lock()
		f.models[body.Model]++
		switch {
		case body.Stream:
			f.streamed++
		case body.ResponseFormat != nil && body.ResponseFormat.Type == "json_object":
			f.jsonObject++
		default:
			f.plain++
		}
		f.mu.Unlock()
		if rf := body.ResponseFormat; rf != nil {
			// A server asked for "a JSON object" is told the schema in the
			// prompt; the oracle knows a draft by its data block.
			name := ""
			if rf.JSONSchema != nil {
				name = rf.JSONSchema.Name
			} else if d, ok := intelligence.PromptData(req.Messages); ok && strings.Contains(d, `"base":`) && strings.Contains(d, `"turns":`) {
				name = intelligence.SchemaDraftChanges
			}
			req.Schema = &intelligence.JSONSchema{Name: name}
		}
		c, err := oracle.Oracle{}.Complete(r.Context(), req)
		if err != nil {
			http.Error(w, `{"error":{"message":"oracle failed","type":"server_error"}}`, http.StatusInternalServerError)
			return
		}
		usage := map[string]int{"prompt_tokens": c.Usage.InputTokens, "completion_tokens": c.Usage.OutputTokens,
			"total_tokens": c.Usage.InputTokens + c.Usage.OutputTokens}
		if !body.Stream {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{
				"id": "chatcmpl-eval", "object": "chat.completion", "created": 1764720000, "model": body.Model,
				"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
					"message": map[string]any{"role": "assistant", "content": c.Text}}},
				"usage": usage,
			})
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fl, _ := w.(http.Flusher)
		chunk := func(v map[string]any) {
			v["id"], v["object"], v["created"], v["model"] = "chatcmpl-eval", "chat.completion.chunk", 1764720000, body.Model
			b, _ := json.Marshal(v)
			fmt.Fprintf(w, "data: %s\n\n", b)
			if fl != nil {
				fl.Flush()
			}
		}
		for _, word := range strings.SplitAfter(c.Text, " ") {
			chunk(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": word}, "finish_reason": nil}}})
		}
		chunk(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": "stop"}}})
		chunk(map[string]any{"choices": []any{}, "usage": usage})
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(f.Close)
	return f
}

// contentText reads a message content: a string or an array of text parts.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// TestEvalOpenAICompatibleEndToEnd runs `smriti eval --base-url URL --model
// M --chat` against an OpenAI-compatible server: drafts go through the
// generic provider in JSON mode, every send is streamed over SSE, and the
// report has the same figures as the oracle run — what a user with their own
// model server or key gets, measured the same way.
func TestEvalOpenAICompatibleEndToEnd(t *testing.T) {
	srv := newChatCompletionsServer(t)
	t.Setenv(provider.EnvGenericKey, "")
	rep := runEvalT(t, evalOptions{baseURL: srv.URL + "/v1", model: "local-oracle-7b", scenarios: scenarioDir, chat: true})
	if rep.Provider != "generic" || rep.Model != "local-oracle-7b" {
		t.Fatalf("report names provider %q model %q; want generic and local-oracle-7b", rep.Provider, rep.Model)
	}
	checkOracleFigures(t, rep)
	srv.mu.Lock()
	defer srv.mu.Unlock()
	turns := 0
	for _, row := range rep.Rows {
		turns += row.Turns
	}
	// Every send streamed; every draft and baseline call in JSON mode.
	if srv.streamed != turns || srv.jsonObject < rep.Overall.Drafts+rep.FullContext.Drafts+rep.Notes.Drafts || srv.plain != 0 {
		t.Fatalf("streamed %d (want %d sends), json_object %d (want at least %d), other %d", srv.streamed, turns, srv.jsonObject,
			rep.Overall.Drafts+rep.FullContext.Drafts+rep.Notes.Drafts, srv.plain)
	}
	if len(srv.models) != 1 || srv.models["local-oracle-7b"] == 0 {
		t.Fatalf("models asked for: %v", srv.models)
	}
	if rep.Overall.DraftTokens == 0 {
		t.Fatal("no draft tokens counted: the server's usage did not reach the report")
	}
}
