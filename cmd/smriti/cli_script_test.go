package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"smriti"
	"smriti/app"
	"smriti/client"
	"smriti/gitcli"
	"smriti/httpapi"
	"smriti/provider"
	"smriti/secrets"
	"smriti/store"
	"smriti/wire"
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
// nothing listens on. $TEAMURL is a second server (another SQLite file) for
// the scripts that sync a space between two copies; $LAPTOPURL is the first.
func TestCLIScripts(t *testing.T) {
	// The servers' git cache (for git repositories as remotes) is the
	// test's, not the data directory of whoever runs it.
	t.Setenv("SMRITI_GIT_CACHE", filepath.Join(t.TempDir(), "git-cache"))
	testscript.Run(t, testscript.Params{
		Dir:   "testdata/script",
		Setup: setupScriptServer,
		Cmds: map[string]func(*testscript.TestScript, bool, []string){"exitcode": cmdExitCode, "sessions": cmdSessions,
			"interpose": cmdInterpose, "spaceid": cmdSpaceID, "turns": cmdTurns},
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
	ip := &interposer{next: srv}
	hs := &http.Server{Handler: ip, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	deadURL := "http://" + dead.Addr().String()
	dead.Close()
	ip.api = client.NewClient("http://" + ln.Addr().String())
	env.Values[interposerKey{}] = ip
	env.Setenv("SMRITI_API_URL", "http://"+ln.Addr().String())
	env.Setenv("LAPTOPURL", "http://"+ln.Addr().String())
	env.Setenv("DEADURL", deadURL)
	team, err := store.Open(ctx, filepath.Join(env.WorkDir, ".team.db"), nil)
	if err != nil {
		return err
	}
	teamLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	teamSrv := &http.Server{Handler: httpapi.New(apiConfig(team, provider.New(cfg), nil, &app.Coordinator{Briefs: team, Store: team}, nil, app.GateConfig{})),
		ReadHeaderTimeout: 10 * time.Second}
	go teamSrv.Serve(teamLn)
	env.Setenv("TEAMURL", "http://"+teamLn.Addr().String())
	env.Setenv("HOME", env.WorkDir)
	token := fakeGitHubToken()
	env.Setenv("FAKE_GH_TOKEN", token)
	env.Setenv("FAKE_GH_FP", secrets.Fingerprint(token))
	env.Defer(func() {
		hs.Close()
		teamSrv.Close()
		db.Close()
		team.Close()
	})
	return nil
}

// cmdExitCode is `exitcode N prog args...`: run prog and fail unless it
// exits with status N (exec only tells zero from non-zero). Its standard
// output and error are kept for the stdout and stderr commands after it.
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
	c.Dir = ts.MkAbs(".")
	env := os.Environ()
	for _, k := range []string{"PATH", "HOME", "SMRITI_API_URL", "SMRITI_TOKEN", "SMRITI_SPACE", "SMRITI_AGENT", "WORK", "TMPDIR"} {
		env = append(env, k+"="+ts.Getenv(k))
	}
	c.Env = env
	var stdout, stderr strings.Builder
	c.Stdout, c.Stderr = &stdout, &stderr
	_ = c.Run()
	fmt.Fprint(ts.Stdout(), stdout.String())
	fmt.Fprint(ts.Stderr(), stderr.String())
	got := c.ProcessState.ExitCode()
	if got != want {
		ts.Fatalf("%s exited %d, want %d; output:\n%s%s", strings.Join(args[1:], " "), got, want, stdout.String(), stderr.String())
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

// cmdTurns prints every turn of every session the server holds, one per
// line as "ROLE: CONTENT" (content on one line), oldest session first.
func cmdTurns(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: turns")
	}
	c := client.NewClient(ts.Getenv("SMRITI_API_URL"))
	list, err := c.Sessions(context.Background())
	if err != nil {
		ts.Fatalf("list sessions: %v", err)
	}
	for i := len(list) - 1; i >= 0; i-- {
		turns, err := c.AllTurns(context.Background(), list[i].ID)
		if err != nil {
			ts.Fatalf("list turns: %v", err)
		}
		for _, t := range turns {
			fmt.Fprintf(ts.Stdout(), "%s: %s\n", t.Role, strings.Join(strings.Fields(t.Content), " "))
		}
	}
}

// interposer stands in front of a script's server. Armed by `interpose`,
// it lands another writer's checkpoint just before the next checkpoint
// write reaches the server: the head moves between a command's draft (or
// extract) and its save, as when two agents save at the same moment.
type interposer struct {
	next http.Handler
	api  *client.Client

	mu    sync.Mutex
	space smriti.ID
	req   *wire.SpaceCommitRequest
	err   error
}

type interposerKey struct{}

func (ip *interposer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && (r.URL.Path == "/api/v4/chat/commit" ||
		strings.HasPrefix(r.URL.Path, "/api/v5/spaces/") && strings.HasSuffix(r.URL.Path, "/checkpoints")) {
		ip.mu.Lock()
		req, space := ip.req, ip.space
		ip.req = nil
		ip.mu.Unlock()
		if req != nil {
			_, err := ip.api.CommitToSpace(r.Context(), space, *req)
			ip.mu.Lock()
			ip.err = err
			ip.mu.Unlock()
		}
	}
	ip.next.ServeHTTP(w, r)
}

// cmdInterpose is `interpose SPACE FILE`: before the next checkpoint write
// reaches the server, FILE's checkpoint JSON is committed onto SPACE's main
// head (with no base: another writer that saw the newest head). `interpose
// check` fails unless that commit was made and succeeded.
func cmdInterpose(ts *testscript.TestScript, neg bool, args []string) {
	ip, _ := ts.Value(interposerKey{}).(*interposer)
	if neg || ip == nil {
		ts.Fatalf("usage: interpose SPACE FILE | interpose check")
	}
	if len(args) == 1 && args[0] == "check" {
		ip.mu.Lock()
		defer ip.mu.Unlock()
		switch {
		case ip.req != nil:
			ts.Fatalf("interpose: no checkpoint write reached the server")
		case ip.err != nil:
			ts.Fatalf("interpose: the interposed commit failed: %v", ip.err)
		}
		return
	}
	if len(args) != 2 {
		ts.Fatalf("usage: interpose SPACE FILE | interpose check")
	}
	spaces, err := ip.api.Spaces(context.Background())
	ts.Check(err)
	var space smriti.ID
	for _, sp := range spaces {
		if sp.Name == args[0] {
			space = sp.ID
		}
	}
	if space == smriti.NilID {
		ts.Fatalf("interpose: no space %q", args[0])
	}
	var req wire.SpaceCommitRequest
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[1])), &req))
	ip.mu.Lock()
	ip.space, ip.req, ip.err = space, &req, nil
	ip.mu.Unlock()
}

// cmdSpaceID is `spaceid VAR NAME`: set VAR to the id of the space NAME on
// the server SMRITI_API_URL names.
func cmdSpaceID(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: spaceid VAR NAME")
	}
	spaces, err := client.NewClient(ts.Getenv("SMRITI_API_URL")).Spaces(context.Background())
	if err != nil {
		ts.Fatalf("spaceid: %v", err)
	}
	for _, sp := range spaces {
		if sp.Name == args[1] {
			ts.Setenv(args[0], sp.ID.String())
			return
		}
	}
	ts.Fatalf("spaceid: no space named %q", args[1])
}

// fakeGitHubToken is a random, fake GitHub token in the real format, made
// at run time so that no script holds one that a scanner would flag.
func fakeGitHubToken() string {
	const set = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := []byte("ghp_")
	for range 36 {
		b = append(b, set[rand.IntN(len(set))])
	}
	return string(b)
}
