package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"smriti"
	"smriti/wire"
)

// The CLI's client gives every creating write its own Idempotency-Key and
// keeps it when it sends the write again after a 503.
func TestCLIWritesCarryIdempotencyKeys(t *testing.T) {
	var keys []string
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		keys = append(keys, r.Header.Get("Idempotency-Key"))
		if len(keys) == 1 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte(`{"detail":"the database is unavailable right now; try again shortly"}`))
			return
		}
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte(`{}`))
	}))
	defer hs.Close()
	c := (&Env{APIURL: hs.URL}).Client()
	msg := "A"
	if _, err := c.CommitToSpace(context.Background(), smriti.NilID, wire.SpaceCommitRequest{ContentFields: wire.ContentFields{Message: &msg}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddNote(context.Background(), smriti.NilID, "x", "", "note"); err != nil {
		t.Fatal(err)
	}
	if len(keys) != 3 || keys[0] == "" || keys[1] != keys[0] || keys[2] == "" || keys[2] == keys[0] {
		t.Fatalf("keys = %q; want one key twice (the retried commit), then a new one (the note)", keys)
	}
}
