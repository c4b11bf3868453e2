// Command smriti is Smriti in one binary: the HTTP API and web workspace
// (`smriti serve`), the agent CLI, and the MCP server. This package is the
// only place that knows every adapter; it wires them together.
package main

import (
	"os"

	"github.com/spf13/cobra"

	"smriti/cli"
	"smriti/gitcli"
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
	root.AddCommand(newServeCmd(), newVersionCmd(), newMigrateCmd(), newBackupCmd(), newEvalCmd())
	root.AddCommand(newMCPCmd())
	root.AddCommand(cli.AccountCommands(defaultDB(), openAccounts)...)
	cli.UseGit(gitcli.New().State)
	cli.Attach(root)
	return root
}
