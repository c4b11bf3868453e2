package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"smriti"
	"smriti/client"
	"smriti/contract"
	"smriti/store/storetest"
	"smriti/wire"
)

// subscribe opens a space's event stream and delivers its events on a
// channel until the test ends.
func subscribe(t *testing.T, url string, space smriti.ID, after *int64) <-chan wire.SpaceEventOut {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ch := make(chan wire.SpaceEventOut, 64)
	// The stream starts "now" at the server's log position, so the test
	// waits until the subscription is open before writing.
	opened := make(chan struct{})
	c := client.NewClient(url)
	c.HTTP.Transport = &notifyTransport{opened: opened, base: newContractTransport(t, url)}
	go func() {
		defer close(ch)
		c.SpaceEvents(ctx, space, after, func(ev wire.SpaceEventOut) bool {
			ch <- ev
			return true
		})
	}()
	select {
	case <-opened:
	case <-time.After(10 * time.Second):
		t.Fatal("event stream did not open")
	}
	return ch
}

// notifyTransport closes opened once the stream's response headers arrive.
type notifyTransport struct {
	opened chan struct{}
	base   http.RoundTripper
}

func (n *notifyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := n.base.RoundTrip(r)
	if err == nil {
		close(n.opened)
	}
	return resp, err
}

func nextEvents(t *testing.T, ch <-chan wire.SpaceEventOut, n int) []wire.SpaceEventOut {
	t.Helper()
	var out []wire.SpaceEventOut
	deadline := time.After(20 * time.Second)
	for len(out) < n {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatalf("stream closed after %d events, want %d: %+v", len(out), n, out)
			}
			out = append(out, ev)
		case <-deadline:
			t.Fatalf("got %d events, want %d: %+v", len(out), n, out)
		}
	}
	return out
}

func TestSpaceEvents(t *testing.T) {
	for _, engine := range []struct {
		name string
		opts []envOption
	}{{"sqlite", nil}, {"postgres", []envOption{withPostgres()}}} {
		t.Run(engine.name, func(t *testing.T) {
			e := newEnv(t, engine.opts...)
			sp := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("Live"), Description: new("")})).Must(t)
			other := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("Elsewhere"), Description: new("")})).Must(t)
			events := subscribe(t, e.url, sp.ID, nil)

			se := storetest.Get(e.c.CreateSession(bg, &sp.ID, "Planning", "mock", "")).Must(t)
			// Writes in another space never show up in this stream.
			storetest.Get(e.c.CreateSession(bg, &other.ID, "Noise", "mock", "")).Must(t)
			storetest.Get(e.c.Send(bg, wire.SendRequest{SessionID: strp(se.ID.String()), Provider: "mock", Model: "mock",
				Message: strp("We decided to go by train."), UseMock: true}, "")).Must(t)
			cp := e.commitDecisions(t, *sp, *se, "Go by train", "Train")
			fork := storetest.Get(e.c.Fork(bg, wire.ForkRequest{SpaceID: strp(sp.ID.String()), CheckpointID: strp(cp.ID.String()),
				BranchName: "by-bus"})).Must(t)
			storetest.Get(e.c.SetDisposition(bg, sp.ID, "by-bus", "abandoned")).Must(t)

			got := nextEvents(t, events, 5)
			want := []struct {
				kind    string
				subject smriti.ID
				branch  string
			}{
				{contract.EventSessionCreated, se.ID, "main"},
				{contract.EventSessionUpdated, se.ID, "main"},
				{contract.EventCheckpointCreated, cp.ID, "main"},
				{contract.EventSessionCreated, fork.SessionID, "by-bus"},
				{contract.EventDispositionChanged, fork.SessionID, "by-bus"},
			}
			for i, w := range want {
				g := got[i]
				if g.Kind != w.kind || g.SubjectID != w.subject || g.BranchName != w.branch || g.SpaceID != sp.ID {
					t.Fatalf("event %d = %+v, want %s %s on %s", i, g, w.kind, w.subject, w.branch)
				}
				if i > 0 && g.Position <= got[i-1].Position {
					t.Fatalf("positions not increasing: %d after %d", g.Position, got[i-1].Position)
				}
			}

			// A reconnect with Last-Event-ID gets exactly what followed.
			resumed := nextEvents(t, subscribe(t, e.url, sp.ID, &got[2].Position), 2)
			if resumed[0].Position != got[3].Position || resumed[1].Position != got[4].Position {
				t.Fatalf("resumed = %+v, want positions %d, %d", resumed, got[3].Position, got[4].Position)
			}
		})
	}
}

// TestSpaceEventsAcrossReplicas: a write through one server reaches a
// subscriber of another server on the same PostgreSQL database.
func TestSpaceEventsAcrossReplicas(t *testing.T) {
	a := newEnv(t, withPostgres())
	b := newEnvOn(t, a.dsn)
	sp := storetest.Get(a.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("Shared"), Description: new("")})).Must(t)
	events := subscribe(t, a.url, sp.ID, nil)
	se := storetest.Get(b.c.CreateSession(bg, &sp.ID, "From B", "mock", "")).Must(t)
	got := nextEvents(t, events, 1)
	if got[0].Kind != contract.EventSessionCreated || got[0].SubjectID != se.ID {
		t.Fatalf("event = %+v, want session.created for %s", got[0], se.ID)
	}
}

func TestSpaceEventsBadInput(t *testing.T) {
	e := newEnv(t)
	sp := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("Live"), Description: new("")})).Must(t)
	for _, c := range []struct {
		path, lastID string
		status       int
		detail       string
	}{
		{"/api/v5/spaces/" + smriti.NewID().String() + "/events", "", 404, "Space not found"},
		{"/api/v5/spaces/not-a-uuid/events", "", 400, ""},
		{"/api/v5/spaces/" + sp.ID.String() + "/events?after=-1", "", 422, "after must be a non-negative integer"},
		{"/api/v5/spaces/" + sp.ID.String() + "/events", "abc", 422, "Last-Event-ID must be a non-negative integer"},
	} {
		req, _ := http.NewRequest("GET", e.url+c.path, nil)
		if c.lastID != "" {
			req.Header.Set("Last-Event-ID", c.lastID)
		}
		resp, err := e.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Detail string `json:"detail"`
		}
		json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != c.status || (c.detail != "" && body.Detail != c.detail) {
			t.Errorf("%s: %d %q, want %d %q", c.path, resp.StatusCode, body.Detail, c.status, c.detail)
		}
	}
}
