package smriti

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// GitState is where a project's code stood when a checkpoint was written:
// stored as metadata.git so a checkpoint can be traced back to the code.
//
// Its fields end up in a shell line (RestoreCommand) that people paste and
// agents run, so a git state is validated on every write (Validate) and
// again when it is read back (GitStateOf): a stored value that does not pass
// is shown as "invalid git state", never as a command.
type GitState struct {
	Commit string `json:"commit"`
	// Branch is "" on a detached HEAD.
	Branch string `json:"branch"`
	Dirty  bool   `json:"dirty"`
	// DiffSHA256 is the hash of `git diff HEAD` ("" when clean): two
	// checkpoints with the same commit and hash saw the same code.
	DiffSHA256 string `json:"diff_sha256"`
}

// invalidGitState is how a git state that fails Validate is shown.
const invalidGitState = "invalid git state"

// maxGitBranchBytes bounds a branch name; git has no limit of its own, but
// file systems cap a ref's path component at 255 bytes.
const maxGitBranchBytes = 255

// Map is the metadata.git value.
func (g *GitState) Map() map[string]any {
	return map[string]any{"commit": g.Commit, "branch": g.Branch, "dirty": g.Dirty, "diff_sha256": g.DiffSHA256}
}

// Validate checks a git state as it is written: commit is a full object
// name (40 lowercase hex digits for SHA-1, 64 for SHA-256); branch is "" or
// a name `git check-ref-format --branch` accepts (which refuses a leading
// "-"), and neither "@" alone, which git reads as HEAD, nor one with a
// Unicode control or format character, which git allows but a terminal
// would act on; diff_sha256 is "" or 64 lowercase hex digits.
// EUNPROCESSABLE naming the field (git.commit, git.branch, git.diff_sha256)
// otherwise.
func (g *GitState) Validate() error { return g.validate("git") }

func (g *GitState) validate(field string) error {
	if !isLowerHex(g.Commit, 40) && !isLowerHex(g.Commit, 64) {
		return Errorf(EUNPROCESSABLE, "%s.commit must be a full commit hash: 40 or 64 lowercase hex digits", field)
	}
	if g.Branch != "" {
		if why := badBranchName(g.Branch); why != "" {
			return Errorf(EUNPROCESSABLE, "%s.branch is not a git branch name: %s", field, why)
		}
	}
	if g.DiffSHA256 != "" && !isLowerHex(g.DiffSHA256, 64) {
		return Errorf(EUNPROCESSABLE, "%s.diff_sha256 must be empty or 64 lowercase hex digits", field)
	}
	return nil
}

// GitStateOf reads metadata.git back: nil and no error when there is none;
// EUNPROCESSABLE naming the field (metadata.git.…) when it is not an object
// of the four fields with their types, or fails Validate. It is the one
// reader of metadata.git: writes call it to refuse a bad value, renderers to
// show a stored one, or "invalid git state" in its place.
func GitStateOf(meta map[string]any) (*GitState, error) {
	raw, ok := meta["git"]
	if !ok || raw == nil {
		return nil, nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, Errorf(EUNPROCESSABLE, "metadata.git must be an object {commit, branch, dirty, diff_sha256}")
	}
	g := &GitState{}
	for _, f := range []struct {
		key string
		dst *string
	}{{"commit", &g.Commit}, {"branch", &g.Branch}, {"diff_sha256", &g.DiffSHA256}} {
		if v, ok := m[f.key]; ok && v != nil {
			s, ok := v.(string)
			if !ok {
				return nil, Errorf(EUNPROCESSABLE, "metadata.git.%s must be a string", f.key)
			}
			*f.dst = s
		}
	}
	if v, ok := m["dirty"]; ok && v != nil {
		b, ok := v.(bool)
		if !ok {
			return nil, Errorf(EUNPROCESSABLE, "metadata.git.dirty must be true or false")
		}
		g.Dirty = b
	}
	if err := g.validate("metadata.git"); err != nil {
		return nil, err
	}
	return g, nil
}

// Line is the one-line view: "abc1234 on main, dirty (diff 1a2b3c4d)";
// "invalid git state" for a state that fails Validate.
func (g *GitState) Line() string {
	if g.Validate() != nil {
		return invalidGitState
	}
	s := g.Commit[:12]
	if g.Branch != "" {
		s += " on " + g.Branch
	} else {
		s += " (detached)"
	}
	if g.Dirty {
		d := g.DiffSHA256
		if len(d) > 12 {
			d = d[:12]
		}
		s += fmt.Sprintf(", dirty (diff %s)", d)
	}
	return s
}

// RestoreCommand is the shell line that gets a work tree to this code:
// switch to the branch (or the commit, detached), stashing local changes
// first; a dirty state cannot be recreated exactly and says so. Each value
// taken from the state is one POSIX single-quoted word, and `--` ends the
// options before it (after the commit for reset, where what follows `--` is
// paths). "" for a state that fails Validate: a stored value never becomes
// a command. testdata/gitstate.json pins the texts for Go and the web.
func (g *GitState) RestoreCommand() string {
	if g.Validate() != nil {
		return ""
	}
	cmd := "git stash push -u -m smriti-restore && "
	if g.Branch == "" {
		cmd += "git switch --detach -- " + shellQuote(g.Commit)
	} else {
		cmd += "git switch -- " + shellQuote(g.Branch) + " && git reset --keep " + shellQuote(g.Commit) + " --"
	}
	if g.Dirty {
		cmd += "   # the checkpoint saw uncommitted changes (diff " + g.DiffSHA256[:min(12, len(g.DiffSHA256))] + ") that git cannot bring back"
	}
	return cmd
}

// shellQuote is s as one POSIX shell word: in single quotes, inside which
// nothing is special, with each ' written as '\”.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func isLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// badBranchName says why name is not a branch name git would create
// (git-check-ref-format(1) for refs/heads/<name>, and --branch's refusal of
// a leading "-"), or "" when it is one.
func badBranchName(name string) string {
	switch {
	case len(name) > maxGitBranchBytes:
		return fmt.Sprintf("longer than %d bytes", maxGitBranchBytes)
	case !utf8.ValidString(name):
		return "not valid UTF-8"
	case strings.HasPrefix(name, "-"):
		return `it starts with "-"`
	case name == "@":
		return `it is "@", which git reads as HEAD`
	case strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") || strings.Contains(name, "//"):
		return `it starts or ends with "/" or has "//"`
	case strings.HasSuffix(name, "."):
		return `it ends with "."`
	case strings.Contains(name, ".."):
		return `it contains ".."`
	case strings.Contains(name, "@{"):
		return `it contains "@{"`
	}
	for _, r := range name {
		switch {
		case r < 0x20 || r == 0x7f || unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			return "it contains a control or format character"
		case strings.ContainsRune(" ~^:?*[\\", r):
			return fmt.Sprintf("it contains %q", r)
		}
	}
	for _, part := range strings.Split(name, "/") {
		if strings.HasPrefix(part, ".") || strings.HasSuffix(part, ".lock") {
			return `a component starts with "." or ends with ".lock"`
		}
	}
	return ""
}
