package gitcli

import (
	"context"
	"smriti/internal/textutil"
	"strconv"
	"strings"

	"smriti"
)

// What checking items' code refs needs from git (package refcheck). Paths
// are passed after "--" and commits are checked to be hex, so nothing a
// client stored is read by git as an option.

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

// PathChange is what happened to one path between a commit and HEAD.
type PathChange struct {
	// Commits counts the commits since that touched the path.
	Commits int
	// Added and Deleted are the path's diff stat from the commit to HEAD.
	Added, Deleted int
}

// ChangesSince says, for each of paths, how many commits since commit
// (reachable from HEAD, not from commit) touched it and its diff stat from
// commit to HEAD, in two git calls whatever the number of paths; known is
// false when commit is not in this repository.
func (g *Git) ChangesSince(ctx context.Context, repo, commit string, paths []string) (out map[string]PathChange, known bool, err error) {
	out = make(map[string]PathChange, len(paths))
	if !isHex(commit) || len(paths) == 0 {
		return out, isHex(commit), nil
	}
	args := append([]string{"log", "--format=format:%x00", "--name-only", "--no-renames", commit + "..HEAD", "--"}, paths...)
	r, msg, err := g.run(ctx, g.ProbeTimeout, repo, args...)
	if err != nil {
		return nil, false, err
	}
	if r.code != 0 {
		if unknownCommit(msg) {
			return out, false, nil
		}
		return nil, false, failed("git log", msg)
	}
	for _, l := range strings.Split(r.out, "\n") {
		if l = strings.TrimSpace(strings.Trim(l, "\x00")); l != "" {
			c := out[l]
			c.Commits++
			out[l] = c
		}
	}
	args = append([]string{"diff", "--no-ext-diff", "--no-renames", "--numstat", commit, "HEAD", "--"}, paths...)
	r, msg, err = g.run(ctx, g.ProbeTimeout, repo, args...)
	if err != nil {
		return nil, false, err
	}
	if r.code != 0 {
		return nil, false, failed("git diff", msg)
	}
	for _, l := range lines(r.out) {
		f := strings.SplitN(l, "\t", 3)
		if len(f) < 3 {
			continue
		}
		a, _ := strconv.Atoi(f[0]) // "-" for a binary file: 0
		d, _ := strconv.Atoi(f[1])
		c := out[f[2]]
		c.Added, c.Deleted = a, d
		out[f[2]] = c
	}
	return out, true, nil
}

// WorkTreeHead is the root of the work tree holding dir and its HEAD
// commit, in one git call; ENOTFOUND when dir is not in a git work tree or
// it has no commit yet.
func (g *Git) WorkTreeHead(ctx context.Context, dir string) (root, head string, err error) {
	r, msg, err := g.run(ctx, g.ProbeTimeout, dir, "rev-parse", "--show-toplevel", "--verify", "HEAD")
	if err != nil {
		return "", "", err
	}
	out := strings.Split(strings.TrimRight(r.out, "\n"), "\n") // a root may hold spaces
	if r.code != 0 || len(out) != 2 {
		return "", "", smriti.Errorf(smriti.ENOTFOUND, "%s is not in a git work tree with a commit: %s", dir, textutil.Truncate(msg, 200))
	}
	return out[0], out[1], nil
}
