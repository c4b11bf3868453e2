package remote_test

import (
	"strings"
	"testing"

	"smriti"
	"smriti/remote"
)

func TestTheURLDecidesServerOrGit(t *testing.T) {
	for _, c := range []struct {
		url      string
		git      bool
		location string
	}{
		{"https://smriti.example.com", false, ""},
		{"http://127.0.0.1:8080/", false, ""},
		{"https://smriti.example.com/team", false, ""},
		{"https://github.com/me/notes.git", true, "https://github.com/me/notes.git"},
		{"https://github.com/me/notes.git/", true, "https://github.com/me/notes.git/"},
		{"git+https://git.example.com/me/notes", true, "https://git.example.com/me/notes"},
		{"GIT+ssh://git@host/me/notes", true, "ssh://git@host/me/notes"},
		{"ssh://git@host:2222/me/notes.git", true, "ssh://git@host:2222/me/notes.git"},
		{"git@github.com:me/notes.git", true, "git@github.com:me/notes.git"},
		{"host:notes", true, "host:notes"},
		{"localhost:8080", false, ""},
		{"file:///srv/notes.git", true, "file:///srv/notes.git"},
		{"/srv/git/notes.git", true, "/srv/git/notes.git"},
		{"/srv/git/plain-dir", true, "/srv/git/plain-dir"},
		{"notes.git", false, ""},
		{"./notes.git", false, ""},
	} {
		if got := remote.IsGitURL(c.url); got != c.git {
			t.Errorf("IsGitURL(%q) = %v, want %v", c.url, got, c.git)
			continue
		}
		if c.git && remote.GitLocation(c.url) != c.location {
			t.Errorf("GitLocation(%q) = %q, want %q", c.url, remote.GitLocation(c.url), c.location)
		}
	}
}

func TestRemoteValidation(t *testing.T) {
	for _, c := range []struct {
		name, url, token, wantErr string
	}{
		{"GitPathAccepted", "/srv/notes.git", "", ""},
		{"ScpAccepted", "git@github.com:me/notes.git", "", ""},
		{"ServerWithTokenAccepted", "https://smriti.example.com", "tok", ""},
		{"GitWithTokenRefused", "git@github.com:me/notes.git", "tok", "is a git repository, which takes no token"},
		{"RelativePathRefused", "notes.git", "", "must be an http or https URL of a Smriti server"},
		{"FTPRefused", "ftp://example.com", "", "must be an http or https URL"},
		{"OptionLikeRefused", "git+-uhttps://x", "", "is not a git repository location git can use"},
		{"GitPlusWithoutSchemeRefused", "git+/srv/notes.git", "", "is not a git repository location git can use"},
		{"ControlCharacterRefused", "/srv/a\tb.git", "", "is not a git repository location git can use"},
		{"PasswordInURLRefused", "https://me:hunter2@git.example.com/me/notes.git", "", "remote URL has a password in it"},
		{"UserInURLAccepted", "ssh://git@host/me/notes.git", "", ""},
		{"RemoteHelperRefused", "ext::sh -c touch% /tmp/x", "", "is not a git repository location git can use"},
		{"SpaceInPathAccepted", "/srv/my notes.git", "", ""},
		{"HostPortIsNoGitPath", "localhost:8080", "", "must be an http or https URL of a Smriti server"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := remote.Create{Name: "origin", URL: c.url, Token: c.token}
			err := in.Validate()
			if c.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate = %v", err)
				}
				return
			}
			if smriti.ErrorCode(err) != smriti.EUNPROCESSABLE || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("Validate = %v; want EUNPROCESSABLE saying %q", err, c.wantErr)
			}
		})
	}
}
