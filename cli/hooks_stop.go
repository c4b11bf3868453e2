package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"smriti/skills"
)

// DefaultStopEvery is how often, at most, the Stop hook drafts for one
// agent session.
const DefaultStopEvery = 15 * time.Minute

// stopState is where the Stop hook keeps, per agent session, when it last
// drafted: beside the project, never committed (init ignores .smriti/).
func stopState(dir string) string { return filepath.Join(dir, ".smriti", "stop-drafts.json") }

func readStopState(path string) (map[string]time.Time, error) {
	st := map[string]time.Time{}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &st); err != nil || st == nil {
		return map[string]time.Time{}, nil // a damaged file is started afresh
	}
	return st, nil
}

// newHookStopCmd is the Stop hook: a fallback for hosts or sessions that
// never compact or end cleanly. It imports and drafts as PreCompact does,
// at most once per --every for an agent session, and never while the host
// is already continuing because of a Stop hook (stop_hook_active).
func newHookStopCmd() *cobra.Command {
	var every time.Duration
	imp := newHookImportCmd("stop")
	run := imp.RunE
	imp.Short = "Stop fallback: import the transcript and draft a checkpoint, at most once per --every for an agent session"
	imp.RunE = func(cmd *cobra.Command, args []string) error {
		env := envOf(cmd)
		if _, err := hookHost(cmd); err != nil {
			return err
		}
		if every <= 0 {
			return usageErr(cmd, "--every must be a positive duration, such as 15m")
		}
		in, err := peekHookInput(env)
		if err != nil {
			return err
		}
		if in.StopHookActive {
			return nil
		}
		dir := hookDir(env, in)
		path := stopState(dir)
		st, err := readStopState(path)
		if err != nil {
			return err
		}
		now := time.Now().UTC()
		if last, ok := st[in.SessionID]; ok && now.Sub(last) < every {
			fmt.Fprintf(env.Stdout, "Smriti: drafted for this session %s ago; the next Stop draft is due in %s\n",
				now.Sub(last).Round(time.Second), (every - now.Sub(last)).Round(time.Second))
			return nil
		}
		if err := run(cmd, args); err != nil {
			return err
		}
		st[in.SessionID] = now
		for k, t := range st { // forget sessions long gone
			if now.Sub(t) > 30*24*time.Hour {
				delete(st, k)
			}
		}
		data, _ := json.MarshalIndent(st, "", "  ")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		return skills.WriteFileAtomic(path, append(data, '\n'))
	}
	imp.Flags().DurationVar(&every, "every", DefaultStopEvery, "draft at most once per this long for an agent session")
	hostFlag(imp)
	return imp
}
