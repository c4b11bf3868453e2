package smriti_test

import (
	"strings"
	"testing"

	"smriti"
)

// The restore command and the one-line view, for a branch, a detached
// HEAD and a dirty tree (the web's restoreCommand pins the same texts).
func TestGitStateRestoreCommandAndLine(t *testing.T) {
	commit := "0123456789abcdef0123456789abcdef01234567"
	for _, c := range []struct {
		name          string
		g             smriti.GitState
		restore, line string
	}{
		{"branch", smriti.GitState{Commit: commit, Branch: "feat/x"},
			"git stash push -u -m smriti-restore && git switch feat/x && git reset --keep " + commit, "0123456789ab on feat/x"},
		{"detached", smriti.GitState{Commit: commit},
			"git stash push -u -m smriti-restore && git switch --detach " + commit, "0123456789ab (detached)"},
		{"dirty", smriti.GitState{Commit: commit, Branch: "main", Dirty: true, DiffSHA256: strings.Repeat("9", 64)},
			"git stash push -u -m smriti-restore && git switch main && git reset --keep " + commit +
				"   # the checkpoint saw uncommitted changes (diff 999999999999) that git cannot bring back",
			"0123456789ab on main, dirty (diff 999999999999)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.g.RestoreCommand(); got != c.restore {
				t.Errorf("RestoreCommand() = %q, want %q", got, c.restore)
			}
			if got := c.g.Line(); got != c.line {
				t.Errorf("Line() = %q, want %q", got, c.line)
			}
		})
	}
}
