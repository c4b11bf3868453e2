package smriti

import "fmt"

// GitState is where a project's code stood when a checkpoint was written:
// stored as metadata.git so a checkpoint can be traced back to the code.
type GitState struct {
	Commit string `json:"commit"`
	// Branch is "" on a detached HEAD.
	Branch string `json:"branch"`
	Dirty  bool   `json:"dirty"`
	// DiffSHA256 is the hash of `git diff HEAD` ("" when clean): two
	// checkpoints with the same commit and hash saw the same code.
	DiffSHA256 string `json:"diff_sha256"`
}

// Map is the metadata.git value.
func (g *GitState) Map() map[string]any {
	return map[string]any{"commit": g.Commit, "branch": g.Branch, "dirty": g.Dirty, "diff_sha256": g.DiffSHA256}
}

// Line is the one-line view: "abc1234 on main, dirty (diff 1a2b3c4d)".
func (g *GitState) Line() string {
	c := g.Commit
	if len(c) > 12 {
		c = c[:12]
	}
	s := c
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
// first; a dirty state cannot be recreated exactly and says so.
func (g *GitState) RestoreCommand() string {
	target := g.Branch
	cmd := "git stash push -u -m smriti-restore && git switch " + target
	if target == "" {
		cmd = "git stash push -u -m smriti-restore && git switch --detach " + g.Commit
	} else {
		cmd += " && git reset --keep " + g.Commit
	}
	if g.Dirty {
		cmd += "   # the checkpoint saw uncommitted changes (diff " + g.DiffSHA256[:min(12, len(g.DiffSHA256))] + ") that git cannot bring back"
	}
	return cmd
}
