package gitcli

import (
	"context"
	"strconv"
	"strings"

	"smriti"
)

// What checking items' code refs needs from git (package refcheck). Paths
// are passed after "--" and commits are checked to be hex, so nothing a
// client stored is read by git as an option.

// TopLevel is the root of the work tree holding dir; ENOTFOUND when dir is
// not in a git work tree.
func (g *Git) TopLevel(ctx context.Context, dir string) (string, error) {
	r, msg, err := g.run(ctx, g.ProbeTimeout, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", err
	}
	if r.code != 0 {
		return "", smriti.Errorf(smriti.ENOTFOUND, "%s is not in a git work tree: %s", dir, smriti.Truncate(msg, 200))
	}
	return strings.TrimSpace(r.out), nil
}

// isHex reports whether s is a (full or abbreviated) commit id.
func isHex(s string) bool {
	if len(s) < 4 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// unknownCommit reports whether git's message says a commit is not in
// the repository.
func unknownCommit(msg string) bool {
	for _, s := range []string{"bad revision", "unknown revision", "bad object", "Invalid revision range"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// CommitsTouching counts the commits reachable from HEAD and not from
// since that touched path; -1 when since is not a commit of this
// repository.
func (g *Git) CommitsTouching(ctx context.Context, repo, since, path string) (int, error) {
	if !isHex(since) {
		return -1, nil
	}
	r, msg, err := g.run(ctx, g.ProbeTimeout, repo, "rev-list", "--count", since+"..HEAD", "--", path)
	if err != nil {
		return 0, err
	}
	if r.code != 0 {
		if unknownCommit(msg) {
			return -1, nil
		}
		return 0, failed("git rev-list", msg)
	}
	n, err := strconv.Atoi(strings.TrimSpace(r.out))
	if err != nil {
		return 0, failed("git rev-list", r.out)
	}
	return n, nil
}

// DiffStat is the lines added and deleted in path from commit to the work
// tree (a file deleted since counts all its lines deleted); zeros when
// commit is not in this repository.
func (g *Git) DiffStat(ctx context.Context, repo, commit, path string) (added, deleted int, err error) {
	if !isHex(commit) {
		return 0, 0, nil
	}
	r, msg, err := g.run(ctx, g.ProbeTimeout, repo, "diff", "--no-ext-diff", "--no-renames", "--numstat", commit, "--", path)
	if err != nil {
		return 0, 0, err
	}
	if r.code != 0 {
		if unknownCommit(msg) {
			return 0, 0, nil
		}
		return 0, 0, failed("git diff", msg)
	}
	for _, l := range lines(r.out) {
		f := strings.Fields(l)
		if len(f) < 3 {
			continue
		}
		a, _ := strconv.Atoi(f[0]) // "-" for a binary file: 0
		d, _ := strconv.Atoi(f[1])
		added, deleted = added+a, deleted+d
	}
	return added, deleted, nil
}

// TrackedFiles lists the work tree's tracked files matching the pathspec
// globs (all of them when none), relative to repo.
func (g *Git) TrackedFiles(ctx context.Context, repo string, globs ...string) ([]string, error) {
	args := append([]string{"ls-files", "-z", "--"}, globs...)
	r, msg, err := g.run(ctx, g.ProbeTimeout, repo, args...)
	if err != nil {
		return nil, err
	}
	if r.code != 0 {
		return nil, failed("git ls-files", msg)
	}
	var out []string
	for _, f := range strings.Split(r.out, "\x00") {
		if f != "" {
			out = append(out, f)
		}
	}
	return out, nil
}
