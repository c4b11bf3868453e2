package main

import (
	"net/http"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"smriti/client"
	"smriti/gitcli"
	"smriti/internal/memtrim"
	"smriti/mcp"
	"smriti/refcheck"
)

func newMCPCmd() *cobra.Command {
	var tools string
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Run the MCP server on stdio (talks HTTP to SMRITI_API_URL)",
		Long: `Run the Smriti MCP tools over stdio for an agent host. The tools talk HTTP to
--api-url / SMRITI_API_URL (default http://localhost:8000), sending
SMRITI_TOKEN as a bearer token when set. The server offers them over
streamable HTTP too: the core toolset at /mcp, every tool at /mcp?tools=all.

Toolsets (--tools): core, the default, is the agent loop:
` + wrapWords(strings.Join(mcp.CoreTools(), ", ")+".", 78, "  ") + `
all adds forks, merges, compare, branches, review, verify, restore, context,
metrics, checkpoint and worktree listings, spaces, skills and deletes. Every
tool's schema costs tokens on every tools/list: offer all only where needed.

Host configuration:
  {"mcpServers": {"smriti": {"command": "smriti", "args": ["mcp"],
                             "env": {"SMRITI_API_URL": "http://localhost:8000"}}}}`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			toolset, err := mcp.ParseToolset(tools)
			if err != nil {
				return err
			}
			url, _ := cmd.Flags().GetString("api-url")
			if url == "" {
				url = envOr("SMRITI_API_URL", "http://localhost:8000")
			}
			c := client.NewClient(strings.TrimRight(url, "/"))
			// A tool call retried after a dropped connection must not write
			// twice: each creating write carries its own idempotency key.
			c.AutoIdempotencyKeys = true
			if tok := os.Getenv("SMRITI_TOKEN"); tok != "" {
				c.Header = http.Header{"Authorization": {"Bearer " + tok}}
			}
			// An agent host keeps this process for its whole session: like
			// serve, give back the pages only start-up used (best effort).
			_, _ = memtrim.Executable()
			// Checkpoints record the git state of the project_root they
			// name, read here, on the agent's machine (as the CLI does).
			return mcp.ServeStdio(cmd.Context(), mcp.Config{Ops: mcp.NewClientOps(c), StatusOf: client.StatusOf, Version: version,
				GitState: gitcli.New().State, Tools: toolset, WorkTree: refcheck.WorkTrees{Git: gitcli.New()}})
		},
	}
	cmd.Flags().StringVar(&tools, "tools", string(mcp.ToolsetCore), "toolset: core (the agent loop) or all")
	return cmd
}

// wrapWords breaks s into lines of at most width characters, each starting
// with indent.
func wrapWords(s string, width int, indent string) string {
	var b strings.Builder
	line := indent
	for _, w := range strings.Fields(s) {
		if len(line) > len(indent) && len(line)+1+len(w) > width {
			b.WriteString(line + "\n")
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += w
	}
	b.WriteString(line)
	return b.String()
}
