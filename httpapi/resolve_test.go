package httpapi_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"smriti/store/storetest"
	"smriti/wire"
)

// otherPrefix is an 8-character hex prefix that id does not start with.
func otherPrefix(id string) string {
	if strings.HasPrefix(id, "ffffffff") {
		return "00000000"
	}
	return "ffffffff"
}

// A session, a proposal and an item are found by what a person types, on
// the server: a unique id prefix, or words of an item's text. A prefix too
// short is 400, one naming nothing 404, a proposal of another space 404.
func TestResolveReferences(t *testing.T) {
	e := newEnv(t)
	sp, se := e.spaceSession(t)
	other, ose := e.spaceSession(t)
	commitVia(t, e, sp.ID, se.ID, "Base", "Use SQLite for storage", "Ship weekly")
	p := saveProposal(t, e, sp.ID, se.ID, "Mine", "Use SQLite for storage")
	theirs := saveProposal(t, e, other.ID, ose.ID, "Theirs", "Use Postgres")

	spID := sp.ID.String()
	claim := storetest.Get(e.c.Claim(bg, wire.ClaimRequest{SpaceID: &spID, Agent: new("codex"), Scope: new("docs")})).Must(t)
	gc := storetest.Get(e.c.ResolveClaim(bg, claim.ID.String()[:8])).Must(t)
	if gc.ID != claim.ID {
		t.Fatalf("claim %s… = %s; want %s", claim.ID.String()[:8], gc.ID, claim.ID)
	}
	got := storetest.Get(e.c.ResolveSession(bg, se.ID.String()[:8])).Must(t)
	if got.ID != se.ID {
		t.Fatalf("session %s… = %s; want %s", se.ID.String()[:8], got.ID, se.ID)
	}
	gp := storetest.Get(e.c.ResolveProposal(bg, sp.ID, strings.ToUpper(p.ID.String()[:6]))).Must(t)
	if gp.ID != p.ID || gp.Title != "Mine" {
		t.Fatalf("proposal %s… = %s %q; want %s \"Mine\"", p.ID.String()[:6], gp.ID, gp.Title, p.ID)
	}
	h := storetest.Get(e.c.ResolveItem(bg, sp.ID, "sqlite for")).Must(t)
	if h.Item.Text != "Use SQLite for storage" || !h.Latest || len(h.History) != 1 {
		t.Fatalf("item \"sqlite for\" = %q (latest %v, %d events); want the SQLite decision's history", h.Item.Text, h.Latest, len(h.History))
	}

	q := func(kv ...string) string {
		v := url.Values{}
		for i := 0; i < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v.Encode()
	}
	sessionMiss, proposalMiss := otherPrefix(se.ID.String()), otherPrefix(p.ID.String())
	for _, c := range []struct {
		name, path string
		status     int
		body       string
	}{
		{"SessionPrefixTooShort", "/api/v5/sessions/resolve?" + q("ref", "ab"), 400, `{"detail":"\"ab\": give the session id or at least 4 characters of it"}`},
		{"SessionPrefixNotHex", "/api/v5/sessions/resolve?" + q("ref", "not-a-uuid"), 400, `{"detail":"\"not-a-uuid\": give the session id or at least 4 characters of it"}`},
		{"SessionPrefixOfNone", "/api/v5/sessions/resolve?" + q("ref", sessionMiss), 404, fmt.Sprintf(`{"detail":"Session not found: no session starts with \"%s\""}`, sessionMiss)},
		{"SessionRefMissing", "/api/v5/sessions/resolve", 400, `{"detail":"query parameter ref is required: a session UUID, or 4+ characters of its id"}`},
		{"ProposalOfAnotherSpace", "/api/v5/proposals/resolve?" + q("ref", theirs.ID.String()[:8], "space_id", sp.ID.String()), 404,
			fmt.Sprintf(`{"detail":"Proposal not found: no proposal starts with \"%s\""}`, theirs.ID.String()[:8])},
		{"ProposalByFullIDOfAnotherSpace", "/api/v5/proposals/resolve?" + q("ref", theirs.ID.String(), "space_id", sp.ID.String()), 404, `{"detail":"Proposal not found"}`},
		{"ProposalPrefixOfNone", "/api/v5/proposals/resolve?" + q("ref", proposalMiss, "space_id", sp.ID.String()), 404, fmt.Sprintf(`{"detail":"Proposal not found: no proposal starts with \"%s\""}`, proposalMiss)},
		{"ClaimPrefixTooShort", "/api/v5/claims/resolve?" + q("ref", "abc"), 400, `{"detail":"\"abc\": give the claim id or at least 4 characters of it"}`},
		{"ClaimPrefixOfNone", "/api/v5/claims/resolve?" + q("ref", otherPrefix(claim.ID.String())), 404,
			fmt.Sprintf(`{"detail":"Claim not found: no claim starts with \"%s\""}`, otherPrefix(claim.ID.String()))},
		{"ItemWordsOfNone", "/api/v5/items/resolve?" + q("ref", "nothing like this", "space_id", sp.ID.String()), 404,
			`{"detail":"No item of the head matches \"nothing like this\"; give an item id (checkpoint show --items lists them)"}`},
		{"ItemOfASpaceWithNoCheckpoint", "/api/v5/items/resolve?" + q("ref", "postgres", "space_id", other.ID.String()), 404, `{"detail":"The space has no checkpoint, so no items"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, body := e.raw(t, "GET", c.path, "")
			if status != c.status || body != c.body+"\n" {
				t.Fatalf("GET %s = %d %s\nwant %d %s", c.path, status, body, c.status, c.body)
			}
		})
	}
}
