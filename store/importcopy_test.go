package store_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"smriti"
	"smriti/app"
	"smriti/internal/synthbundle"
	"smriti/portability"
	"smriti/store"
	"smriti/store/storetest"
)

// TestImportByCopyWritesTheRowsInsertsWrite: on PostgreSQL a space import
// writes its rows with COPY, and the rows are exactly those its multi-row
// inserts write — search columns, running token totals and the events
// the triggers record included — for every kind of row a space holds
// (storetest.FillForBackup's spaces: merges, resolutions, notes, claims,
// mounts, receipts, proposals, version 1 checkpoints) and for a space
// large enough to take many batches.
func TestImportByCopyWritesTheRowsInsertsWrite(t *testing.T) {
	ctx := smriti.WithUser(context.Background(), smriti.LocalUserID)
	src := openPostgresStore(t, store.Options{})
	fx := storetest.FillForBackup(t, src, mergeByApp)
	var bundles [][]byte
	var owners []context.Context
	for _, id := range fx.Spaces {
		var owner smriti.ID
		if err := src.DB().QueryRow(`SELECT owner_id FROM spaces WHERE id = $1`, id).Scan(&owner); err != nil {
			t.Fatal(err)
		}
		octx := smriti.WithUser(context.Background(), owner)
		var buf bytes.Buffer
		w, err := portability.NewBundleWriter(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if err := src.ExportSpace(octx, id, w); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		bundles, owners = append(bundles, buf.Bytes()), append(owners, octx)
	}
	path := filepath.Join(t.TempDir(), "big.bundle")
	if _, err := synthbundle.WriteFile(path, 150, 30, 1000); err != nil {
		t.Fatal(err)
	}
	big, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bundles, owners = append(bundles, big), append(owners, ctx)

	// byPooler speaks the simple protocol, as behind a transaction-mode
	// pooler: its COPY learns the column types by a statement of its own.
	byCopy, byInsert, byPooler := openPostgresStore(t, store.Options{}), openPostgresStore(t, store.Options{}),
		openPostgresStore(t, store.Options{Pooler: store.PoolerTransaction})
	byCopy.SetImportCopyMinRows(1)
	byPooler.SetImportCopyMinRows(1)
	byInsert.SetImportCopyMinRows(-1)
	for i, b := range bundles {
		for _, s := range []*store.Store{byInsert, byCopy, byPooler} {
			if _, err := portability.ImportSpace(owners[i], s, bytes.NewReader(b), false); err != nil {
				t.Fatal(err)
			}
		}
	}
	want, got := storetest.StoreRows(t, byInsert), storetest.StoreRows(t, byCopy)
	if diff := storetest.DiffStoreRows(want, got); len(diff) > 0 {
		t.Fatalf("the rows COPY wrote differ from the rows inserts wrote:\n%s", strings.Join(diff, "\n"))
	}
	if diff := storetest.DiffStoreRows(want, storetest.StoreRows(t, byPooler)); len(diff) > 0 {
		t.Fatalf("the rows COPY wrote in the simple protocol differ from the rows inserts wrote:\n%s", strings.Join(diff, "\n"))
	}
	if n := len(got["checkpoints"]); n != fx.Checkpoints+150 {
		t.Fatalf("%d checkpoints imported, want %d", n, fx.Checkpoints+150)
	}
	if n := countWith(got["checkpoint_items"], "Decision 7: keep the service"); n != 150 {
		t.Fatalf("%d item rows of the large space's item d-000007, want 150", n)
	}
	if n := countWith(got["turns"], "Turn 9 of session "); n != 100 {
		t.Fatalf("%d turns numbered 9 in the large space, want 100", n)
	}
	wantEvents, gotEvents := spaceEvents(t, byInsert), spaceEvents(t, byCopy)
	for _, got := range [][]string{gotEvents, spaceEvents(t, byPooler)} {
		if strings.Join(wantEvents, "\n") != strings.Join(got, "\n") {
			t.Fatalf("space events after COPY:\n%s\nafter inserts:\n%s", strings.Join(got, "\n"), strings.Join(wantEvents, "\n"))
		}
	}
	// 150 checkpoints and 500 assistant turns of the large space, and
	// more of the fixture's.
	if len(gotEvents) < 650 {
		t.Fatalf("%d space events, want at least 650", len(gotEvents))
	}
}

func openPostgresStore(t *testing.T, o store.Options) *store.Store {
	t.Helper()
	s, err := store.OpenWith(context.Background(), storetest.PostgresDSN(t), nil, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func countWith(rows []string, part string) int {
	n := 0
	for _, r := range rows {
		if strings.Contains(r, part) {
			n++
		}
	}
	return n
}

// spaceEvents is the store's space events but their time, in order.
func spaceEvents(t *testing.T, s *store.Store) []string {
	t.Helper()
	rows, err := s.DB().Query(`SELECT space_id::text || ' ' || position || ' ' || kind || ' ' || subject_id::text || ' ' || COALESCE(branch_name, '-')
		FROM space_events ORDER BY space_id, position`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		out = append(out, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// mergeByApp is the App's merge in the shape the store's suite asks for.
func mergeByApp(ctx context.Context, s *store.Store, in storetest.MergeCall) (*storetest.MergeResult, error) {
	out, err := app.MergeCheckpoints(ctx, s, app.MergeRequest{SpaceID: in.SpaceID, SourceID: in.SourceID, Resolutions: in.Resolutions, DryRun: in.DryRun})
	if err != nil {
		return nil, err
	}
	return &storetest.MergeResult{Checkpoint: out.Checkpoint, Merged: out.Merged, Removes: out.Removes}, nil
}

// TestLargeImportIntoPostgresCountsItsTables: an import that copies many
// rows into a table that was empty analyzes it before it answers, so the
// first reads of the space are planned on the table as it now is (the
// item and turn counts are the planner's), and a table it wrote few rows
// into is left to autovacuum.
func TestLargeImportIntoPostgresCountsItsTables(t *testing.T) {
	ctx := smriti.WithUser(context.Background(), smriti.LocalUserID)
	s := openPostgresStore(t, store.Options{})
	path := filepath.Join(t.TempDir(), "space.bundle")
	if _, err := synthbundle.WriteFile(path, 100, 30, 1000); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := portability.ImportSpace(ctx, s, f, false); err != nil {
		t.Fatal(err)
	}
	for table, want := range map[string]float64{"checkpoint_items": 3000, "turns": 1000} {
		var counted float64
		if err := s.DB().QueryRow(`SELECT reltuples FROM pg_class WHERE oid = to_regclass($1)`, table).Scan(&counted); err != nil {
			t.Fatal(err)
		}
		if counted != want {
			t.Errorf("the planner counts %v rows in %s, want %v", counted, table, want)
		}
	}
}
