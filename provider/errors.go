package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"smriti"
)

// errCallTimeout is the cause of a call's context when its own timeout, not
// the caller's, ends it.
var errCallTimeout = errors.New("provider call timed out")

// caller runs one provider call: it applies the timeout, carries the trace
// the retry transport fills in, and turns whatever went wrong into an
// EUPSTREAM error that names the provider and never a key.
type caller struct {
	provider string
	timeout  time.Duration
	secrets  []string
}

func (c *caller) run(ctx context.Context, fn func(ctx context.Context) error) error {
	callCtx, cancel := ctx, context.CancelFunc(func() {})
	if c.timeout > 0 {
		callCtx, cancel = context.WithTimeoutCause(ctx, c.timeout, errCallTimeout)
	}
	defer cancel()
	callCtx, tr := withTrace(callCtx)
	err := fn(callCtx)
	if err == nil {
		return nil
	}
	return c.mapError(ctx, callCtx, tr, err)
}

// stream runs one streaming call. Its timeout bounds the silence between
// two events rather than the whole call, so a long reply that keeps
// producing tokens is never cut, while an upstream that goes quiet is.
// fn calls alive for every event it receives.
func (c *caller) stream(ctx context.Context, fn func(ctx context.Context, alive func()) error) error {
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	alive := func() {}
	if c.timeout > 0 {
		timer := time.AfterFunc(c.timeout, func() { cancel(errCallTimeout) })
		defer timer.Stop()
		alive = func() { timer.Reset(c.timeout) }
	}
	callCtx, tr := withTrace(callCtx)
	err := fn(callCtx, alive)
	if err == nil {
		return nil
	}
	return c.mapError(ctx, callCtx, tr, err)
}

// deltaError marks an error returned by a Stream caller's onDelta, which
// goes back to the caller untouched.
type deltaError struct{ err error }

func (e *deltaError) Error() string { return e.err.Error() }
func (e *deltaError) Unwrap() error { return e.err }

// causedError is a domain error that also unwraps to a context error, so
// callers can both map it (502) and tell a cancellation apart.
type causedError struct {
	domain *smriti.Error
	cause  error
}

func (e *causedError) Error() string   { return e.domain.Message }
func (e *causedError) Unwrap() []error { return []error{e.domain, e.cause} }

func (c *caller) mapError(parent, callCtx context.Context, tr *callTrace, err error) error {
	var de *deltaError
	if errors.As(err, &de) {
		return de.err
	}
	var domain *smriti.Error
	if errors.As(err, &domain) {
		domain.Message = c.redact(domain.Message)
		return domain
	}
	if perr := parent.Err(); perr != nil {
		return &causedError{smriti.Errorf(smriti.EUPSTREAM, "%s call stopped: %v", c.provider, perr), perr}
	}
	if errors.Is(context.Cause(callCtx), errCallTimeout) {
		return &causedError{
			smriti.Errorf(smriti.EUPSTREAM, "%s did not answer within %s", c.provider, c.timeout),
			errCallTimeout,
		}
	}
	if attempts, status, body := tr.result(); status >= 400 {
		msg := statusText(status)
		if m := upstreamMessage(body); m != "" {
			msg += ": " + m
		}
		if attempts > 1 {
			msg += fmt.Sprintf(" (after %d attempts)", attempts)
		}
		return smriti.Errorf(smriti.EUPSTREAM, "%s returned %s", c.provider, c.redact(msg))
	}
	if malformed(err) {
		return smriti.Errorf(smriti.EUPSTREAM, "%s returned a malformed response: %s", c.provider, c.redact(err.Error()))
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		// The URL is left out: a base URL may carry credentials.
		return smriti.Errorf(smriti.EUPSTREAM, "could not reach %s: %s", c.provider, c.redact(ue.Err.Error()))
	}
	return smriti.Errorf(smriti.EUPSTREAM, "%s call failed: %s", c.provider, c.redact(err.Error()))
}

func statusText(status int) string {
	if t := http.StatusText(status); t != "" {
		return fmt.Sprintf("%d %s", status, t)
	}
	return fmt.Sprint(status)
}

// malformed reports whether err comes from decoding a reply that is not the
// JSON it should be.
func malformed(err error) bool {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syn) || errors.As(err, &typ) {
		return true
	}
	// Both SDKs wrap decoding failures as "error parsing response json: …".
	s := err.Error()
	return strings.Contains(s, "error parsing response json") ||
		strings.Contains(s, "invalid character") || strings.Contains(s, "unexpected end of JSON")
}

// upstreamMessage digs the human message out of an error reply: OpenAI,
// OpenRouter and Anthropic put it at error.message; Ollama and some proxies
// send error as a string, or message or detail at the top level. Anything
// else yields the start of the body, unless it is an HTML page.
func upstreamMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  any             `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		var s string
		var obj struct {
			Message string `json:"message"`
		}
		switch {
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			return shorten(s)
		case json.Unmarshal(v.Error, &obj) == nil && obj.Message != "":
			return shorten(obj.Message)
		case v.Message != "":
			return shorten(v.Message)
		}
		if d, ok := v.Detail.(string); ok {
			return shorten(d)
		}
		return ""
	}
	text := strings.TrimSpace(string(body))
	if strings.HasPrefix(text, "<") {
		return ""
	}
	return shorten(text)
}

// maxMessage bounds an upstream message quoted in an error.
const maxMessage = 300

func shorten(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= maxMessage {
		return s
	}
	r := []rune(s)
	return string(r[:maxMessage]) + "…"
}

// The key shapes are compiled the first time an error is redacted, not at
// every start.
var (
	skKey  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bsk-[A-Za-z0-9_\-]{3,}`) })
	bearer = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)(bearer\s+)[^\s"',;]+`) })
)

// redact removes the configured keys and anything shaped like a key
// (sk-…, Bearer …) from text meant for users or logs; upstream errors
// sometimes echo the key they were sent.
func (c *caller) redact(s string) string {
	return redactSecrets(s, c.secrets)
}

func redactSecrets(s string, secrets []string) string {
	for _, k := range secrets {
		if len(k) >= 6 {
			s = strings.ReplaceAll(s, k, redacted)
		}
	}
	s = skKey().ReplaceAllString(s, "sk-"+redacted)
	return bearer().ReplaceAllString(s, "${1}"+redacted)
}
