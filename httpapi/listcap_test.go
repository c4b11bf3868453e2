package httpapi_test

import (
	"net/http"
	"testing"

	"smriti"
	"smriti/client"
	"smriti/store/storetest"
	"smriti/wire"
)

// Clients of the first implementation never follow a cursor: a list asked
// for without ?limit= must hold every item (up to the cap), while ?limit=
// keeps paging.
func TestListsWithoutLimitReturnEverything(t *testing.T) {
	e := newEnv(t)
	space := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("Many"), Description: new("")})).Must(t)
	se := storetest.Get(e.c.CreateSession(bg, &space.ID, "s", "mock", "m")).Must(t)
	const n = 1205 // more than the largest page a client may ask for
	for i := 0; i < n; i++ {
		if _, err := e.store.CommitCheckpoint(bg, smriti.CheckpointCommit{SpaceID: space.ID, SessionID: se.ID,
			Content: smriti.Content{Message: "c"}}); err != nil {
			t.Fatal(err)
		}
	}
	var all []map[string]any
	resp, err := e.c.Do(bg, http.MethodGet, "/api/v2/repos/"+space.ID.String()+"/commits", nil, &all)
	if err != nil || len(all) != n || resp.Header.Get("X-Next-Cursor") != "" {
		t.Fatalf("unpaged list = %d items, cursor %q, err %v; want all %d and no cursor", len(all), resp.Header.Get("X-Next-Cursor"), err, n)
	}
	var page []map[string]any
	resp, err = e.c.Do(bg, http.MethodGet, "/api/v2/repos/"+space.ID.String()+"/commits?limit=1000", nil, &page)
	if err != nil || len(page) != 1000 || resp.Header.Get("X-Next-Cursor") == "" {
		t.Fatalf("paged list = %d items, cursor %q, err %v", len(page), resp.Header.Get("X-Next-Cursor"), err)
	}
	status, _ := e.raw(t, "GET", "/api/v2/repos/"+space.ID.String()+"/commits?limit=5000", "")
	if status != 400 {
		t.Fatalf("limit above 1000: %d", status)
	}
}

// Past the cap the list is cut and says where to go on.
func TestListCutAtTheCapCarriesACursor(t *testing.T) {
	e := newEnv(t)
	space := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("Cap"), Description: new("")})).Must(t)
	sid := space.ID.String()
	tx, err := e.store.DB().Begin()
	if err != nil {
		t.Fatal(err)
	}
	// Claims are cheap rows to write in bulk under the store.
	for i := 0; i < smriti.ListCap+3; i++ {
		if _, err := tx.Exec(e.store.Rebind(`INSERT INTO claims (id, space_id, agent, branch_name, scope, intent, status, claimed_at, expires_at)
			VALUES (?, ?, 'a', 'main', 's', 'implement', 'active', ?, '2999-01-01T00:00:00.000000Z')`),
			smriti.NewID(), space.ID, "2026-01-01T00:00:00.000000Z"); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	all, next, err := e.c.Claims(bg, space.ID, claimsAll)
	if err != nil || len(all) != smriti.ListCap || next == "" {
		t.Fatalf("capped list = %d, cursor %q, err %v", len(all), next, err)
	}
	rest, next2, err := e.c.Claims(bg, space.ID, claimsAfter(next))
	if err != nil || len(rest) != 3 || next2 != "" {
		t.Fatalf("rest = %d, cursor %q, err %v (space %s)", len(rest), next2, err, sid)
	}
}

var claimsAll = client.ClaimsOptions{}

func claimsAfter(c string) client.ClaimsOptions { return client.ClaimsOptions{After: c} }
