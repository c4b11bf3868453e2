package refcheck

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"smriti"
	"smriti/coderef"
	"smriti/gitcli"
)

// gitRepo is a real git repository in a temp dir.
type gitRepo struct {
	t   testing.TB
	dir string
}

func newRepo(t testing.TB) *gitRepo {
	t.Helper()
	r := &gitRepo{t: t, dir: t.TempDir()}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *gitRepo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", r.dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", "-c", "gc.auto=0", "-c", "maintenance.auto=false"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r *gitRepo) write(p, text string) {
	r.t.Helper()
	full := filepath.Join(r.dir, p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *gitRepo) commit(msg string) {
	r.t.Helper()
	r.git("add", "-A")
	r.git("commit", "-q", "-m", msg)
}

const sendV1 = `package app

// Send sends a message.
func Send(x int) int {
	y := x + 1
	return y
}
`

func check(t *testing.T, dir string, items []smriti.Item) []coderef.Finding {
	t.Helper()
	c, err := Open(context.Background(), gitcli.New(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fs, err := c.Check(context.Background(), items)
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// TestCheckFollowsAFunctionThroughEditMoveAndDelete is the life of an item
// citing a function: fresh, changed by one commit, moved by another,
// gone with its file.
func TestCheckFollowsAFunctionThroughEditMoveAndDelete(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.write("app/send.go", sendV1)
	r.write("README.md", "hello\n")
	r.commit("first")
	c, err := Open(ctx, gitcli.New(), filepath.Join(r.dir, "app"))
	if err != nil {
		t.Fatal(err)
	}
	refs := c.RefsIn(ctx, "Sends go through `app.Send` (see README.md:1).")
	c.Close()
	if len(refs) != 2 || refs[0].Path != "README.md" || refs[1].Path != "app/send.go" || refs[1].Symbol == nil || *refs[1].Symbol != "app.Send" ||
		*refs[1].Lines != (smriti.LineRange{From: 4, To: 7}) || refs[1].Commit != r.git("rev-parse", "HEAD") {
		t.Fatalf("RefsIn = %+v", refs)
	}
	items := []smriti.Item{{ID: "d-000001", Kind: smriti.KindDecision, Text: "Sends go through app.Send", Status: smriti.ItemOpen, Refs: refs[1:]}}

	if f := check(t, r.dir, items); len(f) != 1 || f[0].Status != coderef.Fresh || f[0].CommitsSince != 0 {
		t.Fatalf("before any commit: %+v; want fresh", f)
	}

	r.write("app/send.go", strings.Replace(sendV1, "x + 1", "x + 2", 1))
	r.commit("edit Send")
	f := check(t, r.dir, items)
	if len(f) != 1 || f[0].Status != coderef.Changed || f[0].CommitsSince != 1 || f[0].Added != 1 || f[0].Deleted != 1 ||
		*f[0].Lines != (smriti.LineRange{From: 4, To: 7}) {
		t.Fatalf("after an edit: %+v; want changed, 1 commit since, +1 -1", f)
	}
	if got, want := f[0].Reason(), "app/send.go#app.Send:4-7 changed (now lines 4-7); 1 commit since "+refs[1].Commit[:7]+", +1 -1"; got != want {
		t.Errorf("Reason = %q; want %q", got, want)
	}

	r.write("app/send.go", "package app\n\nimport \"fmt\"\n\nvar _ = fmt.Sprint\n"+strings.TrimPrefix(sendV1, "package app\n"))
	r.commit("move Send down, body as it was cited")
	f = check(t, r.dir, items)
	if len(f) != 1 || f[0].Status != coderef.Moved || *f[0].Lines != (smriti.LineRange{From: 8, To: 11}) || f[0].CommitsSince != 2 {
		t.Fatalf("after a move: %+v; want moved to 8-11", f)
	}

	r.git("rm", "-q", "app/send.go")
	r.commit("delete")
	f = check(t, r.dir, items)
	if len(f) != 1 || f[0].Status != coderef.Gone || f[0].CommitsSince != 3 {
		t.Fatalf("after deleting the file: %+v; want gone", f)
	}
}

func TestRefFromSpec(t *testing.T) {
	r := newRepo(t)
	r.write("a/b.go", "one\ntwo\nthree\n")
	r.commit("first")
	c, err := Open(context.Background(), gitcli.New(), r.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ref, err := c.Ref(filepath.Join(r.dir, "a"), "b.go:2-3")
	if err != nil {
		t.Fatal(err)
	}
	if ref.Path != "a/b.go" || *ref.Lines != (smriti.LineRange{From: 2, To: 3}) || ref.SpanHash != coderef.SpanHash([]string{"two", "three"}) || ref.Validate() != nil {
		t.Errorf("Ref = %+v", ref)
	}
	for spec, want := range map[string]string{
		"b.go:4":       "a/b.go has 3 lines",
		"missing.go":   "no file a/missing.go",
		"../../x.go":   "clean path inside the project root",
		"b.go:3-2":     "lines must be N or FROM-TO",
		"/etc/passwd":  "relative to the project root",
		"b.go:1-99999": "a/b.go has 3 lines",
	} {
		if _, err := c.Ref(filepath.Join(r.dir, "a"), spec); err == nil || smriti.ErrorCode(err) != smriti.EINVALID || !strings.Contains(smriti.ErrorMessage(err), want) {
			t.Errorf("Ref(%q) = %v; want EINVALID saying %q", spec, err, want)
		}
	}
}

// TestStoredPathNeverLeavesTheWorkTree: a ref whose path a symbolic link
// turns outside the work tree reads nothing there.
func TestStoredPathNeverLeavesTheWorkTree(t *testing.T) {
	r := newRepo(t)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(r.dir, "link")); err != nil {
		t.Fatal(err)
	}
	r.write("a.txt", "a\n")
	r.commit("first")
	items := []smriti.Item{{ID: "d-000001", Kind: smriti.KindDecision, Text: "x", Refs: []smriti.ItemRef{
		{Path: "link/secret", Commit: strings.Repeat("a", 40), SpanHash: coderef.SpanHash([]string{"x"})}}}}
	if f := check(t, r.dir, items); len(f) != 1 || f[0].Status != coderef.Gone {
		t.Errorf("a ref through a link out of the work tree = %+v; want gone (not read)", f)
	}
}

func TestOpenOutsideAWorkTreeIsNotFound(t *testing.T) {
	if _, err := Open(context.Background(), gitcli.New(), t.TempDir()); smriti.ErrorCode(err) != smriti.ENOTFOUND {
		t.Errorf("Open(a plain directory) = %v; want ENOTFOUND", err)
	}
}

func TestOpenAWorkTreeWhosePathHoldsASpace(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my project")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r := &gitRepo{t: t, dir: dir}
	r.git("init", "-q", "-b", "main")
	r.write("a.txt", "a\n")
	r.commit("first")
	c, err := Open(context.Background(), gitcli.New(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if real, _ := filepath.EvalSymlinks(dir); c.Root != real || c.Head != r.git("rev-parse", "HEAD") {
		t.Errorf("Open = %q at %q; want %q at HEAD", c.Root, c.Head, real)
	}
}
