package storetest

import (
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"testing"

	"smriti"
	"smriti/portability"
	"smriti/store"
)

// testItemRefs: an item's refs are stored with it, carried to the next
// checkpoint when a write does not give new ones, replaced when it does,
// kept on its tombstone, left out of the hash, and in a bundle.
func testItemRefs(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	se := newSession(t, ctx, s, sp)
	sym := "app.Send"
	ref := smriti.ItemRef{Path: "app/send.go", Lines: &smriti.LineRange{From: 4, To: 7}, Symbol: &sym,
		Commit: strings.Repeat("ab", 20), SpanHash: strings.Repeat("cd", 32)}
	a := Get(s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: se.ID,
		Content: smriti.Content{Message: "A", Decisions: []string{"Sends go through app.Send", "Use Go"}},
		Items:   []smriti.Item{{Kind: smriti.KindDecision, Text: "Sends go through app.Send", Refs: []smriti.ItemRef{ref}}}})).Must(t)
	got := itemNamed(t, Get(s.CheckpointItems(ctx, a.ID)).Must(t), "Sends go through app.Send")
	if len(got.Refs) != 1 || got.Refs[0].String() != "app/send.go#app.Send:4-7" || got.Refs[0].Commit != ref.Commit || got.Refs[0].SpanHash != ref.SpanHash {
		t.Fatalf("stored refs = %+v", got.Refs)
	}
	if goItem := itemNamed(t, Get(s.CheckpointItems(ctx, a.ID)).Must(t), "Use Go"); goItem.Refs != nil {
		t.Errorf("an item citing nothing has refs %+v", goItem.Refs)
	}
	b := commit(t, ctx, s, sp, se, "B", "Sends go through app.Send", "Use Go", "Ship weekly")
	if carried := itemNamed(t, Get(s.CheckpointItems(ctx, b.ID)).Must(t), "Sends go through app.Send"); len(carried.Refs) != 1 || carried.Refs[0].Path != ref.Path || carried.Change != nil {
		t.Fatalf("carried item = %+v, want its ref and no change", carried)
	}
	other := ref
	other.Path, other.Lines, other.Symbol = "app/retry.go", nil, nil
	c := Get(s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: se.ID,
		Content: smriti.Content{Message: "C", Decisions: []string{"Sends go through app.Send", "Ship weekly"}},
		Items:   []smriti.Item{{ID: got.ID, Kind: smriti.KindDecision, Text: "Sends go through app.Send", Refs: []smriti.ItemRef{other}}}})).Must(t)
	items := Get(s.CheckpointItems(ctx, c.ID)).Must(t)
	if replaced := itemNamed(t, items, "Sends go through app.Send"); len(replaced.Refs) != 1 || replaced.Refs[0].String() != "app/retry.go" {
		t.Errorf("replaced refs = %+v", replaced.Refs)
	}
	if tomb := itemNamed(t, items, "Use Go"); tomb.Status != smriti.ItemRetracted {
		t.Errorf("dropped item = %+v", tomb)
	}
	// Refs are evidence beside the state, not the state: the hash does not
	// cover them.
	if _, err := s.DB().Exec(s.Rebind(`UPDATE checkpoint_items SET refs = NULL WHERE checkpoint_id = ?`), a.ID); err != nil {
		t.Fatal(err)
	}
	if v := Get(s.VerifyCheckpoint(ctx, c.ID)).Must(t); !v.OK {
		t.Errorf("verify after clearing refs = %+v", v)
	}
	first := exportBytes(t, ctx, s, sp.ID)
	zr, err := gzip.NewReader(bytes.NewReader(first))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(plain, []byte(`"refs":[{"path":"app/retry.go","lines":null,"symbol":null,"commit":"`)) {
		t.Fatalf("the bundle has no refs")
	}
	if err := s.DeleteSpace(ctx, sp.ID); err != nil {
		t.Fatal(err)
	}
	Get(portability.ImportSpace(ctx, s, bytes.NewReader(first), false)).Must(t)
	back := itemNamed(t, Get(s.CheckpointItems(ctx, c.ID)).Must(t), "Sends go through app.Send")
	if len(back.Refs) != 1 || back.Refs[0].String() != "app/retry.go" {
		t.Errorf("imported refs = %+v", back.Refs)
	}
	if second := exportBytes(t, ctx, s, sp.ID); !bytes.Equal(first, second) {
		t.Errorf("re-export differs: %d bytes vs %d", len(first), len(second))
	}
}
