package provider

import (
	"context"
	"encoding/json"
	"net/http"
	"smriti/intelligence"
	"strings"
	"testing"
)

const anthropicMessage = `{
  "id": "msg_013Zva2CMHLNnXjNJJKqJ2EF",
  "type": "message",
  "role": "assistant",
  "model": "claude-sonnet-4-5-20250929",
  "content": [{"type": "text", "text": "Hello from Claude."}],
  "stop_reason": "end_turn",
  "stop_sequence": null,
  "usage": {"input_tokens": 25, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 6, "service_tier": "standard"}
}`

const anthropicToolUse = `{
  "id": "msg_01Aq9w938a90dw8q",
  "type": "message",
  "role": "assistant",
  "model": "claude-sonnet-4-5-20250929",
  "content": [{"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "checkpoint_draft", "input": {"title": "Pick SQLite", "decisions": ["Use WAL"]}}],
  "stop_reason": "tool_use",
  "stop_sequence": null,
  "usage": {"input_tokens": 410, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 40}
}`

func sse(event, data string) string { return "event: " + event + "\ndata: " + data }

var anthropicTextStream = []string{
	sse("message_start", `{"type":"message_start","message":{"id":"msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5-20250929","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}`),
	sse("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
	sse("ping", `{"type": "ping"}`),
	sse("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`),
	sse("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" from Claude."}}`),
	sse("content_block_stop", `{"type":"content_block_stop","index":0}`),
	sse("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":15}}`),
	sse("message_stop", `{"type":"message_stop"}`),
}

var anthropicToolStream = []string{
	sse("message_start", `{"type":"message_start","message":{"id":"msg_2","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5-20250929","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":400,"output_tokens":1}}}`),
	sse("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_01T1x1fJ34qAmk2tNTrN7Up6","name":"checkpoint_draft","input":{}}}`),
	sse("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":""}}`),
	sse("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"title\": \"Pick"}}`),
	sse("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":" SQLite\"}"}}`),
	sse("content_block_stop", `{"type":"content_block_stop","index":0}`),
	sse("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":22}}`),
	sse("message_stop", `{"type":"message_stop"}`),
}

func TestAnthropicCompleteSendsMessages(t *testing.T) {
	srv := newFake(t, func(w http.ResponseWriter, r *http.Request, _ int) { writeJSON(w, 200, anthropicMessage) })
	p := providerAt(t, intelligence.ProviderAnthropic, srv.URL)
	req := chatRequest
	req.Model = "claude-sonnet-4-5"
	req.Messages = append([]intelligence.Message{{Role: "system", Content: "Context first."}}, req.Messages...)
	got, err := p.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != "Hello from Claude." || got.Model != "claude-sonnet-4-5-20250929" {
		t.Errorf("completion = %+v", got)
	}
	if got.Usage != (intelligence.Usage{InputTokens: 25, OutputTokens: 6}) {
		t.Errorf("usage = %+v", got.Usage)
	}

	rec := srv.only(t)
	if rec.Method != "POST" || rec.Path != "/v1/messages" {
		t.Errorf("request = %s %s", rec.Method, rec.Path)
	}
	if k := rec.Header.Get("X-Api-Key"); k != testKeys[intelligence.ProviderAnthropic] {
		t.Errorf("x-api-key = %q", k)
	}
	if rec.Header.Get("Anthropic-Version") == "" {
		t.Error("anthropic-version header missing")
	}
	if m := str(get(rec.Body, "model")); m != "claude-sonnet-4-5" {
		t.Errorf("model = %q", m)
	}
	if v := str(get(rec.Body, "max_tokens")); v != "4096" {
		t.Errorf("max_tokens = %q, want the 4096 default", v)
	}
	if s := str(get(rec.Body, "system", 0, "text")); s != "Context first.\nYou are terse." {
		t.Errorf("system = %q, want both system messages joined", s)
	}
	msgs, _ := get(rec.Body, "messages").([]any)
	if len(msgs) != 3 {
		t.Fatalf("messages = %v, want the 3 non-system ones", msgs)
	}
	for i, role := range []string{"user", "assistant", "user"} {
		if r := str(get(msgs, i, "role")); r != role {
			t.Errorf("messages[%d].role = %q", i, r)
		}
	}
	if c := str(get(msgs, 2, "content", 0, "text")); c != "Say hello to the world." {
		t.Errorf("last message = %q", c)
	}
	for _, absent := range []string{"tools", "tool_choice", "response_format", "stream"} {
		if _, ok := rec.Body[absent]; ok {
			t.Errorf("request has %q", absent)
		}
	}
}

// Structured output goes through a forced tool call, never response_format
// (which the Messages API rejects: the first implementation's bug).
func TestAnthropicStructuredUsesForcedToolCall(t *testing.T) {
	srv := newFake(t, func(w http.ResponseWriter, r *http.Request, _ int) { writeJSON(w, 200, anthropicToolUse) })
	p := providerAt(t, intelligence.ProviderAnthropic, srv.URL)
	req := chatRequest
	req.Model = "claude-sonnet-4-5"
	req.Schema = draftSchema
	req.MaxTokens = 1000
	got, err := p.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(got.Text), &v); err != nil || v["title"] != "Pick SQLite" {
		t.Errorf("text = %q (%v), want the tool input", got.Text, err)
	}
	rec := srv.only(t)
	if _, ok := rec.Body["response_format"]; ok {
		t.Error("response_format sent to Anthropic")
	}
	if v := str(get(rec.Body, "max_tokens")); v != "1000" {
		t.Errorf("max_tokens = %q", v)
	}
	if v := str(get(rec.Body, "tools", 0, "name")); v != "checkpoint_draft" {
		t.Errorf("tools[0].name = %q", v)
	}
	schema := get(rec.Body, "tools", 0, "input_schema")
	if str(get(schema, "type")) != "object" || str(get(schema, "properties", "title", "type")) != "string" ||
		str(get(schema, "required", 0)) != "title" || get(schema, "additionalProperties") != false {
		t.Errorf("input_schema = %v", schema)
	}
	if str(get(rec.Body, "tool_choice", "type")) != "tool" || str(get(rec.Body, "tool_choice", "name")) != "checkpoint_draft" {
		t.Errorf("tool_choice = %v", rec.Body["tool_choice"])
	}
}

func TestAnthropicStreamStructured(t *testing.T) {
	srv := newFake(t, func(w http.ResponseWriter, r *http.Request, _ int) { writeSSE(w, anthropicToolStream...) })
	p := providerAt(t, intelligence.ProviderAnthropic, srv.URL)
	req := chatRequest
	req.Schema = draftSchema
	var streamed strings.Builder
	got, err := p.Stream(context.Background(), req, func(s string) error { streamed.WriteString(s); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != `{"title": "Pick SQLite"}` || streamed.String() != got.Text {
		t.Errorf("text = %q, streamed %q", got.Text, streamed.String())
	}
	if got.Usage != (intelligence.Usage{InputTokens: 400, OutputTokens: 22}) {
		t.Errorf("usage = %+v", got.Usage)
	}
}

func TestAnthropicErrors(t *testing.T) {
	key := testKeys[intelligence.ProviderAnthropic]
	cases := []struct {
		name   string
		status int
		body   string
		want   []string
	}{
		{"BadRequest", 400,
			`{"type":"error","error":{"type":"invalid_request_error","message":"messages: at least one message is required"},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"}`,
			[]string{"anthropic returned 400 Bad Request: messages: at least one message is required"}},
		{"UnauthorizedEchoingKey", 401,
			`{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key ` + key + `"}}`,
			[]string{"anthropic returned 401 Unauthorized: invalid x-api-key", redacted}},
		{"RateLimited", 429,
			`{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`,
			[]string{"anthropic returned 429 Too Many Requests: Number of request tokens"}},
		{"ServerError", 500,
			`{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`,
			[]string{"anthropic returned 500 Internal Server Error: Internal server error"}},
		{"Overloaded", 529,
			`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
			[]string{"anthropic returned 529: Overloaded"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFake(t, func(w http.ResponseWriter, r *http.Request, _ int) { writeJSON(w, tc.status, tc.body) })
			p := providerAt(t, intelligence.ProviderAnthropic, srv.URL, WithRetryPolicy(RetryPolicy{MaxRetries: 0}))
			_, err := p.Complete(context.Background(), chatRequest)
			assertUpstream(t, err, tc.want...)
			_, err = p.Stream(context.Background(), chatRequest, func(string) error { return nil })
			assertUpstream(t, err, tc.want...)
		})
	}
}
