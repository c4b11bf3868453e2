package httpapi_test

import (
	"fmt"
	"strings"
	"testing"

	"smriti/client"
	"smriti/store/storetest"
	"smriti/tokenizer"
	"smriti/wire"
)

// The markdown brief ends with its own o200k count, and the JSON state
// reports the compact brief's count as brief_tokens.
func TestBriefReportsItsTokens(t *testing.T) {
	e := newEnv(t)
	space := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("Research"), Description: new("")})).Must(t)
	se := storetest.Get(e.c.CreateSession(bg, &space.ID, "s", "mock", "m")).Must(t)
	commitVia(t, e, space.ID, se.ID, "A", "Local models", "Vector index")

	st := storetest.Get(e.c.State(bg, space.ID, client.StateOptions{})).Must(t)
	md := storetest.Get(e.c.Brief(bg, space.ID, client.BriefOptions{Compact: true})).Must(t)
	n := tokenizer.CountO200K(md)
	if st.BriefTokens != n || !strings.HasSuffix(md, fmt.Sprintf("\n\n~%d tokens\n", n)) {
		t.Fatalf("brief_tokens %d, the compact brief has %d tokens and ends %q", st.BriefTokens, n, md[max(0, len(md)-20):])
	}
	full := storetest.Get(e.c.Brief(bg, space.ID, client.BriefOptions{})).Must(t)
	if m := tokenizer.CountO200K(full); !strings.HasSuffix(full, fmt.Sprintf("\n\n~%d tokens\n", m)) {
		t.Fatalf("full brief of %d tokens ends %q", m, full[max(0, len(full)-20):])
	}
}
