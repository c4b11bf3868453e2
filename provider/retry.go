package provider

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// RetryPolicy says how provider calls are retried. Retries happen on
// connection errors, 408, 429 and 5xx, before any reply body is read, so a
// stream is only ever retried before its first delta.
type RetryPolicy struct {
	// MaxRetries is the number of retries after the first attempt.
	MaxRetries int
	// BaseDelay is the first backoff; each retry doubles it, up to MaxDelay,
	// with jitter.
	BaseDelay time.Duration
	MaxDelay  time.Duration
	// MaxRetryAfter caps the wait a retry-after (or retry-after-ms) header
	// asks for.
	MaxRetryAfter time.Duration
}

// DefaultRetryPolicy is two retries, backoff from 500ms to 8s, and
// retry-after honoured up to 30s.
var DefaultRetryPolicy = RetryPolicy{
	MaxRetries:    2,
	BaseDelay:     500 * time.Millisecond,
	MaxDelay:      8 * time.Second,
	MaxRetryAfter: 30 * time.Second,
}

// retryTransport is the one retry loop both SDKs use (their own retries are
// switched off), so openai, anthropic, openrouter and generic back off the
// same way. It sits below the SDK, where it sees the raw status and headers
// whatever the SDK makes of the body. It also records the last error reply
// in the call's trace, so errors can name the upstream status and message
// even when the SDK cannot decode the body.
type retryTransport struct {
	base     http.RoundTripper
	policy   RetryPolicy
	log      *slog.Logger
	provider string
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	tr := traceFrom(ctx)
	for attempt := 0; ; attempt++ {
		r := req
		if attempt > 0 {
			r = req.Clone(ctx)
			if req.Body != nil && req.Body != http.NoBody {
				body, err := req.GetBody()
				if err != nil {
					return nil, err
				}
				r.Body = body
			}
		}
		resp, err := t.base.RoundTrip(r)
		tr.attempt()
		wait, retry := t.retryAfter(ctx, req, resp, err, attempt)
		if !retry {
			if err == nil && resp.StatusCode >= 400 {
				tr.capture(resp)
			}
			return resp, err
		}
		status := 0
		if resp != nil {
			status = resp.StatusCode
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			_ = resp.Body.Close()
		}
		t.log.LogAttrs(ctx, slog.LevelWarn, "provider call retrying",
			slog.String("provider", t.provider), slog.Int("status", status),
			slog.Int("retry", attempt+1), slog.Duration("wait", wait))
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, ctx.Err()
		case <-timer.C:
		}
	}
}

// retryAfter reports whether the attempt should be retried and after how
// long.
func (t *retryTransport) retryAfter(ctx context.Context, req *http.Request, resp *http.Response, err error, attempt int) (time.Duration, bool) {
	if attempt >= t.policy.MaxRetries || ctx.Err() != nil {
		return 0, false
	}
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		return 0, false // the body cannot be sent again
	}
	if err != nil {
		return t.backoff(attempt), true
	}
	switch resp.Header.Get("x-should-retry") {
	case "true":
		return t.wait(resp, attempt), true
	case "false":
		return 0, false
	}
	if s := resp.StatusCode; s == http.StatusRequestTimeout || s == http.StatusTooManyRequests || s >= 500 {
		return t.wait(resp, attempt), true
	}
	return 0, false
}

func (t *retryTransport) wait(resp *http.Response, attempt int) time.Duration {
	if d, ok := parseRetryAfter(resp.Header, time.Now()); ok {
		return min(d, t.policy.MaxRetryAfter)
	}
	return t.backoff(attempt)
}

// backoff is BaseDelay·2^attempt capped at MaxDelay, jittered down by up to
// a quarter so that clients that failed together do not retry together.
func (t *retryTransport) backoff(attempt int) time.Duration {
	d := t.policy.BaseDelay << min(attempt, 30)
	if d <= 0 || d > t.policy.MaxDelay {
		d = t.policy.MaxDelay
	}
	return d - time.Duration(rand.Int64N(int64(d)/4+1))
}

// parseRetryAfter reads retry-after-ms (milliseconds) or retry-after
// (seconds, or an HTTP date). Negative waits count as zero.
func parseRetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && ms < 1e12 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("retry-after"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s < 0 || s > 1e9 {
			return 0, false
		}
		return time.Duration(s * float64(time.Second)), true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(at.Sub(now), 0), true
	}
	return 0, false
}

// callTrace records what the transport saw during one provider call.
type callTrace struct {
	mu       sync.Mutex
	attempts int
	status   int
	body     []byte
}

type traceKey struct{}

func withTrace(ctx context.Context) (context.Context, *callTrace) {
	tr := &callTrace{}
	return context.WithValue(ctx, traceKey{}, tr), tr
}

func traceFrom(ctx context.Context) *callTrace {
	tr, _ := ctx.Value(traceKey{}).(*callTrace)
	return tr
}

func (tr *callTrace) attempt() {
	if tr == nil {
		return
	}
	tr.mu.Lock()
	tr.attempts++
	tr.mu.Unlock()
}

// maxErrorBody bounds how much of an error reply is kept for the message.
const maxErrorBody = 16 << 10

// capture records an error reply's status and the start of its body, and
// puts the body back for the SDK to decode.
func (tr *callTrace) capture(resp *http.Response) {
	if tr == nil {
		return
	}
	head, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.status = resp.StatusCode
	if err == nil || errors.Is(err, io.EOF) {
		tr.body = head
	}
}

func (tr *callTrace) result() (attempts, status int, body []byte) {
	if tr == nil {
		return 0, 0, nil
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.attempts, tr.status, tr.body
}
