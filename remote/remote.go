// Package remote is the vocabulary of copies of one space on several
// servers (SPEC §3 "Copies of one space"): a remote, the remote-tracking
// heads a fetch or push leaves, what a fetch asks for, what a push claims,
// and the policy a pull follows when both sides changed one item. It holds
// types and pure rules only; the store keeps remotes and staged records,
// the App runs fetch, pull, push and clone.
package remote

import (
	"fmt"
	"net/url"
	"regexp"
	"smriti/internal/textutil"
	"strings"
	"sync"
	"time"

	"smriti"
)

// Remote is another server, or a git repository, holding a copy of a
// space.
type Remote struct {
	SpaceID smriti.ID
	// Name is how commands name it ("origin").
	Name string
	// URL is the other server's base URL, or a git repository's location
	// (IsGitURL tells them apart).
	URL string
	// RemoteSpaceID is the space's id there (a clone keeps ids, so it is
	// usually the same).
	RemoteSpaceID smriti.ID
	// Token reaches the other server in auth mode. It is a secret: never
	// answered by the API, never logged; TokenHint shows its last four
	// characters.
	Token string
	// FetchCursor is the other server's log position up to which its turns
	// have been fetched (-1: none yet); PushCursor this server's log
	// position up to which turns have been pushed.
	FetchCursor int64
	PushCursor  int64
	FetchedAt   *time.Time
	CreatedAt   time.Time
	// Heads are the remote-tracking heads, one per branch.
	Heads []Head
}

// TokenHint is "…" and the token's last four characters, or "" when the
// remote has no token.
func (r *Remote) TokenHint() string {
	if r.Token == "" {
		return ""
	}
	t := []rune(r.Token)
	if len(t) <= 4 {
		return "…"
	}
	return "…" + string(t[len(t)-4:])
}

// Ref names one remote of one space, and the space's owner (whom a
// background fetch acts for).
type Ref struct {
	SpaceID, Owner smriti.ID
	Name           string
}

// Head is a branch head: locally a remote-tracking head (origin/main), on
// the wire a branch head of the other server.
type Head struct {
	Branch       string
	CheckpointID smriti.ID
	Hash         string
	UpdatedAt    time.Time
}

// Create is what a caller gives to add a remote.
type Create struct {
	SpaceID       smriti.ID
	Name          string
	URL           string
	RemoteSpaceID *smriti.ID
	Token         string
}

// nameRE is compiled on first use, not at every command's start-up.
var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })

// Validate checks a new remote: a name of letters, digits, '.', '_' and '-'
// (at most 64, not starting with a punctuation mark), a URL CheckURL
// accepts, a token of at most 4,096 characters (and none for a git
// repository, which git's own credentials reach). EUNPROCESSABLE otherwise.
func (c *Create) Validate() error {
	if !nameRE().MatchString(c.Name) {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "remote name %q must be 1–64 letters, digits, '.', '_' or '-', starting with a letter or digit", textutil.Truncate(c.Name, 80))
	}
	if err := CheckURL(c.URL); err != nil {
		return err
	}
	if len(c.Token) > 4096 {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "token is longer than 4096 characters")
	}
	if c.Token != "" && IsGitURL(c.URL) {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "remote URL %q is a git repository, which takes no token: git's own credentials (ssh keys, credential helpers) reach it", textutil.Truncate(c.URL, 200))
	}
	return nil
}

// CheckURL accepts a Smriti server's http or https URL with a host and no
// query or fragment, or a git repository's location (IsGitURL); an
// absolute path is the only local form, as a server resolves no relative
// path. EUNPROCESSABLE otherwise.
func CheckURL(raw string) error {
	if IsGitURL(raw) {
		return checkGitURL(raw)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "remote URL %q must be an http or https URL of a Smriti server, such as https://smriti.example.com, or a git repository (a path such as /srv/notes.git, git@host:me/notes.git, or a URL ending in .git)", textutil.Truncate(raw, 200))
	}
	return nil
}

// NormalizeURL drops a trailing slash.
func NormalizeURL(raw string) string { return strings.TrimRight(strings.TrimSpace(raw), "/") }

// Policy says what a pull does when both sides changed the same item.
type Policy string

// The pull policies.
const (
	// Propose merges what does not conflict, keeps the local side of each
	// conflict, and leaves a proposal holding every conflict (by item id)
	// for a person to accept (the other side) or reject (keep the local
	// side). Nothing local is overwritten. The default.
	Propose Policy = "propose"
	// Fail writes nothing and answers the conflicts.
	Fail Policy = "fail"
	// Ours keeps the local side of every conflict.
	Ours Policy = "ours"
	// Theirs takes the other copy's side of every conflict.
	Theirs Policy = "theirs"
)

// ParsePolicy reads a policy; "" is Propose. EUNPROCESSABLE for another word.
func ParsePolicy(s string) (Policy, error) {
	switch p := Policy(strings.ToLower(strings.TrimSpace(s))); p {
	case "":
		return Propose, nil
	case Propose, Fail, Ours, Theirs:
		return p, nil
	}
	return "", smriti.Errorf(smriti.EUNPROCESSABLE, "on_conflict must be propose, fail, ours or theirs, got %q", textutil.Truncate(s, 40))
}

// Want is what a fetch asks the other server for: everything reachable
// from its branch heads that is not reachable from Haves (hashes of
// checkpoints the asker has, so their ancestors too), and the turns logged
// after Since (the other server's log position; -1 for all).
type Want struct {
	Haves []string `json:"haves" doc:"Hashes of checkpoints the asker already has (with all their ancestors); at most 256"`
	// Branches limits the walk to these branches' heads (empty: every
	// branch); a push sends one branch.
	Branches []string `json:"branches" doc:"Only these branches' histories (empty: every branch)"`
	Since    int64    `json:"since" doc:"The answering server's log position after which turns are wanted (-1: every turn)"`
}

// MaxHaves bounds Want.Haves.
const MaxHaves = 256

// Validate checks the haves are at most MaxHaves 64-hex hashes.
func (w *Want) Validate() error {
	if len(w.Haves) > MaxHaves {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "haves has %d hashes; at most %d are allowed", len(w.Haves), MaxHaves)
	}
	for i, h := range w.Haves {
		if !validHash(h) {
			return smriti.Errorf(smriti.EUNPROCESSABLE, "haves[%d] is not a 64-hex checkpoint hash", i)
		}
	}
	if len(w.Branches) > 64 {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "branches has %d names; at most 64 are allowed", len(w.Branches))
	}
	if w.Since < -1 {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "since must be -1 or a log position")
	}
	return nil
}

// Push is what a push claims: branch's head on the receiving server is
// Expect (nil: the branch has no checkpoint there), and after the push it
// is Head, a descendant of Expect — a compare-and-swap on the head the
// pusher saw.
type Push struct {
	Branch string
	Expect *string
	Head   string
}

// MovedError is the answer to a push whose expected head is not the
// receiving server's head any more (or does not descend from it).
func MovedError(branch string, theirs *string, expect *string, remoteName string) *smriti.Error {
	show := func(h *string) string {
		if h == nil {
			return "none"
		}
		return textutil.ShortHash(*h)
	}
	msg := fmt.Sprintf("push refused: %s on the remote is at %s, not %s as this copy last saw it; run `smriti pull %s`, then push again",
		branch, show(theirs), show(expect), remoteName)
	data := map[string]any{"message": msg, "branch": branch, "remote_head": theirs, "expected_head": expect}
	return &smriti.Error{Code: smriti.ECONFLICT, Message: msg, Data: data}
}

// Divergence is how a local branch stands against its remote-tracking head.
type Divergence struct {
	Branch string
	Remote string
	// Ahead counts local checkpoints the remote lacks; Behind the fetched
	// checkpoints not yet on the local branch.
	Ahead, Behind int
	FetchedAt     *time.Time
}

// Describe is the sentence briefs show: "main is 2 ahead, 3 behind
// origin/main (fetched 4 min ago)".
func (d Divergence) Describe(now time.Time) string {
	var state string
	switch {
	case d.Ahead == 0 && d.Behind == 0:
		state = "is up to date with"
	case d.Behind == 0:
		state = fmt.Sprintf("is %d ahead of", d.Ahead)
	case d.Ahead == 0:
		state = fmt.Sprintf("is behind %s/%s by %d:", d.Remote, d.Branch, d.Behind)
		return fmt.Sprintf("%s %s (fetched %s); run `smriti pull %s`", d.Branch, strings.TrimSuffix(state, ":"), ago(now, d.FetchedAt), d.Remote)
	default:
		state = fmt.Sprintf("is %d ahead, %d behind", d.Ahead, d.Behind)
	}
	return fmt.Sprintf("%s %s %s/%s (fetched %s)", d.Branch, state, d.Remote, d.Branch, ago(now, d.FetchedAt))
}

func ago(now time.Time, t *time.Time) string {
	if t == nil {
		return "never"
	}
	return textutil.RelativeTime(*t, now)
}

// validHash reports whether h is a checkpoint hash: 64 lowercase hex digits.
func validHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Counts is what a fetch staged, a pull applied or a push stored.
type Counts struct {
	Checkpoints int `json:"checkpoints" doc:"Checkpoints written"`
	Sessions    int `json:"sessions" doc:"Sessions written"`
	Turns       int `json:"turns" doc:"Turns written"`
	// Skipped names records left out: a turn at a place in a session where
	// this copy already has another (both copies wrote to one session).
	Skipped []string `json:"skipped" doc:"Records left out, each with the reason"`
}

// Integration is a pull's plan for a branch: the head it was made on and,
// when the histories diverged, the merge checkpoint to write after the
// fetched records (its parent the local head, its merge parent the fetched
// head).
type Integration struct {
	Branch string
	// ExpectHead is the branch's head when the plan was made (nil: the
	// branch had no checkpoint); a head that moved since fails the pull
	// with ECONFLICT and nothing is written.
	ExpectHead *smriti.ID
	Merge      *smriti.CheckpointCreate
}
