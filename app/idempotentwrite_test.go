package app

import (
	"context"
	"errors"
	"fmt"
	"smriti/idempotency"
	"testing"
	"time"

	"smriti"
)

// keyStore is a Store whose only working part is the idempotency keys.
type keyStore struct {
	Store
	answers  []*idempotency.Answer // answered in turn, the last one repeated
	lookups  int
	recorded []string
}

func (k *keyStore) IdempotentAnswer(context.Context, string, string) (*idempotency.Answer, error) {
	a := k.answers[min(k.lookups, len(k.answers)-1)]
	k.lookups++
	return a, nil
}

func (k *keyStore) RecordIdempotentAnswer(_ context.Context, kind, key, hash string, status int, body []byte) error {
	k.recorded = append(k.recorded, fmt.Sprintf("%s %s %s %d %s", kind, key, hash, status, body))
	return nil
}

var clock0 = time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)

func keyApp(ks *keyStore) *App {
	return &App{store: ks, now: func() time.Time { return clock0 }}
}

func TestIdempotentWritesOnceAndRecordsTheAnswer(t *testing.T) {
	ks := &keyStore{answers: []*idempotency.Answer{nil}}
	w := IdempotentWrite{Kind: "POST /x", Key: "k", Request: []byte(`{"a":1}`)}
	var claims []*idempotency.Claim
	ans, err := keyApp(ks).Idempotent(context.Background(), w, func(ctx context.Context) (IdempotentAnswer, error) {
		claims = append(claims, idempotency.ClaimFrom(ctx))
		return IdempotentAnswer{Status: 201, Body: []byte("made")}, nil
	})
	if err != nil || ans.Status != 201 || string(ans.Body) != "made" || ans.Replayed {
		t.Fatalf("answer = %+v, %v", ans, err)
	}
	digest := writeDigest(w)
	if len(claims) != 1 || claims[0] == nil || claims[0].Kind != "POST /x" || claims[0].Key != "k" || claims[0].RequestHash != digest {
		t.Fatalf("claims = %+v", claims)
	}
	if want := "POST /x k " + digest + " 201 made"; len(ks.recorded) != 1 || ks.recorded[0] != want {
		t.Fatalf("recorded = %q, want [%q]", ks.recorded, want)
	}
}

func TestIdempotentWithoutAKeyJustWrites(t *testing.T) {
	ks := &keyStore{}
	calls := 0
	ans, err := keyApp(ks).Idempotent(context.Background(), IdempotentWrite{Kind: "POST /x"}, func(ctx context.Context) (IdempotentAnswer, error) {
		calls++
		if idempotency.ClaimFrom(ctx) != nil {
			t.Fatal("a claim without a key")
		}
		return IdempotentAnswer{Status: 200}, nil
	})
	if err != nil || ans.Status != 200 || calls != 1 || ks.lookups != 0 || len(ks.recorded) != 0 {
		t.Fatalf("answer %+v err %v calls %d lookups %d recorded %d", ans, err, calls, ks.lookups, len(ks.recorded))
	}
}

func TestIdempotentAnswersFromTheStoredRow(t *testing.T) {
	w := IdempotentWrite{Kind: "POST /x", Key: "k", Request: []byte(`{"a":1}`)}
	digest := writeDigest(w)
	never := func(context.Context) (IdempotentAnswer, error) {
		t.Fatal("written although the key answered")
		return IdempotentAnswer{}, nil
	}
	cases := []struct {
		name   string
		row    *idempotency.Answer
		status int
		code   string
		msg    string
		retry  int
	}{
		{"Replay", &idempotency.Answer{RequestHash: digest, Status: 201, Body: []byte("made"), CreatedAt: clock0}, 201, "", "", 0},
		{"OtherRequest", &idempotency.Answer{RequestHash: "other", Status: 201, CreatedAt: clock0}, 0, smriti.EUNPROCESSABLE,
			`Idempotency-Key "k" was already used for a different request; use a new key for a new request`, 0},
		{"InProgress", &idempotency.Answer{RequestHash: digest, CreatedAt: clock0.Add(-time.Second)}, 0, smriti.ECONFLICT,
			`a request with Idempotency-Key "k" is still in progress; send it again shortly for its answer`, 1},
		{"AnswerLost", &idempotency.Answer{RequestHash: digest, CreatedAt: clock0.Add(-2 * time.Minute)}, 0, smriti.ECONFLICT,
			`the request with Idempotency-Key "k" was stored but its answer was not recorded; it will not be written again — look the result up instead`, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ans, err := keyApp(&keyStore{answers: []*idempotency.Answer{c.row}}).Idempotent(context.Background(), w, never)
			if c.code == "" {
				if err != nil || ans.Status != c.status || string(ans.Body) != "made" || !ans.Replayed {
					t.Fatalf("answer = %+v, %v", ans, err)
				}
				return
			}
			if smriti.ErrorCode(err) != c.code || smriti.ErrorMessage(err) != c.msg || RetryAfter(err) != c.retry {
				t.Fatalf("error = %q %q retry %d, want %q %q retry %d", smriti.ErrorCode(err), smriti.ErrorMessage(err), RetryAfter(err), c.code, c.msg, c.retry)
			}
		})
	}
}

// A write refused because a concurrent request with the key committed
// first answers with that request's answer once it is recorded.
func TestIdempotentKeyTakenAnswersTheWinner(t *testing.T) {
	w := IdempotentWrite{Kind: "POST /x", Key: "k", Request: []byte(`{}`)}
	ks := &keyStore{answers: []*idempotency.Answer{nil, {RequestHash: writeDigest(w), Status: 201, Body: []byte("theirs"), CreatedAt: clock0}}}
	calls := 0
	ans, err := keyApp(ks).Idempotent(context.Background(), w, func(context.Context) (IdempotentAnswer, error) {
		calls++
		return IdempotentAnswer{}, errors.Join(errors.New("commit checkpoint"), idempotency.ErrKeyTaken)
	})
	if err != nil || calls != 1 || ans.Status != 201 || string(ans.Body) != "theirs" || !ans.Replayed || len(ks.recorded) != 0 {
		t.Fatalf("answer %+v err %v calls %d recorded %q", ans, err, calls, ks.recorded)
	}
}
