package httpapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"smriti"
	"smriti/internal/textutil"
	"smriti/store/storetest"
	"smriti/wire"
)

// TestStateAsOf: 20 checkpoints on two lines of work — 12 on main, each
// holding the decisions of the last four steps, and 8 on a branch forked
// from main's 6th, which keeps main's four and holds its own last three —
// and for each checkpoint, the state as of it is exactly its live items,
// each with the checkpoints that began and ended its span on that line.
func TestStateAsOf(t *testing.T) {
	e := newEnv(t)
	space := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("asof")})).Must(t)
	se := storetest.Get(e.c.CreateSession(bg, &space.ID, "s", "mock", "m")).Must(t)
	// Words no two of which the similarity rule takes for an edit of the
	// other, so each decision is an item of its own.
	words := strings.Fields("postgres redis kafka nginx envoy vault consul nomad grafana loki tempo mimir")
	alt := strings.Fields("sqlite valkey nats caddy traefik")
	name := func(prefix string, k int) string {
		if prefix == "Decision" {
			return fmt.Sprintf("Decision %d: adopt %s", k, words[k-1])
		}
		return fmt.Sprintf("Alt %d: adopt %s", k, alt[(k-1)%len(alt)]+strings.Repeat("x", (k-1)/len(alt)))
	}
	window := func(prefix string, from, to int) []string {
		var out []string
		for k := max(1, from); k <= to; k++ {
			out = append(out, name(prefix, k))
		}
		return out
	}
	var mainCps, altCps []*wire.Commit
	for i := 1; i <= 12; i++ {
		mainCps = append(mainCps, commitVia(t, e, space.ID, se.ID, fmt.Sprintf("main %d", i), window("Decision", i-3, i)...))
	}
	fork := storetest.Get(e.c.Fork(bg, wire.ForkRequest{SpaceID: sp(space.ID.String()), CheckpointID: sp(mainCps[5].ID.String()), BranchName: "alt"})).Must(t)
	for j := 1; j <= 8; j++ {
		altCps = append(altCps, commitVia(t, e, space.ID, fork.SessionID, fmt.Sprintf("alt %d", j), append(window("Decision", 3, 6), window("Alt", j-2, j)...)...))
	}
	asOf := func(query string) wire.StateAsOfOut {
		t.Helper()
		var out wire.StateAsOfOut
		if _, err := e.c.Do(bg, http.MethodGet, "/api/v5/spaces/"+space.ID.String()+"/state?"+query, nil, &out); err != nil {
			t.Fatalf("state?%s: %v", query, err)
		}
		return out
	}
	// spans renders a state as "text [from→to]" with checkpoint titles.
	spans := func(st wire.StateAsOfOut) string {
		var out []string
		for _, it := range st.Items {
			to := "head"
			if it.ValidTo != nil {
				to = it.ValidTo.Message
			}
			out = append(out, fmt.Sprintf("%s [%s→%s]", it.Text[:strings.Index(it.Text, ":")], it.ValidFrom.Message, to))
		}
		return strings.Join(out, ", ")
	}
	for i := 1; i <= 12; i++ {
		var want []string
		for k := max(1, i-3); k <= i; k++ {
			to := "head"
			if k+4 <= 12 {
				to = fmt.Sprintf("main %d", k+4)
			}
			want = append(want, fmt.Sprintf("Decision %d [main %d→%s]", k, k, to))
		}
		st := asOf("as_of=" + mainCps[i-1].CommitHash[:12])
		if got := spans(st); got != strings.Join(want, ", ") || st.Branch != "main" || st.Checkpoint.CheckpointID != mainCps[i-1].ID || st.Head.CheckpointID != mainCps[11].ID {
			t.Errorf("main %d: branch %s, checkpoint %s, head %s, items %s\nwant main, %s, %s, items %s", i, st.Branch, st.Checkpoint.Message, st.Head.Message, got,
				mainCps[i-1].ID, mainCps[11].ID, strings.Join(want, ", "))
		}
	}
	for j := 1; j <= 8; j++ {
		var want []string
		for k := 3; k <= 6; k++ {
			want = append(want, fmt.Sprintf("Decision %d [main %d→head]", k, k))
		}
		for k := max(1, j-2); k <= j; k++ {
			to := "head"
			if k+3 <= 8 {
				to = fmt.Sprintf("alt %d", k+3)
			}
			want = append(want, fmt.Sprintf("Alt %d [alt %d→%s]", k, k, to))
		}
		st := asOf("as_of=" + altCps[j-1].ID.String())
		if got := spans(st); got != strings.Join(want, ", ") || st.Branch != "alt" || st.Head.CheckpointID != altCps[7].ID {
			t.Errorf("alt %d: branch %s, head %s, items %s\nwant alt, alt 8, items %s", j, st.Branch, st.Head.Message, got, strings.Join(want, ", "))
		}
	}
	// Each item of the state as of a checkpoint is that checkpoint's live
	// item, id for id.
	for _, cp := range append(mainCps, altCps...) {
		var items []wire.ItemOut
		if _, err := e.c.Do(bg, http.MethodGet, "/api/v5/checkpoints/"+cp.ID.String()+"/items", nil, &items); err != nil {
			t.Fatal(err)
		}
		var live, got []string
		for _, it := range items {
			if it.Status == smriti.ItemOpen || it.Status == smriti.ItemDone {
				live = append(live, it.ID+" "+it.Text)
			}
		}
		for _, it := range asOf("as_of=" + cp.ID.String()).Items {
			got = append(got, it.ID+" "+it.Text)
		}
		if strings.Join(got, "|") != strings.Join(live, "|") {
			t.Errorf("%s: as-of items %q, the checkpoint's live items %q", cp.Message, got, live)
		}
	}
	// A time picks the newest checkpoint written by then, on main unless
	// a branch is named.
	last := mainCps[11]
	if st := asOf("as_of=" + last.CreatedAt.UTC().Format(time.RFC3339Nano)); st.Checkpoint.CheckpointID != last.ID {
		t.Errorf("as of main 12's time: %s, want main 12", st.Checkpoint.Message)
	}
	if st := asOf("as_of=2999-01-01&branch=alt"); st.Checkpoint.CheckpointID != altCps[7].ID {
		t.Errorf("as of 2999-01-01 on alt: %s, want alt 8", st.Checkpoint.Message)
	}
	base := "/api/v5/spaces/" + space.ID.String() + "/state"
	for _, tc := range []struct {
		query string
		code  int
		body  string
	}{
		{"", 400, `{"detail":"as_of is required: a checkpoint id or hash prefix, or a time"}`},
		{"?as_of=abc", 400, `{"detail":"checkpoint \"abc\": give the full id or at least 7 characters of its id or hash"}`},
		{"?as_of=ffffffffffff", 404, `{"detail":"no checkpoint matches \"ffffffffffff\""}`},
		{"?as_of=2000-01-01", 404, `{"detail":"no checkpoint on this line of work was written at or before 2000-01-01T23:59:59Z"}`},
		{"?as_of=" + altCps[0].ID.String() + "&branch=main", 400, `{"detail":"checkpoint ` + textutil.ShortHash(altCps[0].CommitHash) + ` is on branch \"alt\", not \"main\": leave branch out when as_of names a checkpoint"}`},
		{"?as_of=2999-01-01&branch=nope", 404, `{"detail":"branch \"nope\" has no checkpoints"}`},
	} {
		if code, body := e.raw(t, http.MethodGet, base+tc.query, ""); code != tc.code || strings.TrimSpace(body) != tc.body {
			t.Errorf("GET state%s = %d %s; want %d %s", tc.query, code, body, tc.code, tc.body)
		}
	}
}
