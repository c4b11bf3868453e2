// Package cli is the agent command line: cobra commands that talk to a
// Smriti server over HTTP through the Go client (client, wire), and format
// its answers as markdown for people and agents (or JSON with --json).
//
// It imports no server package (httpapi, store, provider, app), so what an
// agent sees is what the API serves.
package cli

import (
	"context"
	"io"
	"net/http"
	"os"
	"smriti/client"
	"strings"

	"github.com/spf13/cobra"

	"smriti"
)

// DefaultAPIURL is where the CLI looks for a server when neither --api-url
// nor SMRITI_API_URL says otherwise.
const DefaultAPIURL = "http://localhost:8000"

// Env is what every command needs: where the server is, the token, and the
// standard streams. Commands read it from their context (see envOf).
type Env struct {
	APIURL string
	Token  string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// StdinTTY and StderrTTY say whether those streams are terminals; they
	// decide confirmation prompts and spinners.
	StdinTTY  bool
	StderrTTY bool
	// Getwd returns the working directory (captured as project root).
	Getwd func() (string, error)
	// GitState reads where a project's git work tree stands, for the
	// metadata.git of checkpoints the CLI writes (nil: not recorded).
	GitState func(ctx context.Context, dir string) (*smriti.GitState, error)
}

// gitState is what main hands UseGit.
var gitState func(ctx context.Context, dir string) (*smriti.GitState, error)

// UseGit gives the commands a way to read a project's git state (main
// passes the git adapter's), so that checkpoints record their code.
func UseGit(fn func(ctx context.Context, dir string) (*smriti.GitState, error)) { gitState = fn }

// Client returns an HTTP client for the configured server, sending
// SMRITI_TOKEN as a bearer token when set.
func (e *Env) Client() *client.Client {
	c := client.NewClient(e.APIURL)
	// Every creating write carries a new Idempotency-Key and is sent again
	// after a network error, so a retry never writes twice.
	c.AutoIdempotencyKeys = true
	if e.Token != "" {
		c.Header = http.Header{"Authorization": {"Bearer " + e.Token}}
	}
	return c
}

type envKey struct{}

// envOf returns the Env the root command prepared.
func envOf(cmd *cobra.Command) *Env {
	if e, ok := cmd.Context().Value(envKey{}).(*Env); ok {
		return e
	}
	return defaultEnv(cmd)
}

func defaultEnv(cmd *cobra.Command) *Env {
	return &Env{
		APIURL: DefaultAPIURL, Stdin: cmd.InOrStdin(), Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr(),
		StdinTTY: isTerminal(os.Stdin), StderrTTY: isTerminal(os.Stderr), Getwd: os.Getwd,
		GitState: gitState,
	}
}

// Attach adds the agent commands and the global --api-url flag to root. The
// API URL is --api-url, else SMRITI_API_URL, else DefaultAPIURL.
func Attach(root *cobra.Command) {
	var apiURL string
	root.PersistentFlags().StringVar(&apiURL, "api-url", "", "Smriti server URL (default $SMRITI_API_URL or "+DefaultAPIURL+")")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageErr(c, err.Error()) })
	prev := root.PersistentPreRunE
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		env := defaultEnv(cmd)
		env.APIURL = firstNonEmpty(apiURL, os.Getenv("SMRITI_API_URL"), DefaultAPIURL)
		env.APIURL = strings.TrimRight(env.APIURL, "/")
		env.Token = os.Getenv("SMRITI_TOKEN")
		ctx := cmd.Context()
		if ctx == nil {
			ctx = context.Background()
		}
		cmd.SetContext(context.WithValue(ctx, envKey{}, env))
		if prev != nil {
			return prev(cmd, args)
		}
		return nil
	}
	root.AddCommand(commands()...)
}

// commands lists the top-level agent commands.
func commands() []*cobra.Command {
	return []*cobra.Command{
		newSpaceCmd(),
		newImportCmd(), newExportCmd(), newImportSpaceCmd(), newSearchCmd(),
		newCheckpointCmd(),
		newProposalsCmd(),
		newForkCmd(),
		newRestoreCmd(),
		newCompareCmd(),
		newBranchCmd(),
		newVerifyCmd(),
		newWhyCmd(),
		newMergeCmd(),
		newChatCmd(),
		newContextCmd(),
		newSkillsCmd(),
		newStateCmd(),
		newClaimCmd(),
		newReadyCmd(),
		newPrimeCmd(),
		newCheckCmd(),
		newMetricsCmd(),
		newInitCmd(),
		newHookCmd(),
		newReceiptsCmd(),
		newWorktreeCmd(),
		newRemoteCmd(), newFetchCmd(), newPullCmd(), newPushCmd(), newCloneCmd(), newPrivateCmd(),
		newSecretsCmd(),
	}
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
