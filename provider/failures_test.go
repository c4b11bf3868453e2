package provider

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"smriti/intelligence"
	"strings"
	"testing"
	"time"
)

// The adapters' failure handling, one table over the providers: each row
// replays that provider's own wire format.

// call runs a completion or a stream, as a row asks.
func call(ctx context.Context, p intelligence.Provider, stream bool, onDelta func(string) error) (*intelligence.Completion, error) {
	if stream {
		return p.Stream(ctx, chatRequest, onDelta)
	}
	return p.Complete(ctx, chatRequest)
}

func TestRetriesAfterRetryAfter(t *testing.T) {
	for _, tt := range []struct {
		provider, path string
		stream         bool
		limited        string // the 429 body
		answer         func(w http.ResponseWriter)
		text           string
	}{
		{intelligence.ProviderOpenAI, "/v1", false,
			`{"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
			func(w http.ResponseWriter) { writeJSON(w, 200, openAICompletion) }, "Hello from the fake."},
		{intelligence.ProviderAnthropic, "", true,
			`{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`,
			func(w http.ResponseWriter) { writeSSE(w, anthropicTextStream...) }, "Hello from Claude."},
	} {
		t.Run(tt.provider, func(t *testing.T) {
			srv := newFake(t, func(w http.ResponseWriter, r *http.Request, attempt int) {
				if attempt == 0 {
					w.Header().Set("retry-after", "1")
					writeJSON(w, 429, tt.limited)
					return
				}
				tt.answer(w)
			})
			p := providerAt(t, tt.provider, srv.URL+tt.path)
			start := time.Now()
			got, err := call(context.Background(), p, tt.stream, func(string) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			if elapsed := time.Since(start); elapsed < 900*time.Millisecond {
				t.Errorf("retried after %v, want retry-after's 1s honoured", elapsed)
			}
			if got.Text != tt.text {
				t.Errorf("text = %q, want %q", got.Text, tt.text)
			}
			reqs := srv.requests()
			if len(reqs) != 2 {
				t.Fatalf("server got %d requests, want 2", len(reqs))
			}
			if !reflect.DeepEqual(reqs[0].Body, reqs[1].Body) {
				t.Errorf("retry sent a different body:\n%v\nfirst was\n%v", reqs[1].Body, reqs[0].Body)
			}
		})
	}
}

func TestTimesOutWhenServerNeverAnswers(t *testing.T) {
	for _, tt := range []struct {
		provider, path string
		stream         bool
	}{
		{intelligence.ProviderOpenAI, "/v1", false},
		{intelligence.ProviderAnthropic, "", true},
	} {
		t.Run(tt.provider, func(t *testing.T) {
			release := make(chan struct{})
			srv := newFake(t, func(w http.ResponseWriter, r *http.Request, _ int) {
				select {
				case <-r.Context().Done():
				case <-release:
				}
			})
			t.Cleanup(func() { close(release) })
			p := providerAt(t, tt.provider, srv.URL+tt.path, WithTimeout(250*time.Millisecond))
			start := time.Now()
			_, err := call(context.Background(), p, tt.stream, func(string) error { return nil })
			assertUpstream(t, err, tt.provider+" did not answer within 250ms")
			if elapsed := time.Since(start); elapsed > 5*time.Second {
				t.Errorf("timeout took %v", elapsed)
			}
			if outcome(err) != "timeout" {
				t.Errorf("outcome = %q", outcome(err))
			}
		})
	}
}

func TestMalformedBody(t *testing.T) {
	for _, tt := range []struct {
		provider, path, body string
	}{
		{intelligence.ProviderOpenAI, "/v1", `{"id":"chatcmpl-1","choices":[{"index":0,"message":{"role":"assistant","content":"tru`},
		{intelligence.ProviderAnthropic, "", `{"id":"msg_1","type":"message","content":[{"type":"text","text":"unterminated`},
	} {
		t.Run(tt.provider, func(t *testing.T) {
			srv := newFake(t, func(w http.ResponseWriter, r *http.Request, _ int) { writeJSON(w, 200, tt.body) })
			p := providerAt(t, tt.provider, srv.URL+tt.path)
			_, err := p.Complete(context.Background(), chatRequest)
			assertUpstream(t, err, tt.provider+" returned a malformed response")
		})
	}
}

func TestCancelledMidStream(t *testing.T) {
	for _, tt := range []struct {
		provider, path string
		events         []string // the start of a stream that then stalls
	}{
		{intelligence.ProviderOpenAI, "/v1", openAIStream[:2]},
		{intelligence.ProviderAnthropic, "", anthropicTextStream[:4]},
	} {
		t.Run(tt.provider, func(t *testing.T) {
			release := make(chan struct{})
			srv := newFake(t, func(w http.ResponseWriter, r *http.Request, _ int) {
				writeSSE(w, tt.events...)
				select {
				case <-r.Context().Done():
				case <-release:
				}
			})
			t.Cleanup(func() { close(release) })
			p := providerAt(t, tt.provider, srv.URL+tt.path)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			start := time.Now()
			_, err := p.Stream(ctx, chatRequest, func(string) error { cancel(); return nil })
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled in the chain", err)
			}
			assertUpstream(t, err, tt.provider+" call stopped")
			if elapsed := time.Since(start); elapsed > 5*time.Second {
				t.Errorf("cancellation took %v", elapsed)
			}
			if outcome(err) != "canceled" {
				t.Errorf("outcome = %q", outcome(err))
			}
			if n := len(srv.requests()); n != 1 {
				t.Errorf("a cancelled stream was retried: %d requests", n)
			}
		})
	}
}

// A provider can fail after its stream has started: OpenAI with a data
// event carrying an error object, Anthropic with an error event. The
// stream is not retried, and the error names neither the URL nor a key.
func TestErrorEventMidStream(t *testing.T) {
	for _, tt := range []struct {
		provider, path string
		events         []string
		want           string
	}{
		{intelligence.ProviderOpenAI, "/v1", []string{openAIStream[0], openAIStream[1],
			`data: {"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}`},
			"openai failed mid-stream: The server had an error"},
		{intelligence.ProviderAnthropic, "", append(anthropicTextStream[:4:4],
			sse("error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)),
			"anthropic failed mid-stream: Overloaded"},
	} {
		t.Run(tt.provider, func(t *testing.T) {
			srv := newFake(t, func(w http.ResponseWriter, r *http.Request, _ int) { writeSSE(w, tt.events...) })
			p := providerAt(t, tt.provider, srv.URL+tt.path)
			var deltas []string
			_, err := p.Stream(context.Background(), chatRequest, func(s string) error { deltas = append(deltas, s); return nil })
			assertUpstream(t, err, tt.want)
			if strings.Contains(err.Error(), srv.URL) {
				t.Errorf("error names the URL: %v", err)
			}
			if len(deltas) != 1 || len(srv.requests()) != 1 {
				t.Errorf("deltas %q, %d requests: a started stream must not be retried", deltas, len(srv.requests()))
			}
		})
	}
}
