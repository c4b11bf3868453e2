package main

import (
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"smriti/app"
	"smriti/client"
	"smriti/gitcli"
	"smriti/httpapi"
	"smriti/provider"
	"smriti/store"
)

// TestMain lets the test binary run as `smriti` inside the scripts, so the
// scripts exercise the real command tree, flags, output and exit codes.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"smriti": main,
	})
}

// TestCLIScripts runs testdata/script/*.txtar. Each script gets its own
// server on 127.0.0.1 over a fresh SQLite file (with the offline mock as
// every provider) and SMRITI_API_URL pointing at it; $DEADURL is a port
// nothing listens on.
func TestCLIScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:   "testdata/script",
		Setup: setupScriptServer,
		Cmds:  map[string]func(*testscript.TestScript, bool, []string){"exitcode": cmdExitCode, "sessions": cmdSessions},
	})
}

func setupScriptServer(env *testscript.Env) error {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(env.WorkDir, ".smriti.db"), nil)
	if err != nil {
		return err
	}
	cfg, err := provider.Load(provider.LoadOptions{})
	if err != nil {
		return err
	}
	srv := httpapi.New(apiConfig(db, provider.New(cfg), nil, &app.Coordinator{Briefs: db, Store: db, Git: gitcli.New(), Root: filepath.Join(env.WorkDir, ".worktrees")}, nil, app.GateConfig{}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	deadURL := "http://" + dead.Addr().String()
	dead.Close()
	env.Setenv("SMRITI_API_URL", "http://"+ln.Addr().String())
	env.Setenv("DEADURL", deadURL)
	env.Setenv("HOME", env.WorkDir)
	env.Defer(func() {
		hs.Close()
		db.Close()
	})
	return nil
}

// cmdExitCode is `exitcode N prog args...`: run prog and fail unless it
// exits with status N (exec only tells zero from non-zero).
func cmdExitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N prog [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %v", err)
	}
	prog := args[1]
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		if p := filepath.Join(dir, prog); fileExists(p) {
			prog = p
			break
		}
	}
	c := exec.Command(prog, args[2:]...)
	c.Dir = ts.Getenv("PWD")
	env := os.Environ()
	for _, k := range []string{"PATH", "HOME", "SMRITI_API_URL", "SMRITI_TOKEN", "WORK", "TMPDIR"} {
		env = append(env, k+"="+ts.Getenv(k))
	}
	c.Env = env
	out, _ := c.CombinedOutput()
	got := c.ProcessState.ExitCode()
	if got != want {
		ts.Fatalf("%s exited %d, want %d; output:\n%s", strings.Join(args[1:], " "), got, want, out)
	}
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// cmdSessions is `sessions N`: fail unless the server holds exactly N
// sessions (commands that need no conversation must not make one).
func cmdSessions(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sessions N")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("sessions: %v", err)
	}
	list, err := client.NewClient(ts.Getenv("SMRITI_API_URL")).Sessions(context.Background())
	if err != nil {
		ts.Fatalf("list sessions: %v", err)
	}
	if len(list) != want {
		ts.Fatalf("the server holds %d sessions, want %d", len(list), want)
	}
}
