package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"smriti"
)

// jsonFlag adds --json to cmd.
func jsonFlag(cmd *cobra.Command, v *bool) {
	cmd.Flags().BoolVar(v, "json", false, "print the result as JSON (shapes in README's command table)")
}

// printJSON writes v as indented JSON with a trailing newline.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// short returns the first 7 characters of a hash or id.
func short(s string) string {
	if len(s) > 7 {
		return s[:7]
	}
	return s
}

// now is the clock relative times are measured against.
var now = time.Now

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// maxStdin bounds what a command reads from stdin or a file: the server
// refuses larger bodies anyway, and reading them whole would only waste
// memory.
const maxStdin = 4 << 20

// readAllLimited reads r whole, failing (before any request is sent) when it
// holds more than maxStdin bytes.
func readAllLimited(r io.Reader, what string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxStdin+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	if len(data) > maxStdin {
		return nil, smriti.Errorf(smriti.ETOOLARGE, "%s is larger than %d MiB; nothing was sent", what, maxStdin>>20)
	}
	return data, nil
}

// confirm asks before a destructive action. With --yes it proceeds; on a
// terminal it asks for the word "yes"; in a pipe it refuses (exit 1).
func confirm(env *Env, yes bool, preview string) error {
	if yes {
		return nil
	}
	fmt.Fprintln(env.Stderr, preview)
	if !env.StdinTTY {
		return failf("refusing to proceed without --yes in non-interactive mode; nothing was changed")
	}
	fmt.Fprint(env.Stderr, "Type 'yes' to confirm: ")
	line, _ := bufio.NewReader(env.Stdin).ReadString('\n')
	if !strings.EqualFold(strings.TrimSpace(line), "yes") {
		return failf("cancelled; nothing was changed")
	}
	return nil
}

// spinner shows progress on stderr for slow (LLM-backed) calls, only when
// stderr is a terminal. stop clears it.
func spinner(env *Env, label string) (stop func()) {
	if !env.StderrTTY {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		frames := `|/-\`
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for i := 0; ; i++ {
			fmt.Fprintf(env.Stderr, "\r%c %s", frames[i%len(frames)], label)
			select {
			case <-done:
				fmt.Fprintf(env.Stderr, "\r%s\r", strings.Repeat(" ", len(label)+2))
				return
			case <-t.C:
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done); wg.Wait() }) }
}

// printRedactions tells the user, on stderr, which secrets the server
// replaced before storing what they wrote (nothing is replaced silently).
func printRedactions(env *Env, rs []smriti.Redaction) {
	for _, r := range rs {
		fmt.Fprintf(env.Stderr, "redacted a secret in %s (%s): it is stored as [redacted: %s]\n", r.Field, r.Rule, r.Rule)
	}
}
