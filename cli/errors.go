package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"smriti"
)

// Exit codes: 0 success, 1 an error, 2 a usage error (unknown command or
// flag, wrong arguments), 3 a save refused with conflicts (ExitConflict).
const (
	ExitOK    = 0
	ExitError = 1
	ExitUsage = 2
)

// usageError is a mistake in how the command was called.
type usageError struct {
	msg  string
	path string
}

func (e *usageError) Error() string { return e.msg }

func usageErr(cmd *cobra.Command, msg string) error {
	return &usageError{msg: msg, path: cmd.CommandPath()}
}

// hinted carries the next step to suggest with an error.
type hinted struct {
	err  error
	hint string
}

func (h *hinted) Error() string { return h.err.Error() }
func (h *hinted) Unwrap() error { return h.err }

// withHint attaches a next step to err when it has the given domain code.
func withHint(err error, code, hint string) error {
	if err == nil || smriti.ErrorCode(err) != code {
		return err
	}
	return &hinted{err: err, hint: hint}
}

// failf is a plain error of the CLI itself (exit 1).
func failf(format string, args ...any) error {
	return smriti.Errorf(smriti.EINVALID, format, args...)
}

// Report writes err to stderr with what to do next and returns the exit
// code. main calls it with whatever Execute returned.
func Report(stderr io.Writer, err error) int {
	if err == nil {
		return ExitOK
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "error: %s\nRun '%s --help' for usage.\n", ue.msg, ue.path)
		return ExitUsage
	}
	msg := err.Error()
	// cobra reports an unknown subcommand as a plain error.
	if strings.HasPrefix(msg, "unknown command") || strings.HasPrefix(msg, "unknown flag") ||
		strings.HasPrefix(msg, "unknown shorthand flag") {
		fmt.Fprintf(stderr, "error: %s\n", msg)
		return ExitUsage
	}
	var ce *conflictError
	if errors.As(err, &ce) {
		fmt.Fprintf(stderr, "error: %s", conflictText(ce.cc, ce.retry, ce.kept))
		return ExitConflict
	}
	var se *smriti.Error
	if errors.As(err, &se) {
		msg = se.Message
	}
	fmt.Fprintf(stderr, "error: %s\n", msg)
	var h *hinted
	switch {
	case errors.As(err, &h):
		fmt.Fprintln(stderr, h.hint)
	case smriti.ErrorCode(err) == smriti.EUNAVAILABLE && strings.HasPrefix(msg, "cannot reach") && !strings.Contains(msg, "smriti serve"):
		// The client's own message already names the next step; say it once.
		fmt.Fprintln(stderr, "Start the server with `smriti serve` (or point --api-url / SMRITI_API_URL at a running one).")
	case smriti.ErrorCode(err) == smriti.EUNAUTHORIZED:
		fmt.Fprintln(stderr, "Set SMRITI_TOKEN to a valid API token.")
	}
	return ExitError
}

// args validators that report usage errors (exit 2).
func exactArgs(n int, names ...string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == n {
			return nil
		}
		if len(args) < n && len(names) == n {
			return usageErr(cmd, fmt.Sprintf("missing argument <%s>", names[len(args)]))
		}
		return usageErr(cmd, fmt.Sprintf("%s takes %d argument(s), got %d", cmd.CommandPath(), n, len(args)))
	}
}

func rangeArgs(min, max int, names ...string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) >= min && len(args) <= max {
			return nil
		}
		if len(args) < min && len(names) > len(args) {
			return usageErr(cmd, fmt.Sprintf("missing argument <%s>", names[len(args)]))
		}
		return usageErr(cmd, fmt.Sprintf("%s takes %d to %d arguments, got %d", cmd.CommandPath(), min, max, len(args)))
	}
}

// groupCmd is a command that only holds subcommands; called bare or with an
// unknown subcommand it is a usage error.
func groupCmd(use, short string, subs ...*cobra.Command) *cobra.Command {
	c := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageErr(cmd, fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath()))
			}
			return usageErr(cmd, "missing subcommand")
		},
	}
	c.AddCommand(subs...)
	return c
}

// ExitConflict is the exit code of a save whose change conflicts with
// changes made on its branch since its base (the server's 409): nothing was
// written, and the conflicts were printed with the --resolve flags that
// settle them.
const ExitConflict = 3

// conflictError is a save refused with conflicts; Report prints them.
type conflictError struct {
	cc *smriti.CommitConflict
	// retry is the command to run again, with --resolve flags appended.
	retry string
	// kept says where the unsaved content waits, when it was kept.
	kept string
}

func (e *conflictError) Error() string { return e.cc.Message }

// asConflict turns a commit's 409 into a conflictError; other errors pass.
func asConflict(err error, retry, kept string) error {
	if cc, ok := smriti.ErrorData(err).(*smriti.CommitConflict); ok {
		return &conflictError{cc: cc, retry: retry, kept: kept}
	}
	return err
}

// conflictText lists the conflicts of a refused save and the next step.
func conflictText(cc *smriti.CommitConflict, retry, kept string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", cc.Message)
	fmt.Fprintf(&b, "Nothing was saved: the branch head %s has changed the same item(s) since your base %s.\n",
		cc.HeadCheckpointID, cc.BaseCheckpointID)
	if kept != "" {
		fmt.Fprintf(&b, "Your content is kept in %s.\n", kept)
	}
	fmt.Fprintf(&b, "%d conflict(s) (ours = the branch head, theirs = your save):\n", len(cc.Conflicts))
	for i, c := range cc.Conflicts {
		fmt.Fprintf(&b, "%d. %s (%s, %s)\n   base:   %s\n   ours:   %s\n   theirs: %s\n",
			i+1, firstNonEmpty(c.Key, c.Field), c.Field, c.Kind, c.Base, c.Ours, c.Theirs)
	}
	fmt.Fprintf(&b, "Re-run with one --resolve per conflict (ours, theirs or base):\n  %s", retry)
	for _, c := range cc.Conflicts {
		fmt.Fprintf(&b, " --resolve %s", shellQuote(resolveTarget(c)+"=theirs"))
	}
	b.WriteString("\n")
	return b.String()
}

// resolveTarget is a conflict as --resolve names it: FIELD or FIELD:KEY,
// the syntax `smriti merge` uses.
func resolveTarget(c smriti.MergeConflict) string {
	if c.Key == "" {
		return c.Field
	}
	return c.Field + ":" + c.Key
}

// parseResolutions reads repeated --resolve flags; a malformed one is a
// usage error, as in `smriti merge`.
func parseResolutions(cmd *cobra.Command, in []string) ([]smriti.MergeResolution, error) {
	var out []smriti.MergeResolution
	for _, s := range in {
		r, err := parseResolution(s)
		if err != nil {
			return nil, usageErr(cmd, err.Error())
		}
		out = append(out, r)
	}
	return out, nil
}
