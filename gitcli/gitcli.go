// Package gitcli runs the git binary for Smriti's worktrees. Every call is
// bounded in time and its failures come back as domain errors carrying git's
// own message, so a broken repository is a clear 502 or 409, never a hang.
// It must not import the store, HTTP or provider packages.
package gitcli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"smriti/coord"
	"smriti/internal/textutil"
	"strconv"
	"strings"
	"time"

	"smriti"
)

// Default time limits.
const (
	DefaultTimeout      = 30 * time.Second
	DefaultProbeTimeout = 3 * time.Second
)

// Git implements coord.Git with the git binary.
type Git struct {
	// Binary is the git executable ("git" on PATH when empty).
	Binary string
	// Timeout bounds commands that change the repository; ProbeTimeout
	// bounds each read-only command of a probe.
	Timeout      time.Duration
	ProbeTimeout time.Duration
}

var _ coord.Git = (*Git)(nil)

// New returns a Git with the default binary and time limits.
func New() *Git {
	return &Git{Binary: "git", Timeout: DefaultTimeout, ProbeTimeout: DefaultProbeTimeout}
}

// result is what one git command did.
type result struct {
	out  string
	code int
}

// run runs git with args in dir. A non-zero exit is not an error (callers
// decide what an exit code means); a missing binary, a timeout or a failure
// to start is EUPSTREAM.
func (g *Git) run(ctx context.Context, limit time.Duration, dir string, args ...string) (result, string, error) {
	bin := g.Binary
	if bin == "" {
		bin = "git"
	}
	if limit <= 0 {
		limit = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_OPTIONAL_LOCKS=0")
	cmd.WaitDelay = time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	msg := strings.TrimSpace(stderr.String())
	if msg == "" {
		msg = strings.TrimSpace(stdout.String())
	}
	var exit *exec.ExitError
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return result{}, "", smriti.Errorf(smriti.EUPSTREAM, "git %s timed out after %s", args[0], limit)
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, fs.ErrNotExist):
		return result{}, "", smriti.Errorf(smriti.EUPSTREAM, "git executable not found (%s)", bin)
	case errors.As(err, &exit):
		return result{out: stdout.String(), code: exit.ExitCode()}, msg, nil
	case err != nil:
		return result{}, "", smriti.Errorf(smriti.EUPSTREAM, "git %s could not run: %v", args[0], err)
	}
	return result{out: stdout.String()}, msg, nil
}

// failed is the error for a git command that exited non-zero.
func failed(what, msg string) error {
	if msg == "" {
		msg = "no output"
	}
	return smriti.Errorf(smriti.EUPSTREAM, "%s failed: %s", what, textutil.Truncate(msg, 1000))
}

// ResolveDir implements coord.Git.
func (g *Git) ResolveDir(_ context.Context, dir string) (string, error) {
	if dir == "~" || strings.HasPrefix(dir, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, strings.TrimPrefix(dir, "~"))
		}
	}
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return "", smriti.Errorf(smriti.EINVALID, "project_root does not exist on disk: %s", dir)
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return "", smriti.Errorf(smriti.EINVALID, "project_root does not exist on disk: %s", abs)
	}
	return abs, nil
}

// BranchExists implements coord.Git.
func (g *Git) BranchExists(ctx context.Context, repo, branch string) (bool, error) {
	r, msg, err := g.run(ctx, g.Timeout, repo, "show-ref", "--verify", "--quiet", "refs/heads/"+branch)
	if err != nil {
		return false, err
	}
	switch r.code {
	case 0:
		return true, nil
	case 1:
		return false, nil
	}
	return false, failed("git show-ref", msg)
}

// HeadSHA implements coord.Git.
func (g *Git) HeadSHA(ctx context.Context, repo string) (string, error) {
	r, msg, err := g.run(ctx, g.Timeout, repo, "rev-parse", "--verify", "HEAD")
	if err != nil {
		return "", err
	}
	if r.code != 0 {
		return "", failed("could not resolve HEAD: git rev-parse", msg)
	}
	return strings.TrimSpace(r.out), nil
}

// AddWorktree implements coord.Git. A directory it created is removed
// again when git fails; one that existed before is left alone.
func (g *Git) AddWorktree(ctx context.Context, repo, path, branch, base string) error {
	_, statErr := os.Stat(path)
	existed := statErr == nil
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return smriti.Errorf(smriti.EUPSTREAM, "cannot create the worktree's parent directory: %v", err)
	}
	r, msg, err := g.run(ctx, g.Timeout, repo, "worktree", "add", "-b", branch, path, base)
	if err == nil && r.code != 0 {
		err = failed("git worktree add", msg)
	}
	if err != nil && !existed {
		os.RemoveAll(path)
	}
	return err
}

// Dirty implements coord.Git.
func (g *Git) Dirty(ctx context.Context, dir string) ([]string, error) {
	r, msg, err := g.run(ctx, g.Timeout, dir, "status", "--porcelain")
	if err != nil {
		return nil, err
	}
	if r.code != 0 {
		return nil, failed("git status", msg)
	}
	return lines(r.out), nil
}

// RemoveWorktree implements coord.Git.
func (g *Git) RemoveWorktree(ctx context.Context, repo, path string, force bool) error {
	args := []string{"worktree", "remove"}
	if force {
		args = append(args, "--force")
	}
	r, msg, err := g.run(ctx, g.Timeout, repo, append(args, path)...)
	if err != nil {
		return err
	}
	if r.code != 0 {
		return failed("git worktree remove", msg)
	}
	return nil
}

// mainRefs are where a worktree's drift is measured from, in order of
// preference.
var mainRefs = []string{"refs/remotes/origin/main", "refs/heads/main", "refs/remotes/origin/master", "refs/heads/master"}

// Probe implements coord.Git: dirty files (first MaxProbePaths paths),
// commits ahead of and behind the main branch (origin's when there is one),
// and the last commit. Four read-only commands, each bounded by
// ProbeTimeout.
func (g *Git) Probe(ctx context.Context, dir string) (*coord.WorktreeProbe, error) {
	dirty, err := g.probeRun(ctx, dir, "status", "--porcelain")
	if err != nil {
		return nil, err
	}
	p := &coord.WorktreeProbe{DirtyPaths: []string{}}
	for _, l := range lines(dirty) {
		p.DirtyFiles++
		if len(p.DirtyPaths) < coord.MaxProbePaths && len(l) > 3 {
			p.DirtyPaths = append(p.DirtyPaths, strings.TrimSpace(l[3:]))
		}
	}
	refs, err := g.probeRun(ctx, dir, append([]string{"for-each-ref", "--format=%(refname)"}, mainRefs...)...)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, l := range lines(refs) {
		have[l] = true
	}
	for _, ref := range mainRefs {
		if !have[ref] {
			continue
		}
		counts, err := g.probeRun(ctx, dir, "rev-list", "--left-right", "--count", "HEAD..."+ref)
		if err != nil {
			return nil, err
		}
		f := strings.Fields(counts)
		a, errA := strconv.Atoi(safeField(f, 0))
		b, errB := strconv.Atoi(safeField(f, 1))
		if len(f) != 2 || errA != nil || errB != nil {
			return nil, smriti.Errorf(smriti.EUPSTREAM, "git rev-list answered %q", textutil.Truncate(counts, 80))
		}
		p.Ahead, p.Behind = a, b
		break
	}
	last, err := g.probeRun(ctx, dir, "log", "-1", "--format=%h %ct")
	if err != nil {
		return nil, err
	}
	f := strings.Fields(last)
	if len(f) == 2 {
		if secs, err := strconv.ParseInt(f[1], 10, 64); err == nil {
			p.LastCommitSHA, p.LastCommitAt = f[0], time.Unix(secs, 0).UTC()
		}
	}
	return p, nil
}

func (g *Git) probeRun(ctx context.Context, dir string, args ...string) (string, error) {
	r, msg, err := g.run(ctx, g.ProbeTimeout, dir, args...)
	if err != nil {
		return "", err
	}
	if r.code != 0 {
		return "", failed(fmt.Sprintf("git %s", args[0]), msg)
	}
	return r.out, nil
}

func safeField(f []string, i int) string {
	if i < len(f) {
		return f[i]
	}
	return ""
}

func lines(s string) []string {
	out := []string{}
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// State reads where the work tree at dir stands: HEAD's commit, its branch
// ("" when detached), whether anything is uncommitted, and the SHA-256 of
// `git diff HEAD` when so. ENOTFOUND when dir is not in a git work tree
// (or has no commit yet).
func (g *Git) State(ctx context.Context, dir string) (*smriti.GitState, error) {
	r, _, err := g.run(ctx, g.Timeout, dir, "rev-parse", "--verify", "HEAD")
	if err != nil {
		return nil, err
	}
	if r.code != 0 {
		return nil, smriti.Errorf(smriti.ENOTFOUND, "%s is not a git work tree with a commit", dir)
	}
	st := &smriti.GitState{Commit: strings.TrimSpace(r.out)}
	if r, _, err := g.run(ctx, g.Timeout, dir, "symbolic-ref", "--quiet", "--short", "HEAD"); err == nil && r.code == 0 {
		st.Branch = strings.TrimSpace(r.out)
	}
	dirty, err := g.Dirty(ctx, dir)
	if err != nil {
		return nil, err
	}
	if len(dirty) > 0 {
		st.Dirty = true
		r, msg, err := g.run(ctx, g.Timeout, dir, "diff", "--binary", "HEAD")
		if err != nil {
			return nil, err
		}
		if r.code != 0 {
			return nil, failed("git diff", msg)
		}
		// Untracked files count too: their names and contents.
		h := sha256.New()
		h.Write([]byte(r.out))
		if u, _, err := g.run(ctx, g.Timeout, dir, "ls-files", "--others", "--exclude-standard"); err == nil && u.code == 0 {
			for _, name := range lines(u.out) {
				h.Write([]byte("\x00" + name + "\x00"))
				if data, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
					h.Write(data)
				}
			}
		}
		st.DiffSHA256 = hex.EncodeToString(h.Sum(nil))
	}
	return st, nil
}
