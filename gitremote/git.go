// Package gitremote keeps copies of a space in a git repository: it is a
// remote.Peer whose other side is any repository the system git reaches
// (a local path, ssh, https), so people with two machines and no Smriti
// server sync through the git host they already have.
//
// In the repository, a space's records live under refs/smriti/<space-id>/
// and nowhere else: the project's branches, tags and working tree are
// never touched. heads/<branch> points at the git commit of the branch's
// newest checkpoint; each checkpoint is a commit whose tree holds its sync
// record (checkpoint.json) and whose parents are its parent checkpoints'
// commits, so git's own negotiation moves only what is new. log is a chain
// of commits, one per push, each holding the space record and the
// sessions and turns that push carried, in the pusher's log order (with a
// marker where each checkpoint fell), so a fetch replays them in order.
//
// Every exchange goes through a bare cache repository of the server's own:
// a fetch mirrors the remote's refs/smriti/<space-id>/ into it, a push
// writes its commits there with git fast-import and then pushes them with
// an atomic compare-and-swap on the branch and log refs
// (--force-with-lease with the values it read). The package knows git and
// the sync records; it must not import the store, HTTP or client packages.
package gitremote

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"smriti"
	"smriti/internal/textutil"
	"smriti/remote"
)

// Timeout bounds each git command that talks to the remote; a transfer
// longer than that is cut off and reported.
const Timeout = 10 * time.Minute

// Cache is a server's bare cache repository and the way it reaches git
// remotes through it.
type Cache struct {
	// Dir is the cache repository (created on first use).
	Dir string
	// Binary is the git executable ("git" on PATH when empty).
	Binary string
}

// New is a cache repository at dir.
func New(dir string) *Cache { return &Cache{Dir: dir} }

// Dial is a remote.Dialer for git repositories; a git remote takes no
// token (git's credentials reach it), so token is ignored.
func (c *Cache) Dial(url, _ string) remote.Peer {
	return &Peer{cache: c, url: url, loc: remote.GitLocation(url)}
}

// locks serialise the work of one process on one cache repository.
var locks sync.Map

func (c *Cache) lock() func() {
	m, _ := locks.LoadOrStore(filepath.Clean(c.Dir), &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

// init creates the cache repository when it is missing.
func (c *Cache) init(ctx context.Context) error {
	if _, err := os.Stat(filepath.Join(c.Dir, "HEAD")); err == nil {
		return nil
	}
	if err := os.MkdirAll(c.Dir, 0o700); err != nil {
		return smriti.Errorf(smriti.EINTERNAL, "create the git cache %s: %v", c.Dir, err)
	}
	_, err := c.run(ctx, nil, "init", "--bare", "--quiet", c.Dir)
	return err
}

// gitError is a failed git command: its stderr, for the message.
type gitError struct {
	args   []string
	stderr string
	err    error
}

func (e *gitError) Error() string {
	msg := strings.TrimSpace(e.stderr)
	if msg == "" {
		msg = e.err.Error()
	}
	return fmt.Sprintf("git %s: %s", e.args[0], textutil.Truncate(msg, 600))
}

func (e *gitError) Unwrap() error { return e.err }

// run runs git on the cache repository with stdin (nil for none) and
// returns its stdout. Git never prompts: a remote that wants a password
// git's credential helpers do not have fails instead of hanging.
func (c *Cache) run(ctx context.Context, stdin io.Reader, args ...string) ([]byte, error) {
	var out bytes.Buffer
	err := c.runTo(ctx, stdin, &out, args...)
	return out.Bytes(), err
}

func (c *Cache) runTo(ctx context.Context, stdin io.Reader, stdout io.Writer, args ...string) error {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	bin := c.Binary
	if bin == "" {
		bin = "git"
	}
	full := args
	if args[0] != "init" {
		full = append([]string{"--git-dir=" + c.Dir}, args...)
	}
	cmd := exec.CommandContext(ctx, bin, full...)
	// Only git's own transports: no remote helper (ext:: runs commands).
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=", "LC_ALL=C", "GIT_ALLOW_PROTOCOL=file:git:http:https:ssh")
	cmd.Stdin = stdin
	cmd.Stdout = stdout
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		var nf *exec.Error
		if errors.As(err, &nf) {
			return smriti.Errorf(smriti.EUPSTREAM, "the git executable was not found (%v); install git to use a git repository as a remote", err)
		}
		if ctx.Err() != nil {
			return smriti.Errorf(smriti.EUPSTREAM, "git %s timed out after %s", args[0], Timeout)
		}
		return &gitError{args: args, stderr: stderr.String(), err: err}
	}
	return nil
}

// namespace is where the cache mirrors one remote's refs of one space:
// refs/peers/<hash of the URL>/<space-id>.
func namespace(url string, space smriti.ID) string {
	sum := sha256.Sum256([]byte(url))
	return "refs/peers/" + hex.EncodeToString(sum[:8]) + "/" + space.String()
}

// remoteNamespace is the space's namespace in the remote repository.
func remoteNamespace(space smriti.ID) string { return "refs/smriti/" + space.String() }

// branchRef encodes a branch name as one ref component: letters, digits,
// '-' and '_' stay, every other byte is %XX (git refuses many characters
// and sequences a branch name may hold).
func branchRef(branch string) string {
	var b strings.Builder
	for i := 0; i < len(branch); i++ {
		ch := branch[i]
		if ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '-' || ch == '_' {
			b.WriteByte(ch)
		} else {
			fmt.Fprintf(&b, "%%%02X", ch)
		}
	}
	return b.String()
}

// branchName decodes branchRef.
func branchName(ref string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(ref); i++ {
		if ref[i] != '%' {
			b.WriteByte(ref[i])
			continue
		}
		if i+2 >= len(ref) {
			return "", false
		}
		v, err := hex.DecodeString(ref[i+1 : i+3])
		if err != nil {
			return "", false
		}
		b.WriteByte(v[0])
		i += 2
	}
	return b.String(), true
}
