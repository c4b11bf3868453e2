package storetest

import (
	"bytes"
	"fmt"
	"testing"

	"smriti"
	"smriti/portability"
	"smriti/store"
)

// spaceNameCases: space names are unique per owner, on both engines.
var spaceNameCases = []struct {
	name string
	fn   func(t *testing.T, s *store.Store)
}{
	{"SpaceNameTakenConflictsNamingTheSpace", testSpaceNameTaken},
	{"ImportAsNewPicksAFreeName", testImportAsNewName},
}

func testSpaceNameTaken(t *testing.T, s *store.Store) {
	ctx := userCtx()
	demo := Get(s.CreateSpace(ctx, smriti.SpaceCreate{Name: "demo"})).Must(t)
	_, err := s.CreateSpace(ctx, smriti.SpaceCreate{Name: "demo", Description: "again"})
	wantCode(t, err, smriti.ECONFLICT)
	if want := fmt.Sprintf("You already have a space named \"demo\" (id %s); choose another name", demo.ID); smriti.ErrorMessage(err) != want {
		t.Fatalf("second demo: %q, want %q", smriti.ErrorMessage(err), want)
	}
	// Names are compared exactly, and per owner.
	Get(s.CreateSpace(ctx, smriti.SpaceCreate{Name: "Demo"})).Must(t)
	Get(s.CreateSpace(userCtx(), smriti.SpaceCreate{Name: "demo"})).Must(t)
	if spaces, _, _ := s.Spaces(ctx, smriti.Page{}); len(spaces) != 2 {
		t.Fatalf("the owner has %d spaces, want 2", len(spaces))
	}
	// A deleted space's name is free again.
	if err := s.DeleteSpace(ctx, demo.ID); err != nil {
		t.Fatal(err)
	}
	Get(s.CreateSpace(ctx, smriti.SpaceCreate{Name: "demo"})).Must(t)
}

func testImportAsNewName(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := Get(s.CreateSpace(ctx, smriti.SpaceCreate{Name: "demo"})).Must(t)
	se := newSession(t, ctx, s, sp)
	commit(t, ctx, s, sp, se, "First", "A decision")
	b := exportBytes(t, ctx, s, sp.ID)
	for _, want := range []string{"demo (2)", "demo (3)"} {
		cp := Get(portability.ImportSpace(ctx, s, bytes.NewReader(b), true)).Must(t)
		if cp.Name != want {
			t.Fatalf("import as new named %q, want %q", cp.Name, want)
		}
		if got := Get(s.Space(ctx, cp.ID)).Must(t); got.Name != want {
			t.Fatalf("stored as %q, want %q", got.Name, want)
		}
	}
}
