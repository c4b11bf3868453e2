package cli

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"smriti/receipt"
	"strings"
	"sync"

	"smriti"
)

// Where each host keeps its own files. Codex reads $CODEX_HOME (default
// ~/.codex): config.toml, and its sessions' rollouts under sessions/.
// Claude Code reads $CLAUDE_CONFIG_DIR (default ~/.claude), its sessions'
// transcripts under projects/.

// codexHome is Codex's home folder.
func codexHome() (string, error) { return hostDir("CODEX_HOME", ".codex") }

// claudeConfigDir is Claude Code's configuration folder.
func claudeConfigDir() (string, error) { return hostDir("CLAUDE_CONFIG_DIR", ".claude") }

// hostDir is the folder the environment variable names, else the folder
// named dot in the home folder.
func hostDir(variable, dot string) (string, error) {
	if d := strings.TrimSpace(os.Getenv(variable)); d != "" {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, dot), nil
}

// codexConfigPath is the Codex config file init writes the MCP entry to.
func codexConfigPath() (string, error) {
	h, err := codexHome()
	if err != nil {
		return "", err
	}
	return filepath.Join(h, "config.toml"), nil
}

// agentSessionID is what a host's session id looks like (a UUID or
// similar): nothing that could step out of a folder. It is compiled on
// first use: its bounded repetition makes a large program, and a command
// that reads no transcript should not pay for it at start-up.
var agentSessionID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,199}$`) })

// findTranscript finds an agent session's transcript when the hook input
// names none (Codex's SessionEnd may send transcript_path null): Codex's
// rollout sessions/YYYY/MM/DD/rollout-…-ID.jsonl under its home, Claude
// Code's projects/SLUG/ID.jsonl under its config folder. ENOTFOUND when
// there is none.
func findTranscript(host, session string) (string, error) {
	if !agentSessionID().MatchString(session) {
		return "", smriti.Errorf(smriti.EINVALID, "the hook input names no transcript_path and no usable session_id")
	}
	if host == receipt.HostCodex {
		home, err := codexHome()
		if err != nil {
			return "", err
		}
		found := ""
		err = filepath.WalkDir(filepath.Join(home, "sessions"), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return fs.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(d.Name(), "-"+session+".jsonl") {
				found = p
				return fs.SkipAll
			}
			return nil
		})
		if err != nil && !errors.Is(err, fs.SkipAll) {
			return "", err
		}
		if found != "" {
			return found, nil
		}
		return "", smriti.Errorf(smriti.ENOTFOUND, "no Codex rollout of session %s under %s", session, filepath.Join(home, "sessions"))
	}
	dir, err := claudeConfigDir()
	if err != nil {
		return "", err
	}
	m, _ := filepath.Glob(filepath.Join(dir, "projects", "*", session+".jsonl"))
	if len(m) > 0 {
		return m[0], nil
	}
	return "", smriti.Errorf(smriti.ENOTFOUND, "no Claude Code transcript of session %s under %s", session, filepath.Join(dir, "projects"))
}
