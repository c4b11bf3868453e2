package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"smriti/idempotency"
	"smriti/internal/textutil"
	"time"

	"smriti"
)

// Creating writes other than sends (checkpoint commits, forks, claims,
// notes, merge commits, imports) take an idempotency key the same way sends
// do, with one rule for all of them, here:
//
//   - A key is scoped to the caller and to the kind of write (the route), and
//     honoured for the store's retention (24 hours by default, the send
//     keys' retention), after which it is purged and may be used afresh.
//   - The key's row is inserted by the write's own transaction, so the row
//     exists exactly when the write does; the answer (status and body) is
//     recorded just after. A retry with the same key and the same request
//     gets that answer again, same status, same body, same ids, and nothing
//     is written; with a different request it is refused with 422.
//   - Two concurrent requests with one key write once: the second waits on
//     the first's row (PostgreSQL's unique index, SQLite's single writer),
//     then does not write. It answers the first one's answer when that is
//     recorded within about a second, else 409 with Retry-After: 1 ("in
//     progress").
//   - A key whose write is stored but whose answer never was (the process
//     stopped in between, or the write failed after a part of it was
//     committed) answers 409 without Retry-After, saying so: sending it again
//     would not write again, and looking the result up is the way on.

// IdempotentWrite describes one creating write under an idempotency key.
type IdempotentWrite struct {
	// Kind scopes the key: the route, as "POST /api/v5/claims".
	Kind string
	// Key is the Idempotency-Key (or client_request_id); "" runs the write
	// without one.
	Key string
	// Request is the canonical form of what the write asks for (the path
	// parameters, the query and the body without the key); its digest is
	// compared on a retry.
	Request []byte
}

// IdempotentAnswer is the answer of a write: its HTTP status and body.
type IdempotentAnswer struct {
	Status int
	Body   []byte
	// Replayed is true when the answer is the stored one of an earlier
	// request with the same key.
	Replayed bool
}

// inProgressFor is how long a key whose answer is not recorded yet counts
// as a request still being answered; replayWait how long a retry waits for
// that answer before answering 409 "in progress".
const (
	inProgressFor = time.Minute
	replayWait    = time.Second
	replayPoll    = 50 * time.Millisecond
)

// Idempotent runs write under w's key: the stored answer when the key
// already answered this request, 422 when it answered another, 409 while
// it is being answered, else write (whose first committing transaction
// stores the key) and the answer recorded under the key.
func (a *App) Idempotent(ctx context.Context, w IdempotentWrite, write func(ctx context.Context) (IdempotentAnswer, error)) (IdempotentAnswer, error) {
	if w.Key == "" {
		return write(ctx)
	}
	if len(w.Key) > smriti.MaxIdempotencyKeyChars {
		return IdempotentAnswer{}, smriti.Errorf(smriti.EUNPROCESSABLE, "Idempotency-Key must be at most %d characters", smriti.MaxIdempotencyKeyChars)
	}
	digest := writeDigest(w)
	for attempt := 0; ; attempt++ {
		if ans, ok, err := a.storedAnswer(ctx, w, digest); ok || err != nil {
			return ans, err
		}
		claim := &idempotency.Claim{Kind: w.Kind, Key: w.Key, RequestHash: digest}
		ans, err := write(idempotency.WithClaim(ctx, claim))
		if errors.Is(err, idempotency.ErrKeyTaken) && attempt == 0 {
			// Another request with this key committed first: answer as it did.
			continue
		}
		if err != nil {
			return IdempotentAnswer{}, err
		}
		// The write is stored: a failure to record its answer loses only the
		// replay (a retry then gets 409), so it does not fail the write.
		_ = a.store.RecordIdempotentAnswer(ctx, w.Kind, w.Key, digest, ans.Status, ans.Body)
		return ans, nil
	}
}

// storedAnswer looks w's key up: ok with the stored answer, an error (422
// or 409), or not ok when the key is free.
func (a *App) storedAnswer(ctx context.Context, w IdempotentWrite, digest string) (IdempotentAnswer, bool, error) {
	deadline := time.Now().Add(replayWait)
	for {
		prev, err := a.store.IdempotentAnswer(ctx, w.Kind, w.Key)
		switch {
		case err != nil:
			return IdempotentAnswer{}, false, err
		case prev == nil:
			return IdempotentAnswer{}, false, nil
		case prev.RequestHash != digest:
			return IdempotentAnswer{}, false, smriti.Errorf(smriti.EUNPROCESSABLE,
				"Idempotency-Key %q was already used for a different request; use a new key for a new request", textutil.Truncate(w.Key, 64))
		case prev.Status != 0:
			return IdempotentAnswer{Status: prev.Status, Body: prev.Body, Replayed: true}, true, nil
		case a.now().Sub(prev.CreatedAt) >= inProgressFor:
			return IdempotentAnswer{}, false, smriti.Errorf(smriti.ECONFLICT,
				"the request with Idempotency-Key %q was stored but its answer was not recorded; it will not be written again — look the result up instead",
				textutil.Truncate(w.Key, 64))
		case !time.Now().Before(deadline):
			return IdempotentAnswer{}, false, &RetryLater{Seconds: 1, Err: smriti.Errorf(smriti.ECONFLICT,
				"a request with Idempotency-Key %q is still in progress; send it again shortly for its answer", textutil.Truncate(w.Key, 64))}
		}
		t := time.NewTimer(replayPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			return IdempotentAnswer{}, false, ctx.Err()
		case <-t.C:
		}
	}
}

// writeDigest fingerprints a write: its kind and its canonical request.
func writeDigest(w IdempotentWrite) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00", w.Kind)
	h.Write(w.Request)
	return hex.EncodeToString(h.Sum(nil))
}
