package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"smriti"
	"smriti/client"
	"smriti/store/storetest"
	"smriti/wire"
)

// TestBackupWhileServingSQLite: a server on SQLite takes writes; while it
// serves, and while one more space keeps taking sends, `smriti backup
// create` copies it; `backup restore` writes the copy to a new file; a
// server on the restored file answers `smriti verify` for every space's
// head, and every checkpoint, note, session and turn of the quiet spaces is
// exported byte for byte as before (the busy space's restored rows are a
// subset of what the live one ends with).
func TestBackupWhileServingSQLite(t *testing.T) {
	dir := t.TempDir()
	testBackupRoundTrip(t, filepath.Join(dir, "live.db"), filepath.Join(dir, "restored.db"), filepath.Join(dir, "backup.db"))
}

// TestBackupWhileServingPostgres is the same round trip on PostgreSQL, where
// the backup is a bundle archive of every space plus the accounts.
func TestBackupWhileServingPostgres(t *testing.T) {
	live, restored := storetest.PostgresDSN(t), storetest.PostgresDSN(t)
	testBackupRoundTrip(t, live, restored, filepath.Join(t.TempDir(), "backup.tar.gz"))
}

func testBackupRoundTrip(t *testing.T, liveDB, restoredDB, backupFile string) {
	bin := buildBinary(t)
	ctx := context.Background()
	runOK(t, bin, "password-long-enough\n", "user", "add", "alice", "--db", liveDB)

	addr := freeAddr(t)
	srv := startServer(t, bin, addr, liveDB)
	defer func() { srv.Process.Signal(syscall.SIGTERM); srv.Wait() }()
	c := client.NewClient("http://" + addr)
	quiet := []smriti.ID{fillSpace(t, c, "Quiet one", 3), fillSpace(t, c, "Quiet two", 2)}
	busy := fillSpace(t, c, "Busy", 1)

	// One client keeps sending into the busy space while the backup runs.
	busySession, err := c.CreateSession(ctx, &busy, "busy", "mock", "")
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var sendErr error
	sends := 0
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			msg := fmt.Sprintf("busy %d", sends)
			if _, err := c.Send(ctx, wire.SendRequest{SessionID: ptr(busySession.ID.String()), Message: &msg, Provider: "mock"}, ""); err != nil {
				sendErr = err
				return
			}
			sends++
		}
	}()
	out := runOK(t, bin, "", "backup", "create", "--db", liveDB, backupFile)
	close(stop)
	wg.Wait()
	if sendErr != nil {
		t.Fatalf("send while backing up: %v", sendErr)
	}
	if !strings.HasPrefix(out, "Backed up ") {
		t.Fatalf("backup create said %q", out)
	}
	if _, err := os.Stat(backupFile + ".partial"); !os.IsNotExist(err) {
		t.Fatalf("backup left %s.partial behind (%v)", backupFile, err)
	}
	runFails(t, bin, "already exists", "backup", "create", "--db", liveDB, backupFile)

	out = runOK(t, bin, "", "backup", "restore", "--db", restoredDB, backupFile)
	if !strings.Contains(out, "Restored 3 space(s)") || !strings.Contains(out, "every checkpoint hash matches") {
		t.Fatalf("backup restore said %q", out)
	}
	runFails(t, bin, "", "backup", "restore", "--db", restoredDB, backupFile)
	users := runOK(t, bin, "", "user", "list", "--db", restoredDB, "--json")
	if !strings.Contains(users, `"alice"`) {
		t.Fatalf("restored users = %s, want alice among them", users)
	}

	addr2 := freeAddr(t)
	srv2 := startServer(t, bin, addr2, restoredDB)
	defer func() { srv2.Process.Signal(syscall.SIGTERM); srv2.Wait() }()
	c2 := client.NewClient("http://" + addr2)

	for _, id := range append(quiet, busy) {
		head, err := c2.LatestCheckpoint(ctx, id, "main")
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "verify", head.ID.String())
		cmd.Env = append(os.Environ(), "SMRITI_API_URL=http://"+addr2, "SMRITI_TOKEN=")
		got, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(got), "every hash matches") {
			t.Fatalf("smriti verify %s on the restored store: %v\n%s", head.ID, err, got)
		}
	}
	for _, id := range quiet {
		want, got := exportOf(t, c, id), exportOf(t, c2, id)
		if !bytes.Equal(want, got) {
			t.Fatalf("space %s after restore differs:\nlive:     %s\nrestored: %s", id, want, got)
		}
	}
	// The busy space: every checkpoint and turn restored is one the live
	// space holds, byte for byte, and the writes from before the backup are
	// all there.
	live := map[string]bool{}
	for _, line := range storetest.BundleLines(t, exportOf(t, c, busy)) {
		live[line] = true
	}
	turns := 0
	for _, line := range storetest.BundleLines(t, exportOf(t, c2, busy)) {
		isTurn := strings.Contains(line, `"type":"turn"`)
		if isTurn || strings.Contains(line, `"type":"checkpoint"`) {
			if !live[line] {
				t.Fatalf("restored busy-space row is not in the live space: %s", line)
			}
		}
		if isTurn {
			turns++
		}
	}
	if turns < 2 {
		t.Fatalf("restored busy space has %d turns, want at least the 2 written before the backup", turns)
	}
	t.Logf("%d sends ran during the backup; %d busy-space turns restored", sends, turns)
}

// fillSpace makes a space with a session, n checkpoints each followed by
// a send, and a note on the last checkpoint.
func fillSpace(t *testing.T, c *client.Client, name string, n int) smriti.ID {
	t.Helper()
	ctx := context.Background()
	sp, err := c.CreateSpace(ctx, wire.SpaceCreateRequest{Name: new(name), Description: new("backup test")})
	if err != nil {
		t.Fatal(err)
	}
	se, err := c.CreateSession(ctx, &sp.ID, name+" session", "mock", "")
	if err != nil {
		t.Fatal(err)
	}
	var last smriti.ID
	for i := 0; i < n; i++ {
		msg := fmt.Sprintf("%s message %d", name, i)
		if _, err := c.Send(ctx, wire.SendRequest{SessionID: ptr(se.ID.String()), Message: &msg, Provider: "mock"}, ""); err != nil {
			t.Fatal(err)
		}
		req := wire.CommitRequest{RepoID: ptr(sp.ID.String()), SessionID: ptr(se.ID.String())}
		cmsg := fmt.Sprintf("%s checkpoint %d", name, i)
		req.Message = &cmsg
		cp, err := c.Commit(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		last = cp.ID
	}
	if _, err := c.AddNote(ctx, last, "checked by the backup test", "tester", ""); err != nil {
		t.Fatal(err)
	}
	return sp.ID
}

func exportOf(t *testing.T, c *client.Client, id smriti.ID) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := c.ExportSpace(context.Background(), id, &b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// runOK runs the binary with stdin and fails the test unless it exits 0;
// it returns standard output.
func runOK(t *testing.T, bin, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("smriti %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// runFails runs the binary and fails the test unless it exits non-zero
// with want in its standard error.
func runFails(t *testing.T, bin, want string, args ...string) {
	t.Helper()
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err == nil || !strings.Contains(string(out), want) {
		t.Fatalf("smriti %s = %v, %q; want a failure saying %q", strings.Join(args, " "), err, out, want)
	}
}

// TestBackupSQLiteIntoPostgres: an SQLite backup restores into PostgreSQL
// (through bundles), and the space reads back byte for byte.
func TestBackupSQLiteIntoPostgres(t *testing.T) {
	pg := storetest.PostgresDSN(t)
	bin := buildBinary(t)
	dir := t.TempDir()
	live, backup := filepath.Join(dir, "live.db"), filepath.Join(dir, "backup.db")
	addr := freeAddr(t)
	srv := startServer(t, bin, addr, live)
	c := client.NewClient("http://" + addr)
	id := fillSpace(t, c, "Moving to PostgreSQL", 2)
	want := exportOf(t, c, id)
	srv.Process.Signal(syscall.SIGTERM)
	srv.Wait()
	runOK(t, bin, "", "backup", "create", "--db", live, backup)
	out := runOK(t, bin, "", "backup", "restore", "--db", pg, backup)
	if !strings.Contains(out, "Restored 1 space(s), 2 checkpoint(s), 4 turn(s)") {
		t.Fatalf("restore said %q", out)
	}
	addr2 := freeAddr(t)
	srv2 := startServer(t, bin, addr2, pg)
	defer func() { srv2.Process.Signal(syscall.SIGTERM); srv2.Wait() }()
	if got := exportOf(t, client.NewClient("http://"+addr2), id); !bytes.Equal(want, got) {
		t.Fatalf("space after SQLite → PostgreSQL restore differs:\nlive:     %s\nrestored: %s", want, got)
	}
}
