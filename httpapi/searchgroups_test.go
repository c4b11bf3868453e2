package httpapi_test

import (
	"encoding/json"
	"smriti/store/storetest"
	"smriti/wire"
	"testing"
)

// A decision carried through three checkpoints is one result listing the
// three; the question and the mock's echo of it are results of their own.
func TestSearchGroupedCarriedItemIsOneResult(t *testing.T) {
	e := newEnv(t)
	sp := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("Engine"), Description: new("")})).Must(t)
	se := storetest.Get(e.c.CreateSession(bg, &sp.ID, "", "mock", "")).Must(t)
	storetest.Get(e.c.Send(bg, sendReq(se.ID, "Should we rewrite the parser in Rust?"), "")).Must(t)
	var hashes []string
	for i, extra := range []string{"Benchmarks first", "Hire a second reviewer", "Freeze the API"} {
		req := wire.CommitRequest{RepoID: strp(sp.ID.String()), SessionID: strp(se.ID.String())}
		req.Message = strp([]string{"One", "Two", "Three"}[i])
		req.Decisions = []string{"Rewrite the parser in Rust", extra}
		hashes = append(hashes, storetest.Get(e.c.Commit(bg, req)).Must(t).CommitHash)
	}
	status, body := e.raw(t, "GET", "/api/v5/search/grouped?q=rust+parser&space_id="+sp.ID.String(), "")
	if status != 200 {
		t.Fatalf("status %d: %s", status, body)
	}
	var got wire.SearchGroupsResponse
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Results) != 3 {
		t.Fatalf("want 3 results (the item and two turns), got %d: %s", len(got.Results), body)
	}
	var item, turn int
	for _, g := range got.Results {
		switch g.Kind {
		case "item":
			item++
			if g.Item == nil || g.Item.Kind != "decision" || g.Item.Text != "Rewrite the parser in Rust" {
				t.Errorf("item = %+v", g.Item)
			}
			if g.Hit.Snippet != "Rewrite the <mark>parser</mark> in <mark>Rust</mark>" {
				t.Errorf("snippet = %q", g.Hit.Snippet)
			}
			seen := map[string]bool{}
			for _, c := range g.Checkpoints {
				seen[c.CommitHash] = true
			}
			if len(g.Checkpoints) != 3 || !seen[hashes[0]] || !seen[hashes[1]] || !seen[hashes[2]] {
				t.Errorf("checkpoints = %+v, want the three of %v", g.Checkpoints, hashes)
			}
		case "turn":
			turn++
			if g.Item != nil || len(g.Checkpoints) != 0 || g.Hit.Seq == nil || *g.Hit.Seq != int64(turn-1) {
				t.Errorf("turn group = %+v", g)
			}
		default:
			t.Errorf("unexpected group %+v", g)
		}
	}
	if item != 1 || turn != 2 {
		t.Fatalf("item groups %d, turn groups %d: %s", item, turn, body)
	}
}

func TestSearchGroupedBadInput(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		path, detail string
		status       int
	}{
		{"/api/v5/search/grouped", `{"detail":"q is required"}`, 422},
		{"/api/v5/search/grouped?q=x&limit=abc", `{"detail":"query parameter limit must be an integer, got \"abc\""}`, 400},
		{"/api/v5/search/grouped?q=x&kind=space", `{"detail":"kind must be checkpoint, turn or note, not \"space\""}`, 422},
	}
	for _, c := range cases {
		status, body := e.raw(t, "GET", c.path, "")
		if status != c.status || body != c.detail+"\n" && body != c.detail {
			t.Errorf("%s: %d %s, want %d %s", c.path, status, body, c.status, c.detail)
		}
	}
}
