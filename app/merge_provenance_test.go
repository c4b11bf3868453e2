package app_test

import (
	"context"
	"path/filepath"
	"testing"

	"smriti/app"
	"smriti/store"
	"smriti/store/storetest"
)

// mergeByApp is the App's merge in the shape the store's suite asks for.
func mergeByApp(ctx context.Context, s *store.Store, in storetest.MergeCall) (*storetest.MergeResult, error) {
	out, err := app.MergeCheckpoints(ctx, s, app.MergeRequest{SpaceID: in.SpaceID, SourceID: in.SourceID, Resolutions: in.Resolutions, DryRun: in.DryRun})
	if err != nil {
		return nil, err
	}
	return &storetest.MergeResult{Checkpoint: out.Checkpoint, Merged: out.Merged, Removes: out.Removes}, nil
}

// The App's merge records on the items which side a resolution kept and
// what it rejected, on both engines.
func TestMergeProvenanceSQLite(t *testing.T) {
	storetest.RunMerges(t, func(t *testing.T) *store.Store {
		s, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "smriti.db"), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}, mergeByApp)
}

func TestMergeProvenancePostgres(t *testing.T) {
	storetest.RunMerges(t, func(t *testing.T) *store.Store {
		s, err := store.Open(context.Background(), storetest.PostgresDSN(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}, mergeByApp)
}
