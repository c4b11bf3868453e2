package smriti_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"smriti"
)

// gitStateCase is one case of testdata/gitstate.json, the specification the
// web's restoreCommand is tested against too.
type gitStateCase struct {
	Name    string `json:"name"`
	Git     any    `json:"git"`
	Valid   bool   `json:"valid"`
	Line    string `json:"line"`
	Restore string `json:"restore"`
	Field   string `json:"field"`
}

func gitStateCases(t *testing.T) []gitStateCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "gitstate.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases []gitStateCase `json:"cases"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Cases
}

// TestGitStateSpecification: every stored metadata.git of the shared table
// is read back as the table says — a valid one with its one-line view and
// restore command, an invalid one refused naming its field, and the same
// values as a GitState shown as "invalid git state" with no command.
func TestGitStateSpecification(t *testing.T) {
	for _, c := range gitStateCases(t) {
		t.Run(c.Name, func(t *testing.T) {
			g, err := smriti.GitStateOf(map[string]any{"git": c.Git})
			if !c.Valid {
				if err == nil || smriti.ErrorCode(err) != smriti.EUNPROCESSABLE || !strings.Contains(err.Error(), c.Field+" ") {
					t.Fatalf("GitStateOf = %+v, %v; want 422 naming %s", g, err, c.Field)
				}
				if m, ok := c.Git.(map[string]any); ok {
					direct := smriti.GitState{}
					direct.Commit, _ = m["commit"].(string)
					direct.Branch, _ = m["branch"].(string)
					direct.DiffSHA256, _ = m["diff_sha256"].(string)
					direct.Dirty, _ = m["dirty"].(bool)
					if direct.Validate() == nil {
						return // invalid only for its JSON types
					}
					if cmd := direct.RestoreCommand(); cmd != "" {
						t.Errorf("RestoreCommand() = %q for an invalid state, want none", cmd)
					}
					if line := direct.Line(); line != "invalid git state" {
						t.Errorf("Line() = %q, want %q", line, "invalid git state")
					}
				}
				return
			}
			if err != nil || g == nil {
				t.Fatalf("GitStateOf = %v, %v", g, err)
			}
			if err := g.Validate(); err != nil {
				t.Fatalf("Validate() = %v", err)
			}
			if got := g.RestoreCommand(); got != c.Restore {
				t.Errorf("RestoreCommand() = %q, want %q", got, c.Restore)
			}
			if got := g.Line(); got != c.Line {
				t.Errorf("Line() = %q, want %q", got, c.Line)
			}
		})
	}
}

// TestRestoreCommandRunsOnlyGit runs every valid case's restore command in
// a POSIX shell whose git only records its arguments: each command runs
// git with exactly the words intended — the branch and the commit each one
// argument, however they are spelled — and nothing else.
func TestRestoreCommandRunsOnlyGit(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	bin := t.TempDir()
	log := filepath.Join(bin, "git.log")
	fake := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\036' \"$a\" >>\"$GITLOG\"; done\nprintf '\\n' >>\"$GITLOG\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range gitStateCases(t) {
		if !c.Valid {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			g, err := smriti.GitStateOf(map[string]any{"git": c.Git})
			if err != nil {
				t.Fatal(err)
			}
			os.Remove(log)
			work := t.TempDir()
			cmd := exec.Command(sh, "-c", g.RestoreCommand())
			cmd.Dir = work
			cmd.Env = []string{"PATH=" + bin, "GITLOG=" + log}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("sh -c %q: %v\n%s", g.RestoreCommand(), err, out)
			}
			b, _ := os.ReadFile(log)
			var got []string
			for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
				got = append(got, strings.Join(strings.Split(strings.TrimSuffix(l, "\x1e"), "\x1e"), " | "))
			}
			want := []string{"stash | push | -u | -m | smriti-restore"}
			if g.Branch == "" {
				want = append(want, "switch | --detach | -- | "+g.Commit)
			} else {
				want = append(want, "switch | -- | "+g.Branch, "reset | --keep | "+g.Commit+" | --")
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("git ran as\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if entries, _ := os.ReadDir(work); len(entries) > 0 {
				t.Fatalf("the command wrote %s into the work tree", entries[0].Name())
			}
		})
	}
}

// TestGitBranchRulesAgreeWithGit checks the table's branches against git's
// own `check-ref-format` (of refs/heads/<branch>, and no leading "-" as
// --branch adds), where git is installed: what git
// refuses, Validate refuses; Validate is stricter only about format
// characters, names over 255 bytes, and "@" alone, which git takes for HEAD
// wherever a revision is read.
func TestGitBranchRulesAgreeWithGit(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	for _, c := range gitStateCases(t) {
		m, ok := c.Git.(map[string]any)
		branch, _ := m["branch"].(string)
		if !ok || branch == "" || c.Field != "" && c.Field != "metadata.git.branch" {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			// refs/heads/<branch> rather than --branch, which would expand
			// "@" and "@{-1}" against the repository the test runs in.
			gitOK := exec.Command(git, "check-ref-format", "refs/heads/"+branch).Run() == nil && !strings.HasPrefix(branch, "-")
			g := smriti.GitState{Commit: strings.Repeat("a", 40), Branch: branch}
			ours := g.Validate() == nil
			stricter := strings.ContainsRune(branch, '\u202e') || len(branch) > 255 || branch == "@"
			if gitOK != ours && !(gitOK && stricter) {
				t.Fatalf("branch %q: git accepts = %v, Validate accepts = %v", branch, gitOK, ours)
			}
		})
	}
}
