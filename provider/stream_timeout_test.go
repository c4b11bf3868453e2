package provider

import (
	"context"
	"net/http"
	"smriti/intelligence"
	"strings"
	"testing"
	"time"
)

// A reply that keeps producing tokens for longer than the call timeout is
// delivered whole: for a stream the timeout bounds the silence between
// events, not the whole call.
func TestStreamStillProducingIsNotCutByTheCallTimeout(t *testing.T) {
	srv := newFake(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := 0; i < 8; i++ {
			writeSSE(w, openAIChunk("tok "))
			time.Sleep(100 * time.Millisecond)
		}
		writeSSE(w, `data: [DONE]`)
	})
	p := providerAt(t, intelligence.ProviderOpenAI, srv.URL+"/v1", WithTimeout(300*time.Millisecond))
	var got strings.Builder
	c, err := p.Stream(context.Background(), chatRequest, func(s string) error { got.WriteString(s); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Repeat("tok ", 8); c.Text != want || got.String() != want {
		t.Fatalf("text = %q, streamed %q, want %q", c.Text, got.String(), want)
	}
}

// A stream that goes quiet mid-reply is cut once the silence lasts the
// timeout.
func TestStreamThatGoesQuietIsCut(t *testing.T) {
	srv := newFake(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		writeSSE(w, openAIChunk("first "))
		<-r.Context().Done()
	})
	p := providerAt(t, intelligence.ProviderOpenAI, srv.URL+"/v1", WithTimeout(300*time.Millisecond))
	_, err := p.Stream(context.Background(), chatRequest, func(string) error { return nil })
	assertUpstream(t, err, "openai did not answer within 300ms")
	if outcome(err) != "timeout" {
		t.Errorf("outcome = %q, want timeout", outcome(err))
	}
}
