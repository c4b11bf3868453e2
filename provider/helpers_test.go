package provider

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"smriti/intelligence"
	"strings"
	"sync"
	"testing"
	"time"

	"smriti"
)

// Keys the fake servers expect; tests assert they never leak.
var testKeys = map[string]string{
	intelligence.ProviderOpenAI:     "sk-test-openai-0123456789abcdef",
	intelligence.ProviderAnthropic:  "sk-ant-test-0123456789abcdef",
	intelligence.ProviderOpenRouter: "sk-or-v1-test-0123456789abcdef",
	intelligence.ProviderGeneric:    "generic-secret-0123456789",
}

// received is one request as the fake server saw it.
type received struct {
	Method string
	Path   string
	Header http.Header
	Body   map[string]any
}

// fakeServer replays a provider's wire format. handle gets the attempt
// number (0 for the first request).
type fakeServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []received
}

func newFake(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, attempt int)) *fakeServer {
	t.Helper()
	f := &fakeServer{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		rec := received{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone()}
		if len(data) > 0 {
			if err := json.Unmarshal(data, &rec.Body); err != nil {
				t.Errorf("request body is not JSON: %v: %s", err, data)
			}
		}
		f.mu.Lock()
		f.reqs = append(f.reqs, rec)
		n := len(f.reqs) - 1
		f.mu.Unlock()
		handle(w, r, n)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeServer) requests() []received {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]received(nil), f.reqs...)
}

func (f *fakeServer) only(t *testing.T) received {
	t.Helper()
	reqs := f.requests()
	if len(reqs) != 1 {
		t.Fatalf("server got %d requests, want 1", len(reqs))
	}
	return reqs[0]
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// writeSSE writes each event (already framed, without the blank line) and
// flushes, as a streaming provider does.
func writeSSE(w http.ResponseWriter, events ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	for _, e := range events {
		_, _ = io.WriteString(w, e+"\n\n")
		w.(http.Flusher).Flush()
	}
}

// fastRetries keeps retry tests quick; retry-after still applies.
var fastRetries = RetryPolicy{MaxRetries: 2, BaseDelay: 5 * time.Millisecond, MaxDelay: 20 * time.Millisecond, MaxRetryAfter: 5 * time.Second}

// providerAt returns the named provider configured against baseURL.
func providerAt(t *testing.T, name, baseURL string, opts ...Option) intelligence.Provider {
	t.Helper()
	cfg := &Config{Providers: map[string]ProviderConfig{
		name: {APIKey: Secret(testKeys[name]), BaseURL: baseURL, DefaultModel: "default-" + name},
	}}
	base := []Option{WithTimeout(10 * time.Second), WithRetryPolicy(fastRetries)}
	p, err := New(cfg, append(base, opts...)...).Provider(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// assertUpstream checks err is EUPSTREAM, contains every want, and leaks no
// test key.
func assertUpstream(t *testing.T, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatal("want an error, got nil")
	}
	if code := smriti.ErrorCode(err); code != smriti.EUPSTREAM {
		t.Errorf("code = %q, want %q (err: %v)", code, smriti.EUPSTREAM, err)
	}
	msg := err.Error()
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not contain %q", msg, w)
		}
	}
	assertNoKey(t, msg)
}

func assertNoKey(t *testing.T, s string) {
	t.Helper()
	for name, k := range testKeys {
		if strings.Contains(s, k) {
			t.Errorf("%s key leaked in %q", name, s)
		}
	}
}

// get walks a decoded JSON body: get(body, "response_format", "type").
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func str(v any) string {
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}
