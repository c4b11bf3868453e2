package client

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"smriti"
	"smriti/wire"
)

// keyServer answers POSTs from a script of statuses and records the
// Idempotency-Key of each; a status of -1 drops the connection unanswered.
type keyServer struct {
	mu     sync.Mutex
	script []int
	keys   []string
	bodies []string
}

func (k *keyServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	k.mu.Lock()
	n := len(k.keys)
	k.keys = append(k.keys, r.Header.Get("Idempotency-Key"))
	var b bytes.Buffer
	b.ReadFrom(r.Body)
	k.bodies = append(k.bodies, b.String())
	status := 201
	if n < len(k.script) {
		status = k.script[n]
	}
	k.mu.Unlock()
	switch status {
	case -1:
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	case 503, 409:
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(status)
		w.Write([]byte(`{"detail":"later"}`))
	case 422:
		w.WriteHeader(status)
		w.Write([]byte(`{"detail":"no"}`))
	default:
		w.WriteHeader(status)
		w.Write([]byte(`{"id":"` + smriti.NilID.String() + `","space_id":"` + smriti.NilID.String() + `"}`))
	}
}

func newKeyServer(t *testing.T, script ...int) (*keyServer, *Client) {
	ks := &keyServer{script: script}
	hs := httptest.NewServer(ks)
	t.Cleanup(hs.Close)
	c := NewClient(hs.URL)
	c.HTTP = hs.Client()
	return ks, c
}

// A keyed write is sent again with the same key after a dropped
// connection, a 503 and a 409 with Retry-After, up to three times.
func TestKeyedWriteRetriesWithTheSameKey(t *testing.T) {
	ks, c := newKeyServer(t, -1, 503)
	ctx := WithIdempotencyKey(context.Background(), "k-1")
	if _, err := c.CommitToSpace(ctx, smriti.NilID, wire.SpaceCommitRequest{ContentFields: wire.ContentFields{Message: strp("A")}}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ks.keys, ","); got != "k-1,k-1,k-1" {
		t.Fatalf("keys sent = %s, want k-1 three times", got)
	}
	ks, c = newKeyServer(t, 409, 409, 409)
	_, err := c.Claim(ctx, wire.ClaimRequest{})
	if smriti.ErrorCode(err) != smriti.ECONFLICT || len(ks.keys) != 3 {
		t.Fatalf("after three 409s: %v, %d attempts; want ECONFLICT after 3", err, len(ks.keys))
	}
	ks, c = newKeyServer(t, 422)
	_, err = c.Fork(ctx, wire.ForkRequest{})
	if smriti.ErrorCode(err) != smriti.EUNPROCESSABLE || len(ks.keys) != 1 {
		t.Fatalf("after a 422: %v, %d attempts; want one", err, len(ks.keys))
	}
}

// Without a key a write is sent once; with AutoIdempotencyKeys every write
// gets its own new key, kept across its retries.
func TestAutoIdempotencyKeys(t *testing.T) {
	ks, c := newKeyServer(t, 503)
	_, err := c.AddNote(context.Background(), smriti.NilID, "x", "", "note")
	if smriti.ErrorCode(err) != smriti.ETRYAGAIN || len(ks.keys) != 1 || ks.keys[0] != "" {
		t.Fatalf("unkeyed write: %v, keys %q; want one attempt without a key", err, ks.keys)
	}
	ks, c = newKeyServer(t, 503)
	c.AutoIdempotencyKeys = true
	if _, err := c.Merge(context.Background(), wire.MergeRequest{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ImportSpace(context.Background(), bytes.NewReader([]byte("bundle")), false); err != nil {
		t.Fatal(err)
	}
	if len(ks.keys) != 3 || ks.keys[0] == "" || ks.keys[1] != ks.keys[0] || ks.keys[2] == "" || ks.keys[2] == ks.keys[0] {
		t.Fatalf("keys = %q; want one key twice (a retried merge), then a new one", ks.keys)
	}
	// A rewindable file body is sent whole again.
	ks, c = newKeyServer(t, -1)
	c.AutoIdempotencyKeys = true
	if _, err := c.ImportTranscript(context.Background(), smriti.NilID, "a.md", strings.NewReader("# hello"), false); err != nil {
		t.Fatal(err)
	}
	if len(ks.bodies) != 2 || ks.bodies[1] != "# hello" || ks.keys[0] != ks.keys[1] {
		t.Fatalf("bodies %q keys %q; want the file twice under one key", ks.bodies, ks.keys)
	}
}

func strp(s string) *string { return &s }
