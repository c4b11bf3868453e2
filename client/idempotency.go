package client

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"smriti"
)

type keyCtx struct{}

// WithIdempotencyKey returns ctx whose requests carry key as their
// Idempotency-Key: a creating write (checkpoint commit, fork, claim, note,
// merge, import) sent again with it returns the first answer without
// writing again.
func WithIdempotencyKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, keyCtx{}, key)
}

// idempotencyKey returns the key ctx carries, "" when none.
func idempotencyKey(ctx context.Context) string {
	k, _ := ctx.Value(keyCtx{}).(string)
	return k
}

// writeAttempts bounds how often a keyed write is sent; maxRetryWait caps
// the wait a Retry-After asks for between two of them.
const (
	writeAttempts = 3
	maxRetryWait  = 5 * time.Second
)

// keyed returns ctx with the write's idempotency key: the one ctx carries,
// else a new one when AutoIdempotencyKeys is set. ok is false when the
// write goes without a key.
func (c *Client) keyed(ctx context.Context) (context.Context, bool) {
	if idempotencyKey(ctx) != "" {
		return ctx, true
	}
	if !c.AutoIdempotencyKeys {
		return ctx, false
	}
	return WithIdempotencyKey(ctx, smriti.NewID().String()), true
}

// write POSTs a creating write with a JSON body. With an idempotency key it
// is sent again, with the same key, after a network error, a 503 with
// Retry-After, or a 409 "in progress" with Retry-After, up to
// writeAttempts times: the server answers a repeat with the first
// answer, so a retry never writes twice.
func (c *Client) write(ctx context.Context, path string, body, out any) error {
	ctx, keyed := c.keyed(ctx)
	for attempt := 1; ; attempt++ {
		resp, err := c.Do(ctx, http.MethodPost, path, body, out)
		if !keyed || !c.again(ctx, resp, err, attempt) {
			return err
		}
	}
}

// writeFile is write for a file body (an import). The body is sent again
// only when it can be rewound.
func (c *Client) writeFile(ctx context.Context, path string, body io.Reader, contentType string, out any) error {
	ctx, keyed := c.keyed(ctx)
	seeker, rewinds := body.(io.Seeker)
	for attempt := 1; ; attempt++ {
		resp, err := c.streamResp(ctx, http.MethodPost, path, body, contentType, out)
		if !keyed || !rewinds || !c.again(ctx, resp, err, attempt) {
			return err
		}
		if _, serr := seeker.Seek(0, io.SeekStart); serr != nil {
			return err
		}
	}
}

// again reports, after waiting, whether a keyed write that failed with err
// should be sent once more.
func (c *Client) again(ctx context.Context, resp *http.Response, err error, attempt int) bool {
	if err == nil || attempt >= writeAttempts || ctx.Err() != nil {
		return false
	}
	var wait time.Duration
	switch {
	case resp == nil:
		// No answer: the request may or may not have arrived.
		var e *smriti.Error
		if !errors.As(err, &e) || e.Code != smriti.EUNAVAILABLE {
			return false
		}
		wait = time.Duration(attempt) * 500 * time.Millisecond
	case resp.StatusCode < http.StatusBadRequest:
		// The answer broke off: the write may be stored, and the key finds it.
		wait = time.Duration(attempt) * 500 * time.Millisecond
	case resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusConflict:
		secs, perr := strconv.Atoi(resp.Header.Get("Retry-After"))
		if perr != nil || secs < 0 {
			return false
		}
		wait = min(time.Duration(secs)*time.Second, maxRetryWait)
	default:
		return false
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
