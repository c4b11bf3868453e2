package provider

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 4, 12, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		name    string
		headers map[string]string
		want    time.Duration
		ok      bool
	}{
		{"Seconds", map[string]string{"Retry-After": "2"}, 2 * time.Second, true},
		{"FractionalSeconds", map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond, true},
		{"Milliseconds", map[string]string{"Retry-After-Ms": "250"}, 250 * time.Millisecond, true},
		{"MillisecondsPreferred", map[string]string{"Retry-After-Ms": "250", "Retry-After": "9"}, 250 * time.Millisecond, true},
		{"HTTPDate", map[string]string{"Retry-After": now.Add(3 * time.Second).Format(http.TimeFormat)}, 3 * time.Second, true},
		{"PastDate", map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0, true},
		{"Garbage", map[string]string{"Retry-After": "soon"}, 0, false},
		{"Negative", map[string]string{"Retry-After": "-3"}, 0, false},
		{"Absent", nil, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tc.headers {
				h.Set(k, v)
			}
			got, ok := parseRetryAfter(h, now)
			if got != tc.want || ok != tc.ok {
				t.Errorf("parseRetryAfter = %v, %v; want %v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestBackoffGrowsWithJitterAndCap(t *testing.T) {
	tr := &retryTransport{policy: RetryPolicy{BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}}
	for attempt, full := range []time.Duration{100, 200, 400, 800, 1000, 1000} {
		full *= time.Millisecond
		for range 50 {
			d := tr.backoff(attempt)
			if d < full*3/4 || d > full {
				t.Fatalf("backoff(%d) = %v, want within [%v, %v]", attempt, d, full*3/4, full)
			}
		}
	}
	if d := tr.backoff(100); d > time.Second || d <= 0 {
		t.Errorf("backoff(100) = %v", d)
	}
}

// stubTransport answers from a script and records the bodies it was sent.
type stubTransport struct {
	mu     sync.Mutex
	script []func() (*http.Response, error)
	bodies []string
}

func (s *stubTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if req.Body != nil {
		b, _ := io.ReadAll(req.Body)
		s.bodies = append(s.bodies, string(b))
	}
	n := len(s.bodies) - 1
	if n >= len(s.script) {
		n = len(s.script) - 1
	}
	return s.script[n]()
}

func stubReply(status int, headers ...string) func() (*http.Response, error) {
	return func() (*http.Response, error) {
		h := http.Header{}
		for i := 0; i+1 < len(headers); i += 2 {
			h.Set(headers[i], headers[i+1])
		}
		return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(strings.NewReader(`{"error":{"message":"m"}}`))}, nil
	}
}

func dialFailure() (*http.Response, error) { return nil, errors.New("dial tcp: connection refused") }

func roundTrip(t *testing.T, stub *stubTransport, policy RetryPolicy, ctx context.Context) (*http.Response, error) {
	t.Helper()
	tr := &retryTransport{base: stub, policy: policy, log: slog.New(slog.DiscardHandler), provider: "test"}
	req, err := http.NewRequestWithContext(ctx, "POST", "http://provider.invalid/v1/x", strings.NewReader(`{"model":"m"}`))
	if err != nil {
		t.Fatal(err)
	}
	return tr.RoundTrip(req)
}

func TestRetryTransportDecisions(t *testing.T) {
	policy := RetryPolicy{MaxRetries: 2, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond, MaxRetryAfter: 20 * time.Millisecond}
	cases := []struct {
		name       string
		script     []func() (*http.Response, error)
		wantStatus int
		wantCalls  int
	}{
		{"SuccessFirstTime", []func() (*http.Response, error){stubReply(200)}, 200, 1},
		{"ServerErrorThenSuccess", []func() (*http.Response, error){stubReply(500), stubReply(502), stubReply(200)}, 200, 3},
		{"GivesUpAfterMaxRetries", []func() (*http.Response, error){stubReply(503)}, 503, 3},
		{"RequestTimeoutRetried", []func() (*http.Response, error){stubReply(408), stubReply(200)}, 200, 2},
		{"ConnectionErrorRetried", []func() (*http.Response, error){dialFailure, stubReply(200)}, 200, 2},
		{"ClientErrorNotRetried", []func() (*http.Response, error){stubReply(400), stubReply(200)}, 400, 1},
		{"ShouldRetryFalseWins", []func() (*http.Response, error){stubReply(500, "x-should-retry", "false"), stubReply(200)}, 500, 1},
		{"ShouldRetryTrueWins", []func() (*http.Response, error){stubReply(409, "x-should-retry", "true"), stubReply(200)}, 200, 2},
		// An hour's retry-after is capped at MaxRetryAfter (20ms here).
		{"RetryAfterCapped", []func() (*http.Response, error){stubReply(429, "retry-after", "3600"), stubReply(200)}, 200, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stub := &stubTransport{script: tc.script}
			start := time.Now()
			resp, err := roundTrip(t, stub, policy, context.Background())
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.wantStatus || len(stub.bodies) != tc.wantCalls {
				t.Errorf("status %d after %d calls, want %d after %d", resp.StatusCode, len(stub.bodies), tc.wantStatus, tc.wantCalls)
			}
			for i, b := range stub.bodies {
				if b != `{"model":"m"}` {
					t.Errorf("attempt %d sent body %q", i, b)
				}
			}
			if elapsed := time.Since(start); elapsed > 5*time.Second {
				t.Errorf("took %v", elapsed)
			}
		})
	}
}

func TestRetryTransportStopsWaitingWhenCancelled(t *testing.T) {
	stub := &stubTransport{script: []func() (*http.Response, error){stubReply(429, "retry-after", "30"), stubReply(200)}}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := roundTrip(t, stub, DefaultRetryPolicy, ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v", err)
	}
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("waited %v despite the cancelled context", elapsed)
	}
	if len(stub.bodies) != 1 {
		t.Errorf("%d attempts", len(stub.bodies))
	}
}

func TestUpstreamMessage(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"OpenAI", `{"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}`, "Rate limit reached"},
		{"Anthropic", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "Overloaded"},
		{"OpenRouter", `{"error":{"code":402,"message":"Insufficient credits","metadata":{}}}`, "Insufficient credits"},
		{"Ollama", `{"error":"model \"llama9\" not found, try pulling it first"}`, `model "llama9" not found, try pulling it first`},
		{"TopLevelMessage", `{"message":"nope"}`, "nope"},
		{"Detail", `{"detail":"Not Found"}`, "Not Found"},
		{"UnknownJSON", `{"what":1}`, ""},
		{"HTML", "<html><body>Bad gateway</body></html>", ""},
		{"PlainText", "upstream connect error\n or disconnect", "upstream connect error or disconnect"},
		{"Empty", "", ""},
	}
	for _, tc := range cases {
		if got := upstreamMessage([]byte(tc.body)); got != tc.want {
			t.Errorf("%s: upstreamMessage = %q, want %q", tc.name, got, tc.want)
		}
	}
	long := upstreamMessage([]byte(`{"error":{"message":"` + strings.Repeat("x", 1000) + `"}}`))
	if len([]rune(long)) != maxMessage+1 || !strings.HasSuffix(long, "…") {
		t.Errorf("long message not shortened: %d runes", len([]rune(long)))
	}
}

// Upstream errors sometimes echo the key they were sent; none may reach a
// user or a log.
func TestRedactSecrets(t *testing.T) {
	secrets := []string{"configured-key-123456", "short"}
	cases := []struct{ in, want string }{
		{"Incorrect API key provided: sk-proj-abc123DEF_456-x.", "Incorrect API key provided: sk-" + redacted + "."},
		{"key sk-ant-api03-AbC rejected", "key sk-" + redacted + " rejected"},
		{"token configured-key-123456 invalid", "token " + redacted + " invalid"},
		{"Authorization: Bearer abc.def.ghi, then", "Authorization: Bearer " + redacted + ", then"},
		{"a short word stays", "a short word stays"},
		{"task-list is not a key", "task-list is not a key"},
	}
	for _, tc := range cases {
		if got := redactSecrets(tc.in, secrets); got != tc.want {
			t.Errorf("redactSecrets(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
