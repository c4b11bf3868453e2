package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"smriti"
	"smriti/portability"
	"smriti/receipt"
	"smriti/render"
	"smriti/skills"
	"smriti/wire"
)

// compactInput is the part of a host's hook input the compaction hooks
// read. Claude Code and Codex send the same names: session_id, cwd,
// hook_event_name; trigger (manual, auto) on PreCompact and PostCompact;
// source (startup, resume, clear, compact, fork) on SessionStart;
// stop_hook_active on Stop.
type compactInput struct {
	SessionID      string `json:"session_id"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	Trigger        string `json:"trigger"`
	Source         string `json:"source"`
	StopHookActive bool   `json:"stop_hook_active"`
}

// peekHookInput reads the hook input and puts it back on env.Stdin for the
// command it wraps.
func peekHookInput(env *Env) (*compactInput, error) {
	var in compactInput
	data, err := io.ReadAll(io.LimitReader(env.Stdin, 1<<20))
	env.Stdin = bytes.NewReader(data)
	if err != nil {
		return nil, failf("cannot read the hook input: %v", err)
	}
	if len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, &in); err != nil {
			return nil, failf("the hook input is not JSON: %v", err)
		}
	}
	return &in, nil
}

// hostFlag adds --host to a hook command.
func hostFlag(cmd *cobra.Command) {
	cmd.Flags().String("host", receipt.HostClaudeCode, "the agent host running the hook: claude-code or codex")
}

// hookHost reads --host.
func hookHost(cmd *cobra.Command) (string, error) {
	h, _ := cmd.Flags().GetString("host")
	if h == "" {
		h = receipt.HostClaudeCode
	}
	if !receipt.ValidHost(h) {
		return "", usageErr(cmd, fmt.Sprintf("--host must be claude-code or codex, not %q", h))
	}
	return h, nil
}

// hostSource is the transcript format of the hook's host. A Codex hook's
// checkpoints are authored by codex unless SMRITI_AGENT names the agent.
func hostSource(cmd *cobra.Command) string {
	if h, _ := hookHost(cmd); h == receipt.HostCodex {
		if agentName("") == "" {
			os.Setenv("SMRITI_AGENT", receipt.HostCodex)
		}
		return portability.SourceCodex
	}
	return portability.SourceClaudeCode
}

// compactionMarks is where PreCompact and PostCompact note, per agent
// session, how the host compacted, for the receipt SessionStart records
// after it. Beside the project, never committed (init ignores .smriti/).
//
// Claude Code runs PreCompact, then SessionStart (compact), then
// PostCompact; a host may run PostCompact before SessionStart. A mark is
// kept until both the receipt is recorded and PostCompact has run,
// whichever comes last, so none is left behind; one a host never finished
// is dropped after a day.
func compactionMarks(dir string) string { return filepath.Join(dir, ".smriti", "compactions.json") }

type compactionMark struct {
	Trigger string    `json:"trigger"`
	At      time.Time `json:"at"`
	// Receipted: SessionStart recorded the receipt; Compacted: PostCompact ran.
	Receipted bool `json:"receipted,omitempty"`
	Compacted bool `json:"compacted,omitempty"`
}

// staleMark is how long a mark of a compaction never finished is kept.
const staleMark = 24 * time.Hour

// readHookState reads one of the hooks' small state files under .smriti/,
// a JSON object keyed by agent session; a missing or damaged file reads as
// empty (it is started afresh).
func readHookState[T any](path string) (map[string]T, error) {
	st := map[string]T{}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &st); err != nil || st == nil {
		return map[string]T{}, nil
	}
	return st, nil
}

func writeHookState[T any](path string, st map[string]T) error {
	data, _ := json.MarshalIndent(st, "", "  ")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return skills.WriteFileAtomic(path, append(data, '\n'))
}

// updateMarks changes the session's mark under fn (which returns the mark
// to keep, or nil to forget it) and forgets marks left stale.
func updateMarks(dir, session string, now time.Time, fn func(m *compactionMark) *compactionMark) error {
	if session == "" {
		return nil
	}
	path := compactionMarks(dir)
	marks, err := readHookState[compactionMark](path)
	if err != nil {
		return err
	}
	var cur *compactionMark
	if m, ok := marks[session]; ok {
		cur = &m
	}
	if m := fn(cur); m != nil {
		marks[session] = *m
	} else {
		delete(marks, session)
	}
	for k, m := range marks {
		if now.Sub(m.At) > staleMark {
			delete(marks, k)
		}
	}
	return writeHookState(path, marks)
}

// markCompaction notes that the agent session is compacting (PreCompact).
func markCompaction(dir string, in *compactInput, now time.Time) error {
	return updateMarks(dir, in.SessionID, now, func(*compactionMark) *compactionMark {
		return &compactionMark{Trigger: in.Trigger, At: now.UTC()}
	})
}

// markCompacted notes that the compaction finished (PostCompact): the mark
// is forgotten once its receipt was recorded, else kept for it.
func markCompacted(dir string, in *compactInput, now time.Time) error {
	return updateMarks(dir, in.SessionID, now, func(m *compactionMark) *compactionMark {
		switch {
		case m == nil:
			return &compactionMark{Trigger: in.Trigger, At: now.UTC(), Compacted: true}
		case m.Receipted:
			return nil
		}
		m.Compacted = true
		if in.Trigger != "" {
			m.Trigger = in.Trigger
		}
		return m
	})
}

// compactionTrigger is the trigger noted for the session's compaction.
func compactionTrigger(dir, session string) string {
	marks, err := readHookState[compactionMark](compactionMarks(dir))
	if err != nil {
		return ""
	}
	return marks[session].Trigger
}

// markReceipted notes that SessionStart recorded the compaction's
// receipt: the mark is forgotten once PostCompact ran, else kept for it.
func markReceipted(dir, session string, now time.Time) error {
	return updateMarks(dir, session, now, func(m *compactionMark) *compactionMark {
		if m == nil || m.Compacted {
			return nil
		}
		m.Receipted = true
		return m
	})
}

func hookDir(env *Env, in *compactInput) string {
	if in.Cwd != "" {
		return in.Cwd
	}
	d, _ := env.Getwd()
	return d
}

// withCompactionMark makes PreCompact note the compaction before it imports
// and drafts, and gives the command --host.
func withCompactionMark(cmd *cobra.Command) *cobra.Command {
	run := cmd.RunE
	hostFlag(cmd)
	cmd.RunE = func(c *cobra.Command, args []string) error {
		env := envOf(c)
		if _, err := hookHost(c); err != nil {
			return err
		}
		in, err := peekHookInput(env)
		if err != nil {
			return err
		}
		if err := markCompaction(hookDir(env, in), in, time.Now()); err != nil {
			fmt.Fprintf(env.Stderr, "Smriti: could not note the compaction: %v\n", err)
		}
		return run(c, args)
	}
	return cmd
}

func newHookPostCompactCmd() *cobra.Command {
	var space string
	cmd := &cobra.Command{
		Use:   "post-compact",
		Short: "Note a finished compaction (PostCompact) for the receipt the next SessionStart (compact) records; neither host lets PostCompact add context",
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			if _, err := hookHost(cmd); err != nil {
				return err
			}
			in, err := peekHookInput(env)
			if err != nil {
				return err
			}
			return markCompacted(hookDir(env, in), in, time.Now())
		},
	}
	cmd.Flags().StringVar(&space, "space", "", "the space (accepted for symmetry with the other hooks)")
	hostFlag(cmd)
	cmd.FParseErrWhitelist.UnknownFlags = true
	return cmd
}

// withReinjection wraps SessionStart's hook: for source "compact" the brief
// it prints is re-injected as the host's additionalContext, and the server
// records a receipt of it. An incomplete receipt (a live decision or open
// task not given in full) is said on stderr, to the user (systemMessage)
// and to the agent (a line after the brief).
func withReinjection(cmd *cobra.Command) *cobra.Command {
	run := cmd.RunE
	hostFlag(cmd)
	cmd.RunE = func(c *cobra.Command, args []string) error {
		env := envOf(c)
		host, err := hookHost(c)
		if err != nil {
			return err
		}
		in, err := peekHookInput(env)
		if err != nil || in.Source != "compact" {
			return run(c, args)
		}
		out := env.Stdout
		var buf bytes.Buffer
		env.Stdout = &buf
		err = run(c, args)
		env.Stdout = out
		if err != nil {
			return err
		}
		return reinject(c, env, host, in, buf.String())
	}
	return cmd
}

// hookOutput is the JSON a SessionStart hook may print, in the shape both
// hosts document: systemMessage is shown to the user, additionalContext
// given to the model.
type hookOutput struct {
	SystemMessage      string `json:"systemMessage,omitempty"`
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

func reinject(cmd *cobra.Command, env *Env, host string, in *compactInput, text string) error {
	ctx := cmd.Context()
	dir := hookDir(env, in)
	space, _ := cmd.Flags().GetString("space")
	o := hookOutput{}
	o.HookSpecificOutput.HookEventName = "SessionStart"
	trigger := compactionTrigger(dir, in.SessionID)
	if strings.HasPrefix(text, "Smriti: the brief could not be read") {
		o.SystemMessage = strings.TrimSpace(strings.SplitN(text, "\n", 2)[0])
		fmt.Fprintln(env.Stderr, o.SystemMessage)
		o.HookSpecificOutput.AdditionalContext = text
		return printHookOutput(env, o)
	}
	c := env.Client()
	sp, err := hookSpace(ctx, env, c, space, dir)
	var rc *wire.ReceiptOut
	if err == nil {
		rc, err = c.RecordReceipt(ctx, sp.ID, wire.ReceiptRequest{AgentSession: &in.SessionID, Host: &host, Event: strPtr("SessionStart"),
			Trigger: &trigger, Injected: &text})
	}
	if err == nil {
		if merr := markReceipted(dir, in.SessionID, time.Now()); merr != nil {
			fmt.Fprintf(env.Stderr, "Smriti: could not note the receipt: %v\n", merr)
		}
	}
	switch {
	case err != nil:
		o.SystemMessage = "Smriti: the brief was re-injected after compaction, but no receipt was recorded: " + smriti.ErrorMessage(err)
		fmt.Fprintln(env.Stderr, o.SystemMessage)
	case rc.Status == receipt.Incomplete:
		o.SystemMessage = "Smriti: " + render.CompactionLine(rc.Receipt(), time.Now())
		fmt.Fprintln(env.Stderr, o.SystemMessage)
		// The line names every item left out; the model is given as much
		// of it as the host's limit leaves room for.
		text += "\n" + cutChars(o.SystemMessage, HostContextChars-jsChars(text)-2) + "\n"
	default:
		o.SystemMessage = "Smriti: " + render.CompactionLine(rc.Receipt(), time.Now())
	}
	o.HookSpecificOutput.AdditionalContext = text
	return printHookOutput(env, o)
}

func printHookOutput(env *Env, o hookOutput) error {
	enc := json.NewEncoder(env.Stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(o)
}

func strPtr(s string) *string { return &s }

// withHost gives a hook command --host.
func withHost(cmd *cobra.Command) *cobra.Command {
	hostFlag(cmd)
	return cmd
}
