// Command smriti is Smriti in one binary: the HTTP API and web workspace
// (`smriti serve`), the agent CLI, and the MCP server. This package is the
// only place that knows every adapter; it wires them together.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"smriti/cli"
	"smriti/gitcli"
)

// Set at build time with -ldflags "-X main.version=… -X main.commit=… -X main.date=…".
var (
	version = "dev"
	commit  = "unknown"
	date    = "unknown"
)

func main() {
	os.Exit(cli.Report(os.Stderr, newRoot().Execute()))
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "smriti",
		Short: "Version control for reasoning state",
		Long: `Smriti keeps the structured state of AI work — objective, summary, decisions,
assumptions, tasks, open questions, entities, artifacts — as immutable,
branchable checkpoints, and gives a model exactly the state you mount.

Run "smriti serve" to start the API and web workspace.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newServeCmd(), newVersionCmd())
	root.AddCommand(newMCPCmd())
	root.AddCommand(cli.AccountCommands(defaultDB(), openAccounts)...)
	cli.UseGit(gitcli.New().State)
	cli.Attach(root)
	return root
}

func newVersionCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and build date",
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON {
				fmt.Fprintf(cmd.OutOrStdout(), "{\"version\":%q,\"commit\":%q,\"date\":%q}\n", version, commit, date)
				return nil
			}
			fmt.Fprintf(cmd.OutOrStdout(), "smriti %s (commit %s, built %s)\n", version, commit, date)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}
