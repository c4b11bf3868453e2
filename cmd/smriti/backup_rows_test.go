package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"smriti"
	"smriti/store"
	"smriti/store/storetest"
)

// A backup restores every row: a store holding every kind of row
// (storetest.FillForBackup: accounts, items, both kinds of merge, version 1
// and 2 hashes, notes, claims, mounts, agent transcripts) is backed up,
// restored into a fresh store, verified checkpoint by checkpoint, and then
// compared with the original table by table, row by row.

func TestBackupRestoresEveryRowSQLite(t *testing.T) {
	for _, format := range []string{"sqlite", "bundles"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			testBackupRestoresEveryRow(t, filepath.Join(dir, "live.db"), filepath.Join(dir, "restored.db"), format, filepath.Join(dir, "backup"))
		})
	}
}

func TestBackupRestoresEveryRowPostgres(t *testing.T) {
	live, restored := storetest.PostgresDSN(t), storetest.PostgresDSN(t)
	testBackupRestoresEveryRow(t, live, restored, "bundles", filepath.Join(t.TempDir(), "backup.tar.gz"))
}

func testBackupRestoresEveryRow(t *testing.T, liveDSN, restoredDSN, format, file string) {
	ctx := context.Background()
	live, err := store.Open(ctx, liveDSN, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	fx := storetest.FillForBackup(t, live)
	if v, err := live.VerifyAll(ctx); err != nil || len(v.Mismatches) != 0 {
		t.Fatalf("the live store does not verify before the backup: %+v %v", v, err)
	}
	switch format {
	case "sqlite":
		err = backupSQLite(ctx, live, file)
	default:
		_, err = writeToNewFile(file, func(w io.Writer) (int, error) { return writeBundleBackup(ctx, live, w) })
	}
	if err != nil {
		t.Fatalf("backup create: %v", err)
	}
	v, err := restoreBackup(ctx, file, restoredDSN)
	if err != nil {
		t.Fatalf("backup restore: %v", err)
	}
	if len(v.Mismatches) != 0 || v.Spaces != len(fx.Spaces) || v.Checkpoints != fx.Checkpoints {
		t.Fatalf("restored store verification = %+v, want %d spaces, %d checkpoints, no mismatch", v, len(fx.Spaces), fx.Checkpoints)
	}
	restored, err := store.Open(ctx, restoredDSN, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Close()

	t.Run("EveryCheckpointVerifies", func(t *testing.T) {
		owners, err := restored.AllSpaces(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, sp := range owners {
			uctx := smriti.WithUser(ctx, sp.OwnerID)
			cps, _, err := restored.Checkpoints(uctx, sp.ID, smriti.CheckpointQuery{Page: smriti.Page{Limit: 1000}})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cps {
				res, err := restored.VerifyCheckpoint(uctx, c.ID)
				if err != nil || !res.OK {
					t.Errorf("verify %s (%s) after restore: %+v %v", c.ID, c.Message, res, err)
				}
				n++
			}
		}
		if n != fx.Checkpoints {
			t.Errorf("verified %d checkpoints, want %d", n, fx.Checkpoints)
		}
	})

	t.Run("EveryTableRowByRow", func(t *testing.T) {
		before, after := storetest.StoreRows(t, live), storetest.StoreRows(t, restored)
		if d := storetest.DiffStoreRows(before, after); len(d) > 0 {
			t.Errorf("%d row(s) differ after restore:\n%s", len(d), strings.Join(d, "\n"))
		}
		for _, table := range []string{"users", "api_tokens", "space_members", "spaces", "sessions", "turns", "checkpoints",
			"checkpoint_items", "checkpoint_notes", "claims", "agent_sessions", "agent_entries"} {
			if len(before[table]) == 0 {
				t.Errorf("the fixture wrote no row of %s", table)
			}
		}
	})
}
