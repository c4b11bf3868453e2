package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"smriti"
	"smriti/httpapi"
	"smriti/skills"
)

// InitResult is the --json answer of `init`.
type InitResult struct {
	Space     *httpapi.Repo  `json:"space"`
	Results   []string       `json:"results"`
	NextSteps []string       `json:"next_steps"`
	MCPConfig map[string]any `json:"mcp_config"`
}

// hookMatchers are the Claude Code SessionStart events that get the brief.
var hookMatchers = []string{"startup", "resume", "compact"}

func newInitCmd() *cobra.Command {
	var asJSON bool
	var desc string
	cmd := &cobra.Command{
		Use:   "init <space>",
		Short: "Onboard this directory: find or create the space, install skill packs, add SessionStart hooks (idempotent)",
		Long: `Onboard the current directory in one step, safely repeatable:
  1. find the space by name (or create it with this directory as project root);
  2. install the skill pack for Claude Code (.claude/skills/smriti/SKILL.md) and
     Codex (AGENTS.md) unless a same or newer version is there — an AGENTS.md of
     your own is never overwritten;
  3. add SessionStart hooks to .claude/settings.json that print
     "smriti state <space> --compact", keeping every existing hook and setting;
  4. print the MCP configuration for your agent host.`,
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
			sp, err := resolveSpace(ctx, c, args[0])
			switch {
			case smriti.ErrorCode(err) == smriti.ENOTFOUND:
				name := args[0]
				sp, err = c.CreateSpaceWith(ctx, httpapi.SpaceCreateRequest{Name: &name, Description: &desc, ProjectRoot: &wd})
				if err != nil {
					return err
				}
				res.Results = append(res.Results, fmt.Sprintf("Created space %s (%s) with project root %s", sp.Name, sp.ID, wd))
			case err != nil:
				return err
			case sp.ProjectRoot == nil || *sp.ProjectRoot == "":
				if sp, err = c.SetProjectRoot(ctx, sp.ID, wd); err != nil {
					return err
				}
				res.Results = append(res.Results, fmt.Sprintf("Found space %s (%s); set its project root to %s", sp.Name, sp.ID, wd))
			default:
				res.Results = append(res.Results, fmt.Sprintf("Found space %s (%s), project root %s", sp.Name, sp.ID, *sp.ProjectRoot))
			}
			res.Space = sp

			for _, target := range []string{"claude-code", "codex"} {
				msg, next, err := installPack(wd, target)
				if err != nil {
					return err
				}
				res.Results = append(res.Results, msg)
				if next != "" {
					res.NextSteps = append(res.NextSteps, next)
				}
			}

			exe, err := os.Executable()
			if err != nil {
				exe = "smriti"
			}
			msg, err := addHooks(filepath.Join(wd, ".claude", "settings.json"), exe, sp.Name)
			if err != nil {
				var skip *hookSkip
				if !errors.As(err, &skip) {
					return err
				}
				res.NextSteps = append(res.NextSteps, skip.next)
				msg = skip.msg
			}
			res.Results = append(res.Results, msg)

			res.MCPConfig = map[string]any{"mcpServers": map[string]any{"smriti": map[string]any{
				"command": exe, "args": []string{"mcp"}, "env": map[string]string{"SMRITI_API_URL": env.APIURL}}}}
			cfg, _ := json.Marshal(res.MCPConfig)
			res.NextSteps = append(res.NextSteps,
				"Add the MCP server to your agent host: "+string(cfg),
				"Read the brief: smriti state "+shellQuote(sp.Name)+" --compact")
			if asJSON {
				return printJSON(env.Stdout, res)
			}
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
			fmt.Fprint(env.Stdout, b.String())
			return nil
		},
	}
	cmd.Flags().StringVar(&desc, "description", "", "description of a newly created space")
	jsonFlag(cmd, &asJSON)
	return cmd
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

// addHooks adds SessionStart hooks that print the compact brief, keeping
// every existing key and hook; an existing hook that already runs the
// brief for this space is left as it is.
func addHooks(path, exe, space string) (string, error) {
	stateCmd := shellQuote(exe) + " state " + shellQuote(space) + " --compact"
	command := stateCmd + " 2>/dev/null || echo 'Smriti server not reachable. Start it with: smriti serve'"
	settings := map[string]any{}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return "", err
	default:
		if len(bytes.TrimSpace(data)) > 0 {
			if err := json.Unmarshal(data, &settings); err != nil || settings == nil {
				return "", &hookSkip{msg: "Left .claude/settings.json alone: it is not a JSON object",
					next: "Fix .claude/settings.json, then run smriti init again to add the SessionStart hooks"}
			}
		}
	}
	hooks, ok := settings["hooks"].(map[string]any)
	if settings["hooks"] != nil && !ok {
		return "", &hookSkip{msg: "Left .claude/settings.json alone: its \"hooks\" is not an object",
			next: "Add a SessionStart hook running: " + command}
	}
	if hooks == nil {
		hooks = map[string]any{}
	}
	start, ok := hooks["SessionStart"].([]any)
	if hooks["SessionStart"] != nil && !ok {
		return "", &hookSkip{msg: "Left .claude/settings.json alone: its hooks.SessionStart is not a list",
			next: "Add a SessionStart hook running: " + command}
	}
	have := map[string]bool{}
	for _, e := range start {
		entry, _ := e.(map[string]any)
		matcher, _ := entry["matcher"].(string)
		list, _ := entry["hooks"].([]any)
		for _, h := range list {
			hm, _ := h.(map[string]any)
			if c, _ := hm["command"].(string); strings.Contains(c, " state "+shellQuote(space)+" ") {
				have[matcher] = true
			}
		}
	}
	added := 0
	for _, m := range hookMatchers {
		if have[m] {
			continue
		}
		start = append(start, map[string]any{"matcher": m, "hooks": []any{map[string]any{"type": "command", "command": command}}})
		added++
	}
	if added == 0 {
		return "SessionStart hooks already print the brief (.claude/settings.json unchanged)", nil
	}
	hooks["SessionStart"] = start
	settings["hooks"] = hooks
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(settings); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	if err := skills.WriteFileAtomic(path, out.Bytes()); err != nil {
		return "", err
	}
	return fmt.Sprintf("Added %d SessionStart hook(s) to .claude/settings.json running: %s", added, stateCmd), nil
}
