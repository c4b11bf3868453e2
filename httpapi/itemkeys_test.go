package httpapi_test

import (
	"testing"

	"smriti"
	"smriti/store/storetest"
	"smriti/wire"
)

// Items and draft changes carry the key the server matches them by, so a
// client compares keys and keeps no copy of the normalisation.
func TestItemsAndChangesServeTheServersKey(t *testing.T) {
	e := newEnv(t)
	sp := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("Keys"), Description: new("")})).Must(t)
	se := storetest.Get(e.c.CreateSession(bg, &sp.ID, "", "mock", "")).Must(t)
	req := wire.CommitRequest{RepoID: strp(sp.ID.String()), SessionID: strp(se.ID.String())}
	req.Message = strp("Plan")
	req.Decisions = []string{"Use  Go, not Rust!", "East-coast   ONLY.", "Zürich first", "---"}
	cp := storetest.Get(e.c.Commit(bg, req)).Must(t)
	items := storetest.Get(e.c.CheckpointItems(bg, cp.ID)).Must(t)
	want := map[string]string{"Use  Go, not Rust!": "use go not rust", "East-coast   ONLY.": "eastcoast only", "Zürich first": "zürich first", "---": "\x00---"}
	if len(items) != len(want) {
		t.Fatalf("items = %+v", items)
	}
	for _, it := range items {
		if it.Key != want[it.Text] || it.Key != smriti.ItemKey(it.Text) {
			t.Errorf("key of %q = %q, want %q", it.Text, it.Key, want[it.Text])
		}
	}

	md := "# Plan\n\n## Decisions\n- Use Go, not Rust\n- Ship weekly\n"
	ex := storetest.Get(e.c.Extract(bg, md, true, &cp.ID)).Must(t)
	if len(ex.Changes) == 0 {
		t.Fatalf("extract changed nothing: %+v", ex)
	}
	for _, c := range ex.Changes {
		for _, side := range []struct{ text, key *string }{{c.Before, c.BeforeKey}, {c.After, c.AfterKey}} {
			if (side.text == nil) != (side.key == nil) || side.text != nil && *side.key != smriti.ItemKey(*side.text) {
				t.Errorf("change %s %s: text %v, key %v", c.Op, c.ID, side.text, side.key)
			}
		}
	}
	for _, it := range ex.Items {
		if it.Key != smriti.ItemKey(it.Text) {
			t.Errorf("draft item %q keyed %q", it.Text, it.Key)
		}
	}
}
