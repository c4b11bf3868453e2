package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"smriti/client"
	"strings"

	"github.com/spf13/cobra"

	"smriti"
	"smriti/skills"
	"smriti/wire"
)

// InitResult is the --json answer of `init`.
type InitResult struct {
	Space     *wire.Repo     `json:"space"`
	Results   []string       `json:"results"`
	NextSteps []string       `json:"next_steps"`
	MCPConfig map[string]any `json:"mcp_config"`
}

func newInitCmd() *cobra.Command {
	var asJSON, autoSave, writeGlobal bool
	var desc, agentFlag string
	cmd := &cobra.Command{
		Use:   "init <space>",
		Short: "Onboard this directory: find or create the space, install skill packs, add SessionStart hooks (idempotent)",
		Long: `Onboard the current directory in one step, safely repeatable:
  1. find the space by name (or create it with this directory as project root);
  2. install the skill pack for Claude Code (.claude/skills/smriti/SKILL.md) and
     Codex (AGENTS.md) unless a same or newer version is there — an AGENTS.md of
     your own is never overwritten;
  3. Claude Code: add hooks to .claude/settings.json, keeping every existing
     hook and setting: SessionStart prints the compact brief (after a
     compaction it re-injects it and records a receipt: smriti receipts);
     PreCompact, SessionEnd and Stop (at most every 15 minutes per session)
     import the session's transcript and draft a checkpoint (saved with
     --auto-save, else kept pending for the next brief); PostCompact notes
     the compaction for the receipt. The hooks run "smriti" from PATH, so the
     file can be committed for the whole team;
  4. Codex: the same hooks in the project's .codex/hooks.json (SessionStart,
     PreCompact, PostCompact, SessionEnd, Stop), run with --host codex; print
     the MCP server entry for $CODEX_HOME/config.toml (default
     ~/.codex/config.toml), or write it there with --write-global;
  5. print the MCP configuration for other agent hosts.`,
		Args: exactArgs(1, "space"),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			ctx := cmd.Context()
			c := env.Client()
			wd, err := env.Getwd()
			if err != nil {
				return err
			}
			if _, err := c.Spaces(ctx); err != nil {
				return err
			}
			res := &InitResult{}
			sp, err := initSpace(ctx, c, args[0], desc, wd, res)
			if err != nil {
				return err
			}

			targets, err := initTargets(agentFlag)
			if err != nil {
				return usageErr(cmd, err.Error())
			}
			for _, target := range targets {
				msg, next, err := installPack(wd, target)
				if err != nil {
					return err
				}
				res.Results = append(res.Results, msg)
				if next != "" {
					res.NextSteps = append(res.NextSteps, next)
				}
			}
			for _, h := range hookInstallers(wd, sp.Name, autoSave) {
				if !hasTarget(targets, h.target) {
					continue
				}
				msg, next, err := h.install()
				if err != nil {
					return err
				}
				res.Results = append(res.Results, msg)
				if next != "" {
					res.NextSteps = append(res.NextSteps, next)
				}
				if msg, err := ignorePending(wd); err != nil {
					return err
				} else if msg != "" {
					res.Results = append(res.Results, msg)
				}
			}
			if hasTarget(targets, "codex") {
				cfgPath, err := codexConfigPath()
				if err != nil {
					return err
				}
				if writeGlobal {
					msg, err := installCodexMCP(cfgPath, env.APIURL)
					if err != nil {
						return err
					}
					res.Results = append(res.Results, msg)
				} else {
					res.NextSteps = append(res.NextSteps, "Add the MCP server to "+tildePath(cfgPath)+" (or rerun with --write-global):\n"+indent(codexMCPEntry(env.APIURL), "       "))
				}
			}

			res.MCPConfig = map[string]any{"mcpServers": map[string]any{"smriti": map[string]any{
				"command": "smriti", "args": []string{"mcp"}, "env": map[string]string{"SMRITI_API_URL": env.APIURL}}}}
			cfg, _ := json.Marshal(res.MCPConfig)
			res.NextSteps = append(res.NextSteps,
				"Add the MCP server to your agent host: "+string(cfg),
				"Read the brief: smriti state "+shellQuote(sp.Name)+" --compact")
			if asJSON {
				return printJSON(env.Stdout, res)
			}
			fmt.Fprint(env.Stdout, res.text())
			return nil
		},
	}
	cmd.Flags().StringVar(&desc, "description", "", "description of a newly created space")
	cmd.Flags().StringVar(&agentFlag, "agent", "all", "claude-code, codex or all: which agents to set up")
	cmd.Flags().BoolVar(&autoSave, "auto-save", false, "PreCompact and SessionEnd hooks save their drafted checkpoint (default: keep it pending for the next brief)")
	cmd.Flags().BoolVar(&writeGlobal, "write-global", false, "write the Codex MCP server entry into $CODEX_HOME/config.toml (default ~/.codex) instead of printing it")
	jsonFlag(cmd, &asJSON)
	return cmd
}

// initSpace finds the space by name, or creates it with dir as its project
// root, or sets dir as the root of a found one that has none; res says
// which.
func initSpace(ctx context.Context, c *client.Client, name, desc, dir string, res *InitResult) (*wire.Repo, error) {
	sp, err := resolveSpace(ctx, c, name)
	switch {
	case smriti.ErrorCode(err) == smriti.ENOTFOUND:
		if sp, err = c.CreateSpace(ctx, wire.SpaceCreateRequest{Name: &name, Description: &desc, ProjectRoot: &dir}); err != nil {
			return nil, err
		}
		res.Results = append(res.Results, fmt.Sprintf("Created space %s (%s) with project root %s", sp.Name, sp.ID, dir))
	case err != nil:
		return nil, err
	case sp.ProjectRoot == nil || *sp.ProjectRoot == "":
		if sp, err = c.SetProjectRoot(ctx, sp.ID, dir); err != nil {
			return nil, err
		}
		res.Results = append(res.Results, fmt.Sprintf("Found space %s (%s); set its project root to %s", sp.Name, sp.ID, dir))
	default:
		res.Results = append(res.Results, fmt.Sprintf("Found space %s (%s), project root %s", sp.Name, sp.ID, *sp.ProjectRoot))
	}
	res.Space = sp
	return sp, nil
}

// text is the result as the terminal shows it.
func (res *InitResult) text() string {
	var b strings.Builder
	b.WriteString("\n")
	for _, r := range res.Results {
		fmt.Fprintf(&b, "  ✓ %s\n", r)
	}
	b.WriteString("\n  Next steps:\n")
	for i, n := range res.NextSteps {
		fmt.Fprintf(&b, "    %d. %s\n", i+1, n)
	}
	b.WriteString("\n")
	return b.String()
}

// installPack installs one skill pack without overwriting anything newer or
// anything that is not a skill pack.
func installPack(dir, target string) (msg, next string, err error) {
	t, err := skills.Lookup(target)
	if err != nil {
		return "", "", err
	}
	path := filepath.Join(dir, t.Destination)
	if b, err := os.ReadFile(path); err == nil && len(bytes.TrimSpace(b)) > 0 && !skills.HasVersion(path) {
		return fmt.Sprintf("Left %s alone: it is not a Smriti skill pack", t.Destination),
			fmt.Sprintf("Merge the Smriti guidance into %s yourself, or replace it: smriti skills install %s --force", t.Destination, target), nil
	}
	r, err := skills.Install(dir, target, "", false, false)
	if err != nil {
		return "", "", err
	}
	switch r.Action {
	case skills.ActionSkipped:
		return fmt.Sprintf("%s skill pack already installed at %s (version %s)", t.DisplayName, r.Destination, *r.PreviousVersion), "", nil
	case skills.ActionOverwritten:
		return fmt.Sprintf("Updated %s skill pack at %s to version %s", t.DisplayName, r.Destination, r.Version), "Commit " + r.Destination, nil
	}
	return fmt.Sprintf("Installed %s skill pack at %s (version %s)", t.DisplayName, r.Destination, r.Version), "Commit " + r.Destination, nil
}

type hookSkip struct{ msg, next string }

func (h *hookSkip) Error() string { return h.msg }

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// initTargets reads --agent.
func initTargets(flag string) ([]string, error) {
	switch strings.ToLower(strings.TrimSpace(flag)) {
	case "", "all":
		return []string{"claude-code", "codex"}, nil
	case "claude-code", "claude":
		return []string{"claude-code"}, nil
	case "codex":
		return []string{"codex"}, nil
	}
	return nil, fmt.Errorf("--agent must be claude-code, codex or all, not %q", flag)
}

func hasTarget(ts []string, t string) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix)
}

// ignorePending keeps the hooks' pending draft out of git.
func ignorePending(dir string) (string, error) {
	path := filepath.Join(dir, ".gitignore")
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l == ".smriti/" || l == ".smriti" || l == "/.smriti/" {
			return "", nil
		}
	}
	if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
		data = append(data, '\n')
	}
	data = append(data, ".smriti/\n"...)
	if err := skills.WriteFileAtomic(path, data); err != nil {
		return "", err
	}
	return "Added .smriti/ (pending drafts) to .gitignore", nil
}

// tildePath writes a path under the home folder as ~/….
func tildePath(p string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return p
	}
	if rel, err := filepath.Rel(home, p); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		return "~/" + filepath.ToSlash(rel)
	}
	return p
}
