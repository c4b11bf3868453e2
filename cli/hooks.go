package cli

import (
	"bytes"
	"context"
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
	"smriti/client"
	"smriti/internal/textutil"
	"smriti/skills"
	"smriti/wire"
)

// Claude Code hook events Smriti installs, and the hook subcommand each runs.
var claudeHookEvents = []hookEvent{
	{"SessionStart", "startup", "session-start", false},
	{"SessionStart", "resume", "session-start", false},
	{"SessionStart", "compact", "session-start", false},
	{"SessionStart", "clear", "session-start", false},
	{"SessionStart", "fork", "session-start", false},
	{"PreCompact", "", "pre-compact", true},
	{"PostCompact", "", "post-compact", false},
	{"SessionEnd", "", "session-end", true},
	{"Stop", "", "stop", true},
}

// hookCommand is what a hook runs: `smriti` from PATH, so the same settings
// file works for every teammate who commits it.
func hookCommand(sub, space string, autoSave bool) string {
	c := "smriti hook " + sub + " --space " + shellQuote(space)
	if autoSave {
		c += " --auto-save"
	}
	return c
}

// isSmritiHook reports whether a hook command is one Smriti installed for
// sub: the current form, or the brief command of earlier versions (which
// named the binary by absolute path).
func isSmritiHook(command, sub string) bool {
	if strings.Contains(command, "smriti hook "+sub+" ") || strings.HasSuffix(command, "smriti hook "+sub) {
		return true
	}
	return sub == "session-start" && strings.Contains(command, " state ") && strings.Contains(command, " --compact") &&
		strings.Contains(command, "Smriti server not reachable")
}

// installClaudeHooks makes .claude/settings.json run Smriti's hooks for the
// space, keeping every other key and hook (see installHooks).
func installClaudeHooks(path, space string, autoSave bool) (string, error) {
	return installHooks(hookFile{path: path, rel: filepath.Join(".claude", "settings.json"), host: "Claude Code", events: claudeHookEvents,
		command: func(sub string, autoSave bool) string { return hookCommand(sub, space, autoSave) }}, autoSave)
}

// codexMCPEntry is the MCP server entry for ~/.codex/config.toml.
func codexMCPEntry(apiURL string) string {
	return fmt.Sprintf("[mcp_servers.smriti]\ncommand = \"smriti\"\nargs = [\"mcp\"]\nenv = { SMRITI_API_URL = %q }\n", apiURL)
}

// installCodexMCP writes the entry into the Codex config unless a
// [mcp_servers.smriti] table is there already.
func installCodexMCP(path, apiURL string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	if bytes.Contains(data, []byte("[mcp_servers.smriti]")) {
		return "Codex MCP server entry already in " + path, nil
	}
	if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
		data = append(data, '\n')
	}
	if len(data) > 0 {
		data = append(data, '\n')
	}
	data = append(data, codexMCPEntry(apiURL)...)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	if err := skills.WriteFileAtomic(path, data); err != nil {
		return "", err
	}
	return "Added the Smriti MCP server to " + path, nil
}

// hookInput is the JSON Claude Code or Codex passes a hook on stdin.
// Codex may send transcript_path null (SessionEnd); both send
// last_assistant_message on Stop, the words of the turn's final answer,
// which the transcript on disk may not hold yet.
type hookInput struct {
	SessionID            string `json:"session_id"`
	TranscriptPath       string `json:"transcript_path"`
	Cwd                  string `json:"cwd"`
	HookEventName        string `json:"hook_event_name"`
	Trigger              string `json:"trigger"`
	LastAssistantMessage string `json:"last_assistant_message"`
}

// pendingDraft is a drafted checkpoint a hook keeps for the user to save
// (as a proposal; earlier versions wrote it to pending-draft.json).
type pendingDraft struct {
	SpaceID   smriti.ID           `json:"space_id"`
	SessionID smriti.ID           `json:"session_id"`
	Event     string              `json:"event"`
	CreatedAt time.Time           `json:"created_at"`
	Draft     wire.DraftFields    `json:"draft"`
	Source    *smriti.SourceTurns `json:"source_turns"`
	// Items and Base keep the draft's identity: the items with their ids
	// and the checkpoint the draft changed, so saving it later updates
	// those items (or is rebased, or reports conflicts) instead of
	// retracting and re-adding them.
	Items []wire.ItemIn `json:"items,omitempty"`
	Base  *smriti.ID    `json:"base_checkpoint_id,omitempty"`
	Model *string       `json:"model,omitempty"`
}

// pendingOf is a draft answer as a pending draft.
func pendingOf(spaceID, sessionID smriti.ID, event string, d *wire.DraftOut) pendingDraft {
	return pendingDraft{SpaceID: spaceID, SessionID: sessionID, Event: event, CreatedAt: time.Now().UTC(),
		Draft: d.DraftFields, Source: d.SourceTurns, Items: wire.ItemsInOf(wire.DomainItems(d.Items)),
		Base: d.BaseCheckpointID, Model: d.Model}
}

// pendingDraftPath is where earlier versions kept a project's pending
// draft (init adds it to .gitignore); hooks now move it into a proposal.
func pendingDraftPath(dir string) string { return filepath.Join(dir, ".smriti", "pending-draft.json") }

func newHookCmd() *cobra.Command {
	cmd := groupCmd("hook", "Run the agent hooks smriti init installs for Claude Code and Codex (SessionStart, PreCompact, PostCompact, SessionEnd, Stop)",
		withHookLog(withReinjection(newHookSessionStartCmd())), withHookLog(withCompactionMark(newHookImportCmd("pre-compact"))),
		withHookLog(newHookPostCompactCmd()), withHookLog(withHost(newHookImportCmd("session-end"))), withHookLog(newHookStopCmd()),
		newHookSaveDraftCmd())
	return cmd
}

// hookSpace is the hook's space: --space, else SMRITI_SPACE, else the space
// whose project root holds dir.
func hookSpace(ctx context.Context, env *Env, c *client.Client, space, dir string) (*wire.Repo, error) {
	if space = firstNonEmpty(space, os.Getenv("SMRITI_SPACE")); space != "" {
		return resolveSpace(ctx, c, space)
	}
	if dir == "" {
		var err error
		if dir, err = env.Getwd(); err != nil {
			return nil, err
		}
	}
	return spaceForDir(ctx, c, dir)
}

func readHookInput(r io.Reader) (*hookInput, error) {
	var in hookInput
	data, err := io.ReadAll(io.LimitReader(r, 1<<20))
	if err != nil {
		return nil, failf("cannot read the hook input: %v", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return &in, nil
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, failf("the hook input is not JSON: %v", err)
	}
	return &in, nil
}

func newHookSessionStartCmd() *cobra.Command {
	var space string
	var budget int
	cmd := &cobra.Command{
		Use:   "session-start",
		Short: "Print the compact brief (with the proposals waiting) for the agent to read; errors are printed, never hidden",
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			ctx := cmd.Context()
			in, _ := readHookInput(env.Stdin)
			dir := ""
			if in != nil {
				dir = in.Cwd
			}
			if dir == "" {
				dir, _ = env.Getwd()
			}
			c := env.Client()
			sp, err := hookSpace(ctx, env, c, space, dir)
			var md string
			if err == nil {
				reportMove(ctx, env, c, dir)
				checks := dirChecks(ctx, env, c, sp, dir)
				md, err = fitBrief(ctx, c, sp.ID, budget, checksReserve(checks), func(md string) string { return withChecks(md, checks) })
			}
			if err != nil {
				if errors.Is(ctx.Err(), context.DeadlineExceeded) {
					err = slowServer(hookDeadline())
				}
				// What the agent reads at session start: say what failed, as it failed.
				fmt.Fprintf(env.Stdout, "Smriti: the brief could not be read: %s\n", smriti.ErrorMessage(err))
				if smriti.ErrorCode(err) == smriti.EUNAVAILABLE {
					fmt.Fprintln(env.Stdout, "Start the server with `smriti serve` (or set SMRITI_API_URL).")
				}
				return nil
			}
			fmt.Fprint(env.Stdout, md)
			return nil
		},
	}
	cmd.Flags().StringVar(&space, "space", "", "the space (default: SMRITI_SPACE, else the project root's space)")
	cmd.Flags().IntVar(&budget, "budget", 0, "keep the brief within this many tokens, newest and open items first (default: every item)")
	cmd.FParseErrWhitelist.UnknownFlags = true
	return cmd
}

func readPending(dir string) (*pendingDraft, error) {
	data, err := os.ReadFile(pendingDraftPath(dir))
	if err != nil {
		return nil, err
	}
	var p pendingDraft
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// newHookImportCmd is PreCompact's and SessionEnd's hook: import the new
// part of the transcript into the space's session for this agent session,
// then draft a checkpoint from it, saved onto the session's branch head
// with --auto-save or kept pending for the next brief. It never exits 2
// (which would block compaction).
func newHookImportCmd(sub string) *cobra.Command {
	var space string
	var autoSave bool
	var run func(*cobra.Command, []string) error
	cmd := &cobra.Command{
		Use:   sub,
		Short: "Import the Claude Code or Codex (--host codex) transcript named by the hook input and draft a checkpoint (saved with --auto-save, else kept as a proposal)",
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			// What the hook did goes where the host shows it to the
			// person, never into a prompt (sayHookStatus).
			env := envOf(cmd)
			out := env.Stdout
			var status bytes.Buffer
			env.Stdout = &status
			err := run(cmd, args)
			env.Stdout = out
			host, _ := hookHost(cmd)
			if serr := sayHookStatus(env, host, sub, status.String()); err == nil {
				err = serr
			}
			return err
		},
	}
	run = func(cmd *cobra.Command, args []string) error {
		env := envOf(cmd)
		ctx := cmd.Context()
		in, err := readHookInput(env.Stdin)
		if err != nil {
			return err
		}
		path := in.TranscriptPath
		if path == "" {
			host, _ := hookHost(cmd)
			if path, err = findTranscript(host, in.SessionID); err != nil {
				return err
			}
		}
		dir := in.Cwd
		if dir == "" {
			dir, _ = env.Getwd()
		}
		c := env.Client()
		sp, err := hookSpace(ctx, env, c, space, dir)
		if err != nil {
			return err
		}
		reportMove(ctx, env, c, dir)
		res, err := importHookTranscript(ctx, c, sp.ID, hostSource(cmd), path, in.SessionID, in.LastAssistantMessage)
		if err != nil {
			return err
		}
		a := res.Agent
		fmt.Fprintf(env.Stdout, "Smriti: imported %d new turn(s) into session %s of %s\n", a.Added, shortID(a.SessionID), sp.Name)
		if a.Added == 0 {
			return nil
		}
		sid := a.SessionID.String()
		d, err := c.Draft(ctx, wire.DraftRequest{SessionID: &sid})
		if err != nil {
			return fmt.Errorf("draft: %w", err)
		}
		p := pendingOf(sp.ID, a.SessionID, firstNonEmpty(in.HookEventName, sub), d)
		citeHookDraft(ctx, env, c, dir, &p)
		if !autoSave {
			kept, err := keepDraft(ctx, env, c, dir, &p)
			if err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "Smriti: drafted %q; it waits on the server as proposal %s (review: smriti proposals show %s)\n",
				d.Title, shortID(kept.ID), shortID(kept.ID))
			return nil
		}
		cp, err := saveDraft(ctx, env, c, dir, &p, nil)
		if cc, ok := smriti.ErrorData(err).(*smriti.CommitConflict); ok {
			// Never lose a draft: keep it as a proposal for `proposals
			// accept --resolve`, and end the hook normally (a failing
			// hook must not block compaction or the session's end).
			kept, kerr := keepDraft(ctx, env, c, dir, &p)
			if kerr != nil {
				return kerr
			}
			id := shortID(kept.ID)
			fmt.Fprintf(env.Stdout, "Smriti: the draft %q was not saved: %s", d.Title,
				conflictText(cc, "smriti proposals accept "+id+" --space "+shellQuote(sp.Name), "proposal "+id+" (pending)"))
			return nil
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "Smriti: saved checkpoint %s %q on %s\n", textutil.ShortHash(cp.CommitHash), cp.Message, cp.BranchName)
		printRebased(env, cp)
		// A draft kept by an earlier conflicted auto-save of this
		// session is stale once this save covered its turns.
		return rejectCovered(ctx, env, c, sp.ID, p.Source)
	}
	cmd.Flags().StringVar(&space, "space", "", "the space (default: SMRITI_SPACE, else the project root's space)")
	cmd.Flags().BoolVar(&autoSave, "auto-save", false, "save the drafted checkpoint instead of keeping it as a proposal")
	cmd.FParseErrWhitelist.UnknownFlags = true
	return cmd
}

// gitOf is the git state of a checkpoint's project root, nil when the
// root is not a git work tree (or the CLI cannot read git).
func gitOf(ctx context.Context, env *Env, root *string) *wire.GitStateIn {
	if env.GitState == nil || root == nil || *root == "" {
		return nil
	}
	g, err := env.GitState(ctx, *root)
	if err != nil || g == nil {
		return nil
	}
	return wire.GitStateInOf(g)
}

// saveDraft commits drafted content from the session onto its branch head.
// It sends the draft's items with their ids and names the draft's base, so
// items keep their identity and a head that moved since is rebased onto
// (or answers conflicts, which resolutions settle).
func saveDraft(ctx context.Context, env *Env, c *client.Client, dir string, p *pendingDraft, resolutions []smriti.MergeResolution) (*wire.Commit, error) {
	pr := proposalOfDraft(ctx, env, dir, p)
	rid := p.SpaceID.String()
	return c.Commit(ctx, wire.CommitRequest{RepoID: &rid, SessionID: pr.SessionID, ContentFields: pr.ContentFields, AuthorAgent: pr.AuthorAgent,
		ProjectRoot: pr.ProjectRoot, SourceTurns: pr.SourceTurns, Git: pr.Git,
		ItemFields: wire.ItemFields{Items: pr.Items, Model: pr.Model, BaseCheckpointID: pr.BaseCheckpointID, Resolutions: resolutions}})
}

func newHookSaveDraftCmd() *cobra.Command {
	var resolve []string
	var space string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "save-draft",
		Short: "Accept the newest draft a hook kept (a proposal, see `smriti proposals`) as a checkpoint; on conflicts it stays pending and exit is 3",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			ctx := cmd.Context()
			res, err := parseResolutions(cmd, resolve)
			if err != nil {
				return err
			}
			dir, err := env.Getwd()
			if err != nil {
				return err
			}
			c := env.Client()
			sp, err := spaceForCommand(ctx, env, c, space)
			if err != nil {
				return err
			}
			if err := movePending(ctx, env, c, dir); err != nil {
				return err
			}
			p, err := newestHookProposal(ctx, c, sp)
			if err != nil {
				return err
			}
			id := shortID(p.ID)
			out, err := c.AcceptProposal(ctx, sp.ID, p.ID, res)
			if err != nil {
				// The proposal stays pending: the same draft and base are
				// accepted again with --resolve.
				if cc, ok := smriti.ErrorData(err).(*smriti.CommitConflict); ok && asJSON {
					if perr := printJSON(env.Stdout, cc); perr != nil {
						return perr
					}
				}
				return asConflict(err, "smriti proposals accept "+id+" --space "+shellQuote(sp.Name), "proposal "+id+" (pending)")
			}
			if asJSON {
				return printJSON(env.Stdout, out.Checkpoint)
			}
			cp := out.Checkpoint
			fmt.Fprintf(env.Stdout, "Saved checkpoint %s %q on %s\n", textutil.ShortHash(cp.CommitHash), cp.Message, cp.BranchName)
			printRebased(env, &cp)
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&resolve, "resolve", nil, "settle a conflict the last save-draft (or auto-save) reported: FIELD:KEY=CHOICE, KEY the item id (as printed), "+
		"CHOICE ours (keep the branch head's), theirs (keep the draft's) or base (keep the text both started from); repeat per conflict")
	cmd.Flags().StringVar(&space, "space", "", "the space (default: SMRITI_SPACE, else the project root's space)")
	jsonFlag(cmd, &asJSON)
	return cmd
}
