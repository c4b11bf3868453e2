package provider

import (
	"context"
	"errors"
	"net/http"
	"smriti/intelligence"
	"strings"
	"testing"
)

const openAICompletion = `{
  "id": "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
  "object": "chat.completion",
  "created": 1741569952,
  "model": "gpt-4o-mini-2024-07-18",
  "choices": [{
    "index": 0,
    "message": {"role": "assistant", "content": "Hello from the fake.", "refusal": null, "annotations": []},
    "logprobs": null,
    "finish_reason": "stop"
  }],
  "usage": {
    "prompt_tokens": 19, "completion_tokens": 5, "total_tokens": 24,
    "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
    "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}
  },
  "service_tier": "default",
  "system_fingerprint": "fp_06737a9306"
}`

func openAIChunk(content string) string {
	return `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1741569952,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"content":` +
		jsonString(content) + `},"logprobs":null,"finish_reason":null}],"usage":null}`
}

func jsonString(s string) string {
	return `"` + strings.NewReplacer(`"`, `\"`, "\n", `\n`).Replace(s) + `"`
}

var openAIStream = []string{
	`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1741569952,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}`,
	openAIChunk("Hel"),
	openAIChunk("lo, "),
	openAIChunk("world."),
	`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1741569952,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}`,
	`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1741569952,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_1","choices":[],"usage":{"prompt_tokens":31,"completion_tokens":4,"total_tokens":35}}`,
	`data: [DONE]`,
}

var chatRequest = intelligence.CompletionRequest{
	Model: "gpt-4o-mini",
	Messages: []intelligence.Message{
		{Role: "system", Content: "You are terse."},
		{Role: "user", Content: "Hi"},
		{Role: "assistant", Content: "Hello."},
		{Role: "user", Content: "Say hello to the world."},
	},
	Annotations: map[string]string{"mode": "latest_1"},
}

var draftSchema = &intelligence.JSONSchema{Name: "checkpoint draft", Schema: map[string]any{
	"type":                 "object",
	"properties":           map[string]any{"title": map[string]any{"type": "string"}, "decisions": map[string]any{"type": "array", "items": map[string]any{"type": "string"}}},
	"required":             []any{"title"},
	"additionalProperties": false,
}}

func TestOpenAICompleteSendsChatCompletion(t *testing.T) {
	srv := newFake(t, func(w http.ResponseWriter, r *http.Request, _ int) { writeJSON(w, 200, openAICompletion) })
	p := providerAt(t, intelligence.ProviderOpenAI, srv.URL+"/v1")
	req := chatRequest
	req.MaxTokens = 300
	got, err := p.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != "Hello from the fake." || got.Model != "gpt-4o-mini-2024-07-18" {
		t.Errorf("completion = %+v", got)
	}
	if got.Usage != (intelligence.Usage{InputTokens: 19, OutputTokens: 5}) {
		t.Errorf("usage = %+v", got.Usage)
	}

	rec := srv.only(t)
	if rec.Method != "POST" || rec.Path != "/v1/chat/completions" {
		t.Errorf("request = %s %s", rec.Method, rec.Path)
	}
	if a := rec.Header.Get("Authorization"); a != "Bearer "+testKeys[intelligence.ProviderOpenAI] {
		t.Errorf("Authorization = %q", a)
	}
	if m := str(get(rec.Body, "model")); m != "gpt-4o-mini" {
		t.Errorf("model = %q", m)
	}
	wantRoles := []string{"system", "user", "assistant", "user"}
	for i, role := range wantRoles {
		if r := str(get(rec.Body, "messages", i, "role")); r != role {
			t.Errorf("messages[%d].role = %q, want %q", i, r, role)
		}
		if c := str(get(rec.Body, "messages", i, "content")); c != req.Messages[i].Content {
			t.Errorf("messages[%d].content = %q", i, c)
		}
	}
	if v := str(get(rec.Body, "max_completion_tokens")); v != "300" {
		t.Errorf("max_completion_tokens = %q", v)
	}
	for _, absent := range []string{"response_format", "stream", "max_tokens", "mode", "annotations"} {
		if _, ok := rec.Body[absent]; ok {
			t.Errorf("request has %q: %v", absent, rec.Body)
		}
	}
}

func TestOpenAIStructuredUsesJSONSchema(t *testing.T) {
	srv := newFake(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		writeJSON(w, 200, strings.Replace(openAICompletion, `"Hello from the fake."`, `"{\"title\":\"T\"}"`, 1))
	})
	p := providerAt(t, intelligence.ProviderOpenAI, srv.URL+"/v1")
	req := chatRequest
	req.Schema = draftSchema
	got, err := p.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != `{"title":"T"}` {
		t.Errorf("text = %q", got.Text)
	}
	rec := srv.only(t)
	if v := str(get(rec.Body, "response_format", "type")); v != "json_schema" {
		t.Fatalf("response_format.type = %q (%v)", v, rec.Body["response_format"])
	}
	if v := str(get(rec.Body, "response_format", "json_schema", "name")); v != "checkpoint_draft" {
		t.Errorf("json_schema.name = %q", v)
	}
	if v := get(rec.Body, "response_format", "json_schema", "strict"); v != false {
		t.Errorf("json_schema.strict = %v", v)
	}
	if v := str(get(rec.Body, "response_format", "json_schema", "schema", "properties", "title", "type")); v != "string" {
		t.Errorf("schema not sent: %v", rec.Body["response_format"])
	}
}

func TestGenericUsesJSONObjectAndPlaceholderKey(t *testing.T) {
	srv := newFake(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		writeJSON(w, 200, strings.Replace(openAICompletion, `"Hello from the fake."`, `"{}"`, 1))
	})
	cfg := &Config{Providers: map[string]ProviderConfig{intelligence.ProviderGeneric: {BaseURL: srv.URL + "/v1", DefaultModel: "llama3.1:8b"}}}
	p, err := New(cfg).Provider(intelligence.ProviderGeneric)
	if err != nil {
		t.Fatal(err)
	}
	req := chatRequest
	req.Model = "" // the generic default model applies
	req.Schema = draftSchema
	req.MaxTokens = 100
	if _, err := p.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	rec := srv.only(t)
	if a := rec.Header.Get("Authorization"); a != "Bearer not-required" {
		t.Errorf("Authorization = %q", a)
	}
	if v := str(get(rec.Body, "model")); v != "llama3.1:8b" {
		t.Errorf("model = %q", v)
	}
	if v := str(get(rec.Body, "response_format", "type")); v != "json_object" {
		t.Errorf("response_format.type = %q", v)
	}
	if v := str(get(rec.Body, "max_tokens")); v != "100" {
		t.Errorf("max_tokens = %q", v)
	}
	first := str(get(rec.Body, "messages", 0, "content"))
	if str(get(rec.Body, "messages", 0, "role")) != "system" || !strings.Contains(first, "JSON Schema") || !strings.Contains(first, `"title"`) {
		t.Errorf("schema instruction missing: %q", first)
	}
}

func TestOpenRouterUsesItsBaseURLAndKey(t *testing.T) {
	srv := newFake(t, func(w http.ResponseWriter, r *http.Request, _ int) { writeJSON(w, 200, openAICompletion) })
	p := providerAt(t, intelligence.ProviderOpenRouter, srv.URL+"/api/v1")
	if p.Name() != intelligence.ProviderOpenRouter {
		t.Errorf("name = %q", p.Name())
	}
	if _, err := p.Complete(context.Background(), chatRequest); err != nil {
		t.Fatal(err)
	}
	rec := srv.only(t)
	if rec.Path != "/api/v1/chat/completions" || rec.Header.Get("Authorization") != "Bearer "+testKeys[intelligence.ProviderOpenRouter] {
		t.Errorf("request = %s, auth %q", rec.Path, rec.Header.Get("Authorization"))
	}
}

func TestOpenAIStreamStopsWhenOnDeltaFails(t *testing.T) {
	srv := newFake(t, func(w http.ResponseWriter, r *http.Request, _ int) { writeSSE(w, openAIStream...) })
	p := providerAt(t, intelligence.ProviderOpenAI, srv.URL+"/v1")
	stop := errors.New("client went away")
	calls := 0
	_, err := p.Stream(context.Background(), chatRequest, func(string) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("err = %v after %d deltas, want the onDelta error after 1", err, calls)
	}
}

// The error bodies are OpenAI's real shapes; the 401 one echoes part of the
// key the way OpenAI does, and the 400 one the whole key, which must not
// reach the user.
func TestOpenAIErrorsNameProviderAndStatus(t *testing.T) {
	key := testKeys[intelligence.ProviderOpenAI]
	cases := []struct {
		name   string
		status int
		body   string
		want   []string
	}{
		{"BadRequestEchoingKey", 400,
			`{"error":{"message":"Invalid value for 'model' with key ` + key + `.","type":"invalid_request_error","param":"model","code":null}}`,
			[]string{"openai returned 400 Bad Request: Invalid value for 'model'", redacted}},
		{"Unauthorized", 401,
			`{"error":{"message":"Incorrect API key provided: sk-test-**********cdef. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
			[]string{"openai returned 401 Unauthorized: Incorrect API key provided"}},
		{"RateLimited", 429,
			`{"error":{"message":"Rate limit reached for gpt-4o-mini in organization org-x on requests per min (RPM): Limit 3, Used 3, Requested 1.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
			[]string{"openai returned 429 Too Many Requests: Rate limit reached"}},
		{"ServerError", 500,
			`{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}`,
			[]string{"openai returned 500 Internal Server Error: The server had an error"}},
		{"HTMLGateway", 502, `<html><body><h1>502 Bad Gateway</h1></body></html>`,
			[]string{"openai returned 502 Bad Gateway"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFake(t, func(w http.ResponseWriter, r *http.Request, _ int) { writeJSON(w, tc.status, tc.body) })
			p := providerAt(t, intelligence.ProviderOpenAI, srv.URL+"/v1", WithRetryPolicy(RetryPolicy{MaxRetries: 0}))
			_, err := p.Complete(context.Background(), chatRequest)
			assertUpstream(t, err, tc.want...)
			_, err = p.Stream(context.Background(), chatRequest, func(string) error { return nil })
			assertUpstream(t, err, tc.want...)
		})
	}
}

func TestOpenAIStreamRetriesBeforeFirstDelta(t *testing.T) {
	srv := newFake(t, func(w http.ResponseWriter, r *http.Request, attempt int) {
		if attempt == 0 {
			writeJSON(w, 503, `{"error":{"message":"overloaded","type":"server_error","param":null,"code":null}}`)
			return
		}
		writeSSE(w, openAIStream...)
	})
	p := providerAt(t, intelligence.ProviderOpenAI, srv.URL+"/v1")
	got, err := p.Stream(context.Background(), chatRequest, func(string) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != "Hello, world." || len(srv.requests()) != 2 {
		t.Errorf("text %q after %d requests", got.Text, len(srv.requests()))
	}
}

func TestOpenAIGivesUpAfterMaxRetries(t *testing.T) {
	srv := newFake(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		writeJSON(w, 500, `{"error":{"message":"boom","type":"server_error","param":null,"code":null}}`)
	})
	p := providerAt(t, intelligence.ProviderOpenAI, srv.URL+"/v1")
	_, err := p.Complete(context.Background(), chatRequest)
	assertUpstream(t, err, "openai returned 500 Internal Server Error: boom (after 3 attempts)")
	if n := len(srv.requests()); n != 3 {
		t.Errorf("server got %d requests, want 1 + 2 retries", n)
	}
}

func TestOpenAIDoesNotRetryClientErrors(t *testing.T) {
	srv := newFake(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		writeJSON(w, 400, `{"error":{"message":"bad","type":"invalid_request_error","param":null,"code":null}}`)
	})
	p := providerAt(t, intelligence.ProviderOpenAI, srv.URL+"/v1")
	_, err := p.Complete(context.Background(), chatRequest)
	assertUpstream(t, err, "400")
	if n := len(srv.requests()); n != 1 {
		t.Errorf("server got %d requests, want 1", n)
	}
}

func TestOpenAINoChoices(t *testing.T) {
	srv := newFake(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		writeJSON(w, 200, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[]}`)
	})
	p := providerAt(t, intelligence.ProviderOpenAI, srv.URL+"/v1")
	_, err := p.Complete(context.Background(), chatRequest)
	assertUpstream(t, err, "openai returned no choices")
}

func TestOpenAIUnreachable(t *testing.T) {
	srv := newFake(t, func(w http.ResponseWriter, r *http.Request, _ int) {})
	url := srv.URL
	srv.Close()
	p := providerAt(t, intelligence.ProviderOpenAI, url+"/v1")
	_, err := p.Complete(context.Background(), chatRequest)
	assertUpstream(t, err, "could not reach openai")
	if strings.Contains(err.Error(), url) {
		t.Errorf("error names the base URL: %v", err)
	}
}
