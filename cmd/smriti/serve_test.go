package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"smriti/client"
	"smriti/wire"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// buildBinary compiles smriti once per test run.
func buildBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "smriti-bin")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "smriti")
		out, err := exec.Command("go", "build", "-o", builtBin, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startServer runs `smriti serve` and waits for /health.
func startServer(t *testing.T, bin, addr, db string, extra ...string) *exec.Cmd {
	t.Helper()
	args := append([]string{"serve", "--addr", addr, "--db", db, "--config", filepath.Join(t.TempDir(), "none.yaml"), "--env-file", ""}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=", "ANTHROPIC_API_KEY=", "OPENROUTER_API_KEY=", "SMRITI_GENERIC_API_URL=")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
		}
	}()
	c := client.NewClient("http://" + addr)
	deadline := time.Now().Add(15 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		_, err := c.Health(ctx)
		cancel()
		if err == nil {
			return cmd
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("server did not answer /health: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestAcknowledgedWritesSurviveKill9 kills the server with SIGKILL right
// after a run of acknowledged commits and sends, restarts it on the same
// database file, and finds every one of them.
func TestAcknowledgedWritesSurviveKill9(t *testing.T) {
	bin := buildBinary(t)
	db := filepath.Join(t.TempDir(), "smriti.db")
	addr := freeAddr(t)
	cmd := startServer(t, bin, addr, db)
	c := client.NewClient("http://" + addr)
	ctx := context.Background()
	sp, err := c.CreateSpace(ctx, wire.SpaceCreateRequest{Name: new("Durable"), Description: new("")})
	if err != nil {
		t.Fatal(err)
	}
	se, err := c.CreateSession(ctx, &sp.ID, "", "mock", "")
	if err != nil {
		t.Fatal(err)
	}
	var acked []string
	for i := 0; i < 25; i++ {
		msg := fmt.Sprintf("checkpoint %d", i)
		req := wire.CommitRequest{RepoID: ptr(sp.ID.String()), SessionID: ptr(se.ID.String())}
		req.Message = &msg
		cp, err := c.Commit(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		acked = append(acked, cp.ID.String())
		if _, err := c.Send(ctx, wire.SendRequest{SessionID: ptr(se.ID.String()), Message: &msg, Provider: "mock"}, ""); err != nil {
			t.Fatal(err)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	cmd = startServer(t, bin, addr, db)
	defer func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }()
	list, err := c.Checkpoints(ctx, sp.ID, "main")
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, cp := range list {
		have[cp.ID.String()] = true
	}
	for _, id := range acked {
		if !have[id] {
			t.Fatalf("acknowledged checkpoint %s lost after kill -9", id)
		}
	}
	turns, err := c.AllTurns(ctx, se.ID)
	if err != nil || len(turns) != 50 {
		t.Fatalf("turns after kill -9 = %d (%v), want 50", len(turns), err)
	}
	v, err := c.Verify(ctx, list[0].ID)
	if err != nil || !v.OK || v.Checked != 25 {
		t.Fatalf("verify after restart = %+v, %v", v, err)
	}
}

// TestGracefulShutdownOnSIGTERM: the server exits 0 on SIGTERM.
func TestGracefulShutdownOnSIGTERM(t *testing.T) {
	bin := buildBinary(t)
	cmd := startServer(t, bin, freeAddr(t), filepath.Join(t.TempDir(), "s.db"))
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v", err)
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("server did not stop on SIGTERM")
	}
}

func TestVersionJSON(t *testing.T) {
	out, err := exec.Command(buildBinary(t), "version", "--json").Output()
	if err != nil || !strings.Contains(string(out), `"version"`) {
		t.Fatalf("version --json = %s, %v", out, err)
	}
}

func ptr(s string) *string { return &s }

// TestAttackNonLoopbackStartWithoutAuthRefused: `smriti serve` on every
// interface, without accounts, refuses to start and says why; with
// --insecure-no-auth it starts and warns.
func TestAttackNonLoopbackStartWithoutAuthRefused(t *testing.T) {
	bin := buildBinary(t)
	db := filepath.Join(t.TempDir(), "smriti.db")
	out, err := exec.Command(bin, "serve", "--addr", "0.0.0.0:0", "--db", db, "--env-file", "").CombinedOutput()
	if err == nil {
		t.Fatalf("serve on 0.0.0.0 without auth started: %s", out)
	}
	if !strings.Contains(string(out), "refusing to serve on 0.0.0.0:0 without authentication") {
		t.Fatalf("refusal = %s", out)
	}
	if isLoopback("0.0.0.0:8000") || isLoopback(":8000") || !isLoopback("127.0.0.1:8000") || !isLoopback("[::1]:8000") || !isLoopback("localhost:8000") {
		t.Fatal("isLoopback misjudges an address")
	}
}

func TestServeRefusesWildcardCORSOrigin(t *testing.T) {
	bin := buildBinary(t)
	db := filepath.Join(t.TempDir(), "smriti.db")
	out, err := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--db", db, "--env-file", "", "--cors-origin", "*").CombinedOutput()
	if err == nil || !strings.Contains(string(out), `CORS origin "*" is not allowed`) {
		t.Fatalf("serve with --cors-origin '*': err %v, output %s", err, out)
	}
}

// TestServeRefusesBadMemorySettings: a setting that is not a number stops
// the server at start with what to write instead.
func TestServeRefusesBadMemorySettings(t *testing.T) {
	bin := buildBinary(t)
	tests := []struct {
		env, args []string
		want      string
	}{
		{env: []string{"SMRITI_TURN_CACHE_MB=lots"}, want: `SMRITI_TURN_CACHE_MB="lots" is not a whole number of MiB (0 turns the cache off)`},
		{env: []string{"SMRITI_IDLE_RELEASE=30"}, want: `SMRITI_IDLE_RELEASE="30" is not a duration: use one such as 30s or 2m, or 0 to never release`},
		{args: []string{"--turn-cache-mb", "-1"}, want: "the turn cache bound must be 0 (off) or more MiB, not -1"},
		{args: []string{"--idle-release", "-1s"}, want: "the idle release time must be 0 (never) or more, not -1s"},
	}
	for _, tt := range tests {
		args := append([]string{"serve", "--addr", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "s.db"), "--env-file", ""}, tt.args...)
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), tt.env...)
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), tt.want) {
			t.Errorf("serve %v with %v: err %v, output %s; want %q", tt.args, tt.env, err, out, tt.want)
		}
	}
}

// TestIdleServerHandsBackMemoryAndKeepsServing: after a burst and a quiet
// spell the server's file-backed resident memory (its binary's pages)
// falls, and the next requests find everything the burst wrote.
func TestIdleServerHandsBackMemoryAndKeepsServing(t *testing.T) {
	bin := buildBinary(t)
	addr := freeAddr(t)
	cmd := startServer(t, bin, addr, filepath.Join(t.TempDir(), "s.db"), "--idle-release", "300ms")
	defer func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }()
	c := client.NewClient("http://" + addr)
	ctx := context.Background()
	se, err := c.CreateSession(ctx, nil, "", "mock", "")
	if err != nil {
		t.Fatal(err)
	}
	burst := func(from int) {
		for i := from; i < from+20; i++ {
			msg := fmt.Sprintf("message %d", i)
			if _, err := c.Send(ctx, wire.SendRequest{SessionID: ptr(se.ID.String()), Message: &msg, Provider: "mock"}, ""); err != nil {
				t.Fatal(err)
			}
		}
	}
	burst(0)
	busy := residentKB(t, cmd.Process.Pid, "RssFile:")
	deadline := time.Now().Add(15 * time.Second)
	for residentKB(t, cmd.Process.Pid, "RssFile:") > busy/2 {
		if time.Now().After(deadline) {
			t.Fatalf("file-backed RSS %d kB after a quiet spell, %d kB after the burst: nothing handed back",
				residentKB(t, cmd.Process.Pid, "RssFile:"), busy)
		}
		time.Sleep(50 * time.Millisecond)
	}
	burst(20)
	turns, err := c.AllTurns(ctx, se.ID)
	if err != nil || len(turns) != 80 {
		t.Fatalf("turns after the release = %d (%v), want 80", len(turns), err)
	}
	for i, tr := range turns {
		if tr.SequenceNumber != int64(i) {
			t.Fatalf("turn %d has sequence number %d", i, tr.SequenceNumber)
		}
	}
}

// residentKB reads one of the resident-set lines of /proc/PID/status.
func residentKB(t *testing.T, pid int, field string) int {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == field {
			n, err := strconv.Atoi(f[1])
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("no %s line in /proc/%d/status", field, pid)
	return 0
}
