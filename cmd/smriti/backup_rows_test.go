package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"smriti"
	"smriti/app"
	"smriti/client"
	"smriti/contract"
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
	fx := storetest.FillForBackup(t, live, mergeByApp)
	if v, err := live.VerifyAll(ctx); err != nil || len(v.Mismatches) != 0 {
		t.Fatalf("the live store does not verify before the backup: %+v %v", v, err)
	}
	switch format {
	case "sqlite":
		_, err = backups().Write(ctx, live, file, "sqlite")
	default:
		_, err = backups().Write(ctx, live, file, "bundles")
	}
	if err != nil {
		t.Fatalf("backup create: %v", err)
	}
	v, err := backups().Restore(ctx, file, restoredDSN)
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
			cps, _, err := restored.Checkpoints(uctx, sp.ID, contract.CheckpointQuery{Page: smriti.Page{Limit: 1000}})
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
			"checkpoint_items", "checkpoint_notes", "claims", "agent_sessions", "agent_entries", "compaction_receipts"} {
			if len(before[table]) == 0 {
				t.Errorf("the fixture wrote no row of %s", table)
			}
		}
	})
}

// An SQLite backup restored into PostgreSQL (through bundles) verifies and
// holds as many rows of each compared table as the original.
func TestBackupSQLiteRestoresIntoPostgres(t *testing.T) {
	restoredDSN := storetest.PostgresDSN(t)
	ctx := context.Background()
	dir := t.TempDir()
	live, err := store.Open(ctx, filepath.Join(dir, "live.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	fx := storetest.FillForBackup(t, live, mergeByApp)
	file := filepath.Join(dir, "backup.db")
	if _, err := backups().Write(ctx, live, file, "sqlite"); err != nil {
		t.Fatal(err)
	}
	v, err := backups().Restore(ctx, file, restoredDSN)
	if err != nil {
		t.Fatalf("restore into PostgreSQL: %v", err)
	}
	if len(v.Mismatches) != 0 || v.Checkpoints != fx.Checkpoints || v.Spaces != len(fx.Spaces) {
		t.Fatalf("verification = %+v, want %d checkpoints in %d spaces, no mismatch", v, fx.Checkpoints, len(fx.Spaces))
	}
	restored, err := store.Open(ctx, restoredDSN, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Close()
	before, after := storetest.StoreRows(t, live), storetest.StoreRows(t, restored)
	for _, table := range []string{"users", "api_tokens", "space_members", "spaces", "sessions", "turns", "checkpoints",
		"checkpoint_items", "checkpoint_notes", "claims", "task_holds", "agent_sessions", "agent_entries"} {
		if len(before[table]) == 0 || len(before[table]) != len(after[table]) {
			t.Errorf("%s: %d row(s) in SQLite, %d restored into PostgreSQL", table, len(before[table]), len(after[table]))
		}
	}
}

// `smriti backup create`, `smriti backup restore` and `smriti verify`, as
// a person runs them, exit 0 on a store with items, both kinds of merge
// and checkpoints of both hash versions; verify runs on every checkpoint of
// the local user's spaces on a server started on the restored store.
func TestBackupCLIRoundTripVerifies(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) {
		dir := t.TempDir()
		testBackupCLI(t, filepath.Join(dir, "live.db"), filepath.Join(dir, "restored.db"), filepath.Join(dir, "backup.db"))
	})
	t.Run("SQLiteAsBundles", func(t *testing.T) {
		dir := t.TempDir()
		testBackupCLI(t, filepath.Join(dir, "live.db"), filepath.Join(dir, "restored.db"), filepath.Join(dir, "backup.tar.gz"), "--format", "bundles")
	})
	t.Run("Postgres", func(t *testing.T) {
		live, restored := storetest.PostgresDSN(t), storetest.PostgresDSN(t)
		testBackupCLI(t, live, restored, filepath.Join(t.TempDir(), "backup.tar.gz"))
	})
}

func testBackupCLI(t *testing.T, liveDSN, restoredDSN, file string, createFlags ...string) {
	bin := buildBinary(t)
	ctx := context.Background()
	live, err := store.Open(ctx, liveDSN, nil)
	if err != nil {
		t.Fatal(err)
	}
	fx := storetest.FillForBackup(t, live, mergeByApp)
	live.Close()

	out := runOK(t, bin, "", append([]string{"backup", "create", "--db", liveDSN}, append(createFlags, file)...)...)
	if !strings.HasPrefix(out, "Backed up ") {
		t.Fatalf("backup create said %q", out)
	}
	out = runOK(t, bin, "", "backup", "restore", "--db", restoredDSN, file)
	want := fmt.Sprintf("Restored %d space(s), %d checkpoint(s), ", len(fx.Spaces), fx.Checkpoints)
	if !strings.HasPrefix(out, want) || !strings.Contains(out, "every checkpoint hash matches") {
		t.Fatalf("backup restore said %q, want it to start %q and say every hash matches", out, want)
	}

	addr := freeAddr(t)
	srv := startServer(t, bin, addr, restoredDSN)
	defer func() { srv.Process.Signal(syscall.SIGTERM); srv.Wait() }()
	c := client.NewClient("http://" + addr)
	verified, merges, v1 := 0, 0, 0
	for _, id := range fx.Spaces {
		page, err := c.Checkpoints(ctx, id, "")
		if smriti.ErrorCode(err) == smriti.ENOTFOUND {
			continue // another user's space: the local server does not show it
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, cp := range page {
			cmd := exec.Command(bin, "verify", cp.ID.String())
			cmd.Env = append(os.Environ(), "SMRITI_API_URL=http://"+addr, "SMRITI_TOKEN=")
			got, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(got), "every hash matches") {
				t.Errorf("smriti verify %s (%s) on the restored store: %v\n%s", cp.ID, cp.Message, err, got)
			}
			verified++
			if cp.MergeParentID != nil {
				merges++
			}
		}
	}
	restored, err := store.Open(ctx, restoredDSN, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Close()
	if err := restored.DB().QueryRow(`SELECT COUNT(*) FROM checkpoints WHERE hash_version = 1`).Scan(&v1); err != nil {
		t.Fatal(err)
	}
	if verified != fx.Checkpoints-1 || merges != 2 || v1 != 2 {
		t.Errorf("verified %d checkpoints (%d merges), %d of version 1; want %d, 2 merges, 2 of version 1", verified, merges, v1, fx.Checkpoints-1)
	}
}

// mergeByApp is the App's merge in the shape the store's suite asks for.
func mergeByApp(ctx context.Context, s *store.Store, in storetest.MergeCall) (*storetest.MergeResult, error) {
	out, err := app.MergeCheckpoints(ctx, s, app.MergeRequest{SpaceID: in.SpaceID, SourceID: in.SourceID, Resolutions: in.Resolutions, DryRun: in.DryRun})
	if err != nil {
		return nil, err
	}
	return &storetest.MergeResult{Checkpoint: out.Checkpoint, Merged: out.Merged, Removes: out.Removes}, nil
}
