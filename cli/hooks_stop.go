package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// DefaultStopEvery is how often, at most, the Stop hook drafts for one
// agent session.
const DefaultStopEvery = 15 * time.Minute

// stopState is where the Stop hook keeps, per agent session, when it last
// drafted: beside the project, never committed (init ignores .smriti/).
func stopState(dir string) string { return filepath.Join(dir, ".smriti", "stop-drafts.json") }

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
			return printStopOutput(env, "")
		}
		dir := hookDir(env, in)
		path := stopState(dir)
		st, err := readHookState[time.Time](path)
		if err != nil {
			return err
		}
		now := time.Now().UTC()
		if last, ok := st[in.SessionID]; ok && now.Sub(last) < every {
			return printStopOutput(env, fmt.Sprintf("Smriti: drafted for this session %s ago; the next Stop draft is due in %s",
				now.Sub(last).Round(time.Second), (every-now.Sub(last)).Round(time.Second)))
		}
		out := env.Stdout
		var buf bytes.Buffer
		env.Stdout = &buf
		err = run(cmd, args)
		env.Stdout = out
		if err != nil {
			return err
		}
		if err := printStopOutput(env, strings.TrimSpace(buf.String())); err != nil {
			return err
		}
		st[in.SessionID] = now
		for k, t := range st { // forget sessions long gone
			if now.Sub(t) > 30*24*time.Hour {
				delete(st, k)
			}
		}
		return writeHookState(path, st)
	}
	imp.Flags().DurationVar(&every, "every", DefaultStopEvery, "draft at most once per this long for an agent session")
	hostFlag(imp)
	return imp
}

// printStopOutput answers a Stop hook in the JSON both hosts document (Codex
// refuses plain text from a Stop hook): what the hook did as a
// systemMessage for the user, or {} when there is nothing to say. It never
// asks the host to keep going.
func printStopOutput(env *Env, msg string) error {
	o := struct {
		SystemMessage string `json:"systemMessage,omitempty"`
	}{msg}
	enc := json.NewEncoder(env.Stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(o)
}
