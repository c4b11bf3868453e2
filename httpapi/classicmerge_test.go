package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"smriti/store/storetest"
	"smriti/wire"
)

// A classic client (text only, no item ids) edits one decision two ways:
// "$12" on a checkpoint, "$14" on main, "$10" on a branch forked from it.
// The merge is one both_changed conflict keyed by that decision's id, not
// two unrelated additions; the resolved merge holds exactly one pricing
// decision, with the id it had from the start.
func TestClassicEditsMergeAsOneConflict(t *testing.T) {
	e := newEnv(t)
	space := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("pricing")})).Must(t)
	se := storetest.Get(e.c.CreateSession(bg, &space.ID, "s", "mock", "m")).Must(t)
	c1 := commitVia(t, e, space.ID, se.ID, "C1", "Pricing is per-seat at $12", "Use Go")
	fork := storetest.Get(e.c.Fork(bg, wire.ForkRequest{SpaceID: sp(space.ID.String()), CheckpointID: sp(c1.ID.String()), BranchName: "alt"})).Must(t)
	m := commitVia(t, e, space.ID, se.ID, "main edit", "Pricing is per-seat at $14", "Use Go")
	b := commitVia(t, e, space.ID, fork.SessionID, "alt edit", "Pricing is per-seat at $10", "Use Go")
	price := itemByText(t, storetest.Get(e.c.CheckpointItems(bg, c1.ID)).Must(t), "Pricing is per-seat at $12").ID
	for _, cp := range []*wire.Commit{m, b} {
		if got := itemByText(t, storetest.Get(e.c.CheckpointItems(bg, cp.ID)).Must(t), cp.Decisions[0]).ID; got != price {
			t.Fatalf("%s: the edited decision has id %s, want %s (an edit keeps the id)", cp.Message, got, price)
		}
	}
	merge := func(body string) (int, string) {
		return e.raw(t, http.MethodPost, "/api/v5/lineage/merge", fmt.Sprintf(`{"space_id":%q,"source_checkpoint_id":%q,"target_checkpoint_id":%q%s}`, space.ID, b.ID, m.ID, body))
	}
	code, out := merge(`,"dry_run":true`)
	var pv wire.MergePreview
	if err := json.Unmarshal([]byte(out), &pv); code != http.StatusOK || err != nil {
		t.Fatalf("preview = %d %s", code, out)
	}
	var got []string
	for _, c := range pv.Conflicts {
		got = append(got, fmt.Sprintf("%s %s %s %q %q %q", c.Field, c.Key, c.Kind, c.Base, c.Ours, c.Theirs))
	}
	want := fmt.Sprintf(`decisions %s both_changed "Pricing is per-seat at $12" "Pricing is per-seat at $14" "Pricing is per-seat at $10"`, price)
	if strings.Join(got, "; ") != want {
		t.Fatalf("conflicts = %s\nwant %s", strings.Join(got, "; "), want)
	}
	if code, out := merge(``); code != http.StatusConflict || !strings.Contains(out, `"key":"`+price+`"`) {
		t.Fatalf("unresolved merge = %d %s, want 409 naming %s", code, out, price)
	}
	code, out = merge(fmt.Sprintf(`,"resolutions":[{"field":"decisions","key":%q,"choice":"theirs"}]`, price))
	var res struct {
		Checkpoint wire.Commit `json:"checkpoint"`
	}
	if err := json.Unmarshal([]byte(out), &res); code != http.StatusCreated || err != nil {
		t.Fatalf("resolved merge = %d %s, want 201", code, out)
	}
	merged := res.Checkpoint
	if got := strings.Join(merged.Decisions, "|"); got != "Pricing is per-seat at $10|Use Go" {
		t.Fatalf("merged decisions = %s, want exactly one pricing decision ($10) and Use Go", got)
	}
	if got := itemByText(t, storetest.Get(e.c.CheckpointItems(bg, merged.ID)).Must(t), "Pricing is per-seat at $10").ID; got != price {
		t.Fatalf("merged pricing id %s, want %s", got, price)
	}
}
