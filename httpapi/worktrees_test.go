package httpapi_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"smriti"
	"smriti/app"
	"smriti/client"
	"smriti/coord"
	"smriti/gitcli"
	"smriti/store"
	"smriti/store/storetest"
	"smriti/wire"
)

// testClock is a clock the test moves by hand.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// withGit wires worktrees to the real git binary, with worktrees under root
// and the coordinator on clk.
func withGit(root string, clk *testClock) envOption {
	return func(c *envConfig) {
		c.coord = func(st *store.Store) *app.Coordinator {
			return &app.Coordinator{Briefs: st, Store: st, Git: gitcli.New(), Now: clk.now, Root: root}
		}
	}
}

// git runs git in dir and fails the test on error.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// newRepo makes a git repository with one commit on main.
func newRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	write(t, filepath.Join(dir, "README.md"), "hello\n")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "first")
	return dir
}

func TestWorktreesWithRealGit(t *testing.T) {
	repo := newRepo(t)
	root := filepath.Join(t.TempDir(), "worktrees")
	clk := &testClock{t: time.Now().UTC()}
	e := newEnv(t, withGit(root, clk))
	space := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("Rag Project"), Description: new("")})).Must(t)
	sid := space.ID.String()

	// No project root yet: a clear 400.
	_, err := e.c.OpenWorktree(bg, wire.WorktreeRequest{SpaceID: &sid, Agent: sp("codex")})
	wantCode(t, err, smriti.EINVALID)
	if !strings.Contains(err.Error(), "No project_root configured") {
		t.Fatalf("err = %v", err)
	}
	storetest.Get(e.c.SetProjectRoot(bg, space.ID, filepath.Join(repo, "missing"))).Must(t)
	_, err = e.c.OpenWorktree(bg, wire.WorktreeRequest{SpaceID: &sid, Agent: sp("codex")})
	wantCode(t, err, smriti.EINVALID)
	storetest.Get(e.c.SetProjectRoot(bg, space.ID, repo)).Must(t)
	_, err = e.c.OpenWorktree(bg, wire.WorktreeRequest{SpaceID: &sid, Agent: sp("  ")})
	wantCode(t, err, smriti.EINVALID)
	_, err = e.c.OpenWorktree(bg, wire.WorktreeRequest{SpaceID: &sid, Agent: sp("codex"), BasePath: sp("relative/dir")})
	wantCode(t, err, smriti.EINVALID)

	head := git(t, repo, "rev-parse", "HEAD")
	w1 := storetest.Get(e.c.OpenWorktree(bg, wire.WorktreeRequest{SpaceID: &sid, Agent: sp(" Codex Agent ")})).Must(t)
	if !strings.HasPrefix(w1.BranchName, "smriti/codex-agent/") || w1.Agent != "Codex Agent" || *w1.BaseCommitSHA != head ||
		w1.Status != "active" || !strings.HasPrefix(w1.Path, filepath.Join(root, "rag-project", "codex-agent-")) {
		t.Fatalf("worktree = %+v", w1)
	}
	if b, err := os.ReadFile(filepath.Join(w1.Path, "README.md")); err != nil || string(b) != "hello\n" {
		t.Fatalf("worktree checkout: %q %v", b, err)
	}
	clk.advance(time.Second)
	p2 := filepath.Join(t.TempDir(), "w2")
	w2 := storetest.Get(e.c.OpenWorktree(bg, wire.WorktreeRequest{SpaceID: &sid, Agent: sp("claude"), BranchName: sp("feature/x"), BasePath: &p2})).Must(t)
	if w2.BranchName != "feature/x" || w2.Path != p2 {
		t.Fatalf("w2 = %+v", w2)
	}
	_, err = e.c.OpenWorktree(bg, wire.WorktreeRequest{SpaceID: &sid, Agent: sp("claude"), BranchName: sp("feature/x")})
	wantCode(t, err, smriti.ECONFLICT)
	if err.Error() != "Branch already exists: feature/x" {
		t.Fatalf("err = %v", err)
	}
	// A git failure comes back with git's own message, and nothing is left
	// behind on disk.
	p3 := filepath.Join(t.TempDir(), "w3")
	_, err = e.c.OpenWorktree(bg, wire.WorktreeRequest{SpaceID: &sid, Agent: sp("x"), BaseCommitSHA: sp("no-such-commit"), BasePath: &p3})
	wantCode(t, err, smriti.EUPSTREAM)
	if !strings.Contains(err.Error(), "git worktree add failed") || !strings.Contains(err.Error(), "no-such-commit") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(p3); !os.IsNotExist(err) {
		t.Fatalf("failed add left %s behind", p3)
	}

	// Drift: one dirty file and one commit ahead in w1, one commit behind.
	write(t, filepath.Join(w1.Path, "loop.go"), "package loop\n")
	git(t, w1.Path, "add", "loop.go")
	git(t, w1.Path, "commit", "-q", "-m", "loop")
	write(t, filepath.Join(w1.Path, "notes.txt"), "wip\n")
	write(t, filepath.Join(repo, "CHANGES.md"), "c\n")
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "main moves")

	list := storetest.Get(e.c.Worktrees(bg, space.ID, false)).Must(t)
	if len(list) != 2 || list[0].ID != w2.ID || list[1].ID != w1.ID {
		t.Fatalf("list = %+v", list)
	}
	p := list[1].Probe
	if p == nil || p.DirtyFiles != 1 || strings.Join(p.DirtyPaths, ",") != "notes.txt" || p.Ahead != 1 || p.Behind != 1 ||
		p.LastCommitSHA == "" || p.LastCommitRelative != "just now" {
		t.Fatalf("probe = %+v", p)
	}
	if q := list[0].Probe; q == nil || q.DirtyFiles != 0 || q.Ahead != 0 || q.Behind != 1 {
		t.Fatalf("w2 probe = %+v", q)
	}
	// Probes are cached in the store for the TTL, then measured again.
	write(t, filepath.Join(w1.Path, "more.txt"), "x\n")
	if p := storetest.Get(e.c.Worktrees(bg, space.ID, false)).Must(t)[1].Probe; p.DirtyFiles != 1 {
		t.Fatalf("within the TTL the cached probe answers: %+v", p)
	}
	clk.advance(app.DefaultProbeTTL + time.Second)
	if p := storetest.Get(e.c.Worktrees(bg, space.ID, false)).Must(t)[1].Probe; p.DirtyFiles != 2 {
		t.Fatalf("after the TTL the worktree is probed again: %+v", p)
	}

	// A claim bound to the worktree shows its drift in the state brief.
	wid := w1.ID.String()
	storetest.Get(e.c.Claim(bg, wire.ClaimRequest{SpaceID: &sid, Agent: sp("codex"), Scope: sp("loop"), WorktreeID: &wid})).Must(t)
	st := storetest.Get(e.c.State(bg, space.ID, client.StateOptions{})).Must(t)
	if len(st.ActiveClaims) != 1 || st.ActiveClaims[0].Worktree == nil || st.ActiveClaims[0].Worktree.DirtyFiles != 2 ||
		st.ActiveClaims[0].Worktree.Path != w1.Path || st.ActiveClaims[0].Worktree.Branch != w1.BranchName {
		t.Fatalf("state claims = %+v", st.ActiveClaims)
	}
	md := storetest.Get(e.c.Brief(bg, space.ID, client.BriefOptions{})).Must(t)
	if !strings.Contains(md, "   · worktree: "+w1.Path) || !strings.Contains(md, "· 2 dirty (") || !strings.Contains(md, "ahead 1 · behind 1") {
		t.Fatalf("brief:\n%s", md)
	}

	// Prefixes.
	got := storetest.Get(e.c.Worktree(bg, w1.ID.String()[:8])).Must(t)
	if got.ID != w1.ID {
		t.Fatalf("prefix resolved to %s", got.ID)
	}
	_, err = e.c.Worktree(bg, "abc")
	wantCode(t, err, smriti.EINVALID)
	_, err = e.c.Worktree(bg, "zzzz")
	wantCode(t, err, smriti.EINVALID)
	_, err = e.c.Worktree(bg, uuid.NewString())
	wantCode(t, err, smriti.ENOTFOUND)
	for _, id := range []string{"abcd1111-0000-4000-8000-000000000001", "abcd2222-0000-4000-8000-000000000002"} {
		if err := e.store.InsertWorktree(bg, &coord.Worktree{ID: uuid.MustParse(id), SpaceID: space.ID, Agent: "x",
			Path: "/nowhere/" + id, BranchName: "b" + id[:8], Status: coord.WorktreeActive, CreatedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	_, err = e.c.Worktree(bg, "ABCD")
	wantCode(t, err, smriti.EUNPROCESSABLE)
	if err.Error() != "Worktree prefix 'abcd' is ambiguous (matches abcd2222..., abcd1111...)" &&
		err.Error() != "Worktree prefix 'abcd' is ambiguous (matches abcd1111..., abcd2222...)" {
		t.Fatalf("err = %v", err)
	}
	if got := storetest.Get(e.c.Worktree(bg, "abcd2")).Must(t); got.BranchName != "babcd2222" {
		t.Fatalf("abcd2 = %+v", got)
	}

	// Closing: a dirty worktree needs force; the row closes, the branch stays.
	_, err = e.c.CloseWorktree(bg, w1.ID.String(), false)
	wantCode(t, err, smriti.ECONFLICT)
	if !strings.Contains(err.Error(), "uncommitted changes") {
		t.Fatalf("err = %v", err)
	}
	closed := storetest.Get(e.c.CloseWorktree(bg, w1.ID.String()[:6], true)).Must(t)
	if closed.Status != "closed" || closed.ClosedAt == nil {
		t.Fatalf("closed = %+v", closed)
	}
	if _, err := os.Stat(w1.Path); !os.IsNotExist(err) {
		t.Fatalf("worktree dir still there: %v", err)
	}
	if git(t, repo, "branch", "--list", w1.BranchName) == "" {
		t.Fatal("closing deleted the branch")
	}
	_, err = e.c.CloseWorktree(bg, w1.ID.String(), true)
	wantCode(t, err, smriti.ECONFLICT)
	clean := storetest.Get(e.c.CloseWorktree(bg, w2.ID.String(), false)).Must(t)
	if clean.Status != "closed" {
		t.Fatalf("clean close = %+v", clean)
	}
	// The claim's worktree is gone: the brief says so; a new claim cannot
	// bind it.
	st = storetest.Get(e.c.State(bg, space.ID, client.StateOptions{})).Must(t)
	if st.ActiveClaims[0].Worktree != nil || st.ActiveClaims[0].WorktreeID == nil {
		t.Fatalf("claim after close = %+v", st.ActiveClaims[0])
	}
	_, err = e.c.Claim(bg, wire.ClaimRequest{SpaceID: &sid, Scope: sp("x"), WorktreeID: &wid})
	wantCode(t, err, smriti.EINVALID)
	all := storetest.Get(e.c.Worktrees(bg, space.ID, true)).Must(t)
	if len(all) != 4 || all[3].ID != w1.ID || all[3].Probe != nil {
		t.Fatalf("include_closed = %+v", all)
	}

	// A project root that is not a git repository: git's message, 502.
	notRepo := t.TempDir()
	storetest.Get(e.c.SetProjectRoot(bg, space.ID, notRepo)).Must(t)
	_, err = e.c.OpenWorktree(bg, wire.WorktreeRequest{SpaceID: &sid, Agent: sp("x")})
	wantCode(t, err, smriti.EUPSTREAM)
	if !strings.Contains(strings.ToLower(err.Error()), "not a git repository") {
		t.Fatalf("err = %v", err)
	}
}

func TestWorktreeProjectRootFromCheckpoint(t *testing.T) {
	repo := newRepo(t)
	clk := &testClock{t: time.Now().UTC()}
	e := newEnv(t, withGit(t.TempDir(), clk))
	space := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("S"), Description: new("")})).Must(t)
	se := storetest.Get(e.c.CreateSession(bg, &space.ID, "s", "mock", "m")).Must(t)
	if _, err := e.c.Do(bg, "POST", "/api/v4/chat/commit", map[string]any{"repo_id": space.ID, "session_id": se.ID,
		"message": "m", "project_root": repo}, nil); err != nil {
		t.Fatal(err)
	}
	sid := space.ID.String()
	storetest.Get(e.c.OpenWorktree(bg, wire.WorktreeRequest{SpaceID: &sid, Agent: sp("a")})).Must(t)
	got := storetest.Get(e.c.Space(bg, space.ID)).Must(t)
	resolved, _ := filepath.EvalSymlinks(repo)
	if got.ProjectRoot == nil || *got.ProjectRoot != resolved {
		t.Fatalf("project root back-fill = %v, want %s", got.ProjectRoot, resolved)
	}
}

func TestWorktreesWithoutGitAnswer503(t *testing.T) {
	e := newEnv(t)
	space := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("S"), Description: new("")})).Must(t)
	sid := space.ID.String()
	_, err := e.c.OpenWorktree(bg, wire.WorktreeRequest{SpaceID: &sid, Agent: sp("a")})
	wantCode(t, err, smriti.EUNAVAILABLE)
}

// Two servers on one database answer the same drift: the probe is cached
// in the store, not in either process.
func TestReplicasShareTheProbeCache(t *testing.T) {
	repo := newRepo(t)
	clk := &testClock{t: time.Now().UTC()}
	a := newEnv(t, withGit(t.TempDir(), clk))
	cfg := envConfig{getenv: func(string) string { return "" }}
	withGit(t.TempDir(), clk)(&cfg)
	b := startEnv(t, a.dsn, cfg)
	space := storetest.Get(a.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("S"), Description: new("")})).Must(t)
	storetest.Get(a.c.SetProjectRoot(bg, space.ID, repo)).Must(t)
	sid := space.ID.String()
	w := storetest.Get(a.c.OpenWorktree(bg, wire.WorktreeRequest{SpaceID: &sid, Agent: sp("a")})).Must(t)
	write(t, filepath.Join(w.Path, "one.txt"), "1\n")
	if p := storetest.Get(a.c.Worktrees(bg, space.ID, false)).Must(t)[0].Probe; p == nil || p.DirtyFiles != 1 {
		t.Fatalf("replica A probe = %+v", p)
	}
	write(t, filepath.Join(w.Path, "two.txt"), "2\n")
	// B has never probed; within the TTL it answers A's measurement.
	if p := storetest.Get(b.c.Worktrees(bg, space.ID, false)).Must(t)[0].Probe; p == nil || p.DirtyFiles != 1 {
		t.Fatalf("replica B probe = %+v, want the shared cached one", p)
	}
	clk.advance(app.DefaultProbeTTL + time.Second)
	if p := storetest.Get(b.c.Worktrees(bg, space.ID, false)).Must(t)[0].Probe; p.DirtyFiles != 2 {
		t.Fatalf("replica B after the TTL = %+v", p)
	}
	if p := storetest.Get(a.c.Worktrees(bg, space.ID, false)).Must(t)[0].Probe; p.DirtyFiles != 2 {
		t.Fatalf("replica A reads B's fresh probe = %+v", p)
	}
}
