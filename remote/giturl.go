package remote

import (
	"net/url"
	"smriti/internal/textutil"
	"strings"

	"smriti"
)

// A remote is reached one of two ways: a Smriti server over its HTTP API,
// or a git repository through the system git, the space's records kept
// there under refs/smriti/<space-id>/. The URL alone decides which:
//
//   - "git+" before any URL (git+https://host/x, git+ssh://…, git+file://…)
//     is a git repository, reached at the URL after the prefix;
//   - ssh://, git:// and file:// URLs, an scp-like location
//     (git@host:me/notes.git) and an absolute path are git repositories;
//   - an http or https URL whose path ends in ".git" is a git repository;
//     any other http or https URL is a Smriti server.

// IsGitURL reports whether a remote URL names a git repository rather
// than a Smriti server.
func IsGitURL(raw string) bool {
	raw = strings.TrimSpace(raw)
	lower := strings.ToLower(raw)
	switch {
	case strings.HasPrefix(lower, "git+"):
		return true
	case strings.HasPrefix(raw, "/"):
		return true
	case strings.HasPrefix(lower, "ssh://"), strings.HasPrefix(lower, "git://"), strings.HasPrefix(lower, "file://"):
		return true
	case strings.HasPrefix(lower, "http://"), strings.HasPrefix(lower, "https://"):
		u, err := url.Parse(raw)
		return err == nil && strings.HasSuffix(strings.TrimRight(u.Path, "/"), ".git")
	}
	return scpLike(raw)
}

// scpLike reports a location of the form [user@]host:path, git's short
// form for ssh.
func scpLike(raw string) bool {
	if strings.Contains(raw, "://") {
		return false
	}
	colon := strings.IndexByte(raw, ':')
	slash := strings.IndexByte(raw, '/')
	if colon <= 0 || (slash >= 0 && colon > slash) || colon == len(raw)-1 {
		return false
	}
	// "localhost:8080" is a server without its scheme, not a path "8080".
	return strings.TrimLeft(raw[colon+1:], "0123456789") != ""
}

// GitLocation is what git is given for a git remote's URL: the URL
// without its "git+" prefix.
func GitLocation(raw string) string {
	raw = strings.TrimSpace(raw)
	if strings.HasPrefix(strings.ToLower(raw), "git+") {
		return raw[len("git+"):]
	}
	return raw
}

// checkGitURL refuses a git location git would read as an option, one
// naming a remote helper, or one with control characters.
func checkGitURL(raw string) error {
	loc := GitLocation(raw)
	// "transport::address" hands the location to a remote helper (ext::
	// runs a command); Smriti speaks only git's own transports.
	bad := loc == "" || strings.HasPrefix(loc, "-") || strings.Contains(loc, "::") ||
		strings.ContainsFunc(loc, func(r rune) bool { return r < ' ' || r == 0x7f })
	if strings.HasPrefix(strings.ToLower(raw), "git+") && !strings.Contains(loc, "://") {
		bad = true
	}
	if bad {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "remote URL %q is not a git repository location git can use; give an absolute path, git@host:path or a URL such as git+https://host/me/notes", textutil.Truncate(raw, 200))
	}
	// A remote's URL is shown and answered; a password in it would be too.
	if u, err := url.Parse(loc); err == nil && u.User != nil {
		if _, has := u.User.Password(); has {
			return smriti.Errorf(smriti.EUNPROCESSABLE, "remote URL has a password in it, and a remote's URL is shown to whoever lists remotes; give the URL without it and let git's credential helper (or an ssh key) supply it")
		}
	}
	return nil
}
