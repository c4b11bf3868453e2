package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"smriti"
	"smriti/client"
	"smriti/portability"
	"smriti/receipt"
	"smriti/render"
	"smriti/wire"
)

// Each host's contract for what a hook prints, per event (from Claude Code
// 2.1's and Codex 0.169's own code and schemas):
//
//   - SessionStart: stdout, or hookSpecificOutput.additionalContext, is
//     given to the model; systemMessage is shown to the person.
//   - PreCompact: Claude Code appends a successful hook's stdout, JSON or
//     not, to the summariser's prompt as custom instructions, so nothing of
//     ours goes there: the status goes to stderr (Claude Code shows only
//     "completed successfully"). Codex takes JSON whose systemMessage it
//     shows the person.
//   - PostCompact: neither host gives its output to the model; we print
//     nothing.
//   - Stop: both take JSON; systemMessage is shown to the person.
//   - SessionEnd: the session is over; the output reaches no model
//     (Codex has no output for it), so the status goes to stderr.
//
// Every hook also notes what it did and how long it took in
// .smriti/hooks.log beside the project (withHookLog).

// sayHookStatus writes an import hook's status lines where the host shows
// them to the person. A Stop hook's status is printed as it is: the Stop
// command answers with it as JSON (printStopOutput).
func sayHookStatus(env *Env, host, sub, text string) error {
	text = strings.TrimSpace(text)
	switch {
	case sub == "stop":
		if text != "" {
			fmt.Fprintln(env.Stdout, text)
		}
		return nil
	case sub == "pre-compact" && host == receipt.HostCodex:
		return printStopOutput(env, text)
	}
	if text != "" {
		fmt.Fprintln(env.Stderr, text)
	}
	return nil
}

// hookLog is where hooks note each run, beside the project, never
// committed (init ignores .smriti/).
func hookLog(dir string) string { return filepath.Join(dir, ".smriti", "hooks.log") }

// maxHookLog bounds the log; a longer one is moved to hooks.log.1.
const maxHookLog = 1 << 20

// withHookLog notes each run of a hook in .smriti/hooks.log: when, the
// event and host, how long it took, and what it said (stdout and stderr on
// one line, cut short) or the error it ended with.
//
// A hook is also bounded in time (HookDeadline, or SMRITI_HOOK_TIMEOUT):
// within the host's own timeout (Claude Code's default is 60 s; a Codex
// hook has none unless configured), so a server that hangs never holds the
// agent; the hook then says the server was too slow.
func withHookLog(cmd *cobra.Command) *cobra.Command {
	run := cmd.RunE
	cmd.RunE = func(c *cobra.Command, args []string) error {
		env := envOf(c)
		start := time.Now()
		in, perr := peekHookInput(env)
		limit := hookDeadline()
		ctx, cancel := context.WithTimeout(c.Context(), limit)
		defer cancel()
		c.SetContext(ctx)
		var said bytes.Buffer
		out, errw := env.Stdout, env.Stderr
		env.Stdout, env.Stderr = io.MultiWriter(out, &said), io.MultiWriter(errw, &said)
		err := run(c, args)
		if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = slowServer(limit)
		}
		env.Stdout, env.Stderr = out, errw
		if perr != nil || in.Cwd == "" {
			return err
		}
		host, _ := c.Flags().GetString("host")
		what := "ok"
		if err != nil {
			what = "error: " + smriti.ErrorMessage(err)
		}
		line := fmt.Sprintf("%s %s %s %s %dms %s: %s\n", start.UTC().Format(time.RFC3339), c.Name(), firstNonEmpty(host, receipt.HostClaudeCode),
			firstNonEmpty(in.SessionID, "-"), time.Since(start).Milliseconds(), what, oneLineCut(said.String(), 400))
		appendHookLog(hookLog(in.Cwd), line)
		return err
	}
	return cmd
}

// HookDeadline bounds a hook's run, well within Claude Code's default
// hook timeout of 60 seconds.
const HookDeadline = 45 * time.Second

func hookDeadline() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("SMRITI_HOOK_TIMEOUT")); err == nil && d > 0 {
		return d
	}
	return HookDeadline
}

// slowServer is what a hook says when the server did not answer in time.
func slowServer(limit time.Duration) error {
	return failf("the Smriti server did not answer within %s; the hook gave up so the agent goes on", limit)
}

func appendHookLog(path, line string) {
	if fi, err := os.Stat(path); err == nil && fi.Size() > maxHookLog {
		_ = os.Rename(path, path+".1")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.WriteString(line)
}

func oneLineCut(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// importHookTranscript imports the transcript a hook names. When the host
// said what the turn's final answer was (last) and the file on disk does
// not hold it yet (Claude Code writes its transcript in batches and may
// start Stop before the last lines are there), the answer is imported as a
// stand-in that the real line covers once it is written, so it is never a
// turn twice (portability.StandInLine).
func importHookTranscript(ctx context.Context, c *client.Client, spaceID smriti.ID, format, path, session, last string) (*wire.TranscriptImportResponse, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, failf("cannot open %s: %v", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	// Both reads see the same bytes, however the file grows meanwhile.
	size := fi.Size()
	var body io.Reader = io.LimitReader(f, size)
	if strings.TrimSpace(last) != "" {
		held, err := lastAssistantMessage(io.LimitReader(f, size), format)
		if err != nil {
			return nil, err
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		body = io.LimitReader(f, size)
		if !portability.SameMessage(held, portability.RedactSecrets(last)) {
			// A line cut off at the end stays apart from the stand-in.
			body = io.MultiReader(body, strings.NewReader("\n"), bytes.NewReader(portability.StandInLine(last)))
		}
	}
	return c.ImportAgentTranscript(ctx, spaceID, format, filepath.Base(path), session, body)
}

// lastAssistantMessage is the text of the transcript's last assistant
// message, as an import would store it.
func lastAssistantMessage(r io.Reader, format string) (string, error) {
	last := ""
	_, err := portability.ReadAgentTranscript(r, format, func(e portability.AgentEntry, _ *portability.AgentTranscriptInfo) error {
		if e.Kind == portability.AgentMessage && e.Role == smriti.RoleAssistant {
			last = e.Content
		}
		return nil
	})
	return last, err
}

// HostContextChars is the most a SessionStart hook may give the model
// whole: Claude Code moves additionalContext over 10,000 characters (as
// JavaScript counts them) into a file and gives the model a preview. The
// brief keeps some room below it for the line a compaction receipt adds.
const (
	HostContextChars = 10_000
	briefChars       = HostContextChars - 600
)

// jsChars counts characters as JavaScript does (UTF-16 code units).
func jsChars(s string) int { return render.JSChars(s) }

// fitBrief reads the compact brief for a SessionStart hook, within budget
// tokens when set, and always within briefChars: the server renders and
// counts it, shrinking its budget until it fits (the brief then says what
// it left out and how to list it); decorate adds what the hook puts in
// (the stale-ref checks), and a brief that outgrows the limit with it is
// read again with that much less room, at most a few times, and cut as a
// last resort. reserve is what of the budget decorate needs, in tokens.
func fitBrief(ctx context.Context, c *client.Client, space smriti.ID, budget, reserve int, decorate func(string) string) (string, error) {
	room := briefChars
	var md string
	for try := 0; try < 3; try++ {
		raw, err := c.Brief(ctx, space, client.BriefOptions{Compact: true, Budget: budget, Reserve: reserve, MaxChars: room})
		if err != nil {
			return "", err
		}
		md = decorate(raw)
		over := jsChars(md) - briefChars
		if over <= 0 || room <= 1000 {
			break
		}
		room = max(1000, room-over-200)
	}
	if jsChars(md) > briefChars {
		const cut = "\n\n… the brief was cut to fit the host's limit; read the rest with `smriti state --all`.\n"
		r := []rune(md)
		for jsChars(string(r))+jsChars(cut) > briefChars {
			r = r[:len(r)*9/10]
		}
		md = string(r) + cut
	}
	return md, nil
}

// cutChars cuts s to at most n characters (as jsChars counts them), ending
// with "…" when cut.
func cutChars(s string, n int) string {
	if jsChars(s) <= n {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && jsChars(string(r))+1 > n {
		r = r[:len(r)-max(1, (jsChars(string(r))+1-n)/2)]
	}
	return string(r) + "…"
}
