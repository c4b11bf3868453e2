package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"smriti/wire"
	"strings"

	"github.com/spf13/cobra"

	"smriti"
)

func newCheckpointCmd() *cobra.Command {
	return groupCmd("checkpoint", "Create, show, list, review, annotate and delete checkpoints",
		newCheckpointCreateCmd(), newCheckpointShowCmd(), newCheckpointListCmd(),
		newCheckpointReviewCmd(), newCheckpointDeleteCmd(), newCheckpointNoteCmd())
}

// checkpointPayload is the checkpoint JSON a `checkpoint create` reads: the
// content fields, plus project_root and author_agent. Other keys are
// ignored.
type checkpointPayload struct {
	wire.ContentFields
	ProjectRoot *string `json:"project_root,omitempty"`
	AuthorAgent *string `json:"author_agent,omitempty"`
	// Items keep the extracted items' identity (ids matched to the head's).
	Items []wire.ItemIn `json:"items,omitempty"`
	Model *string       `json:"model,omitempty"`
	// BaseCheckpointID is the checkpoint the content was written against;
	// a head that moved past it gets the change rebased, or a 409.
	BaseCheckpointID *string `json:"base_checkpoint_id,omitempty"`
}

// parseCheckpointJSON checks the shape before anything is sent.
func parseCheckpointJSON(data []byte) (*checkpointPayload, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, failf("no checkpoint JSON provided. Pipe JSON on stdin, or use --from-json <path>.\n" +
			"  echo '{\"message\": \"…\", \"decisions\": [\"…\"]}' | smriti checkpoint create <space>")
	}
	var any_ any
	if err := json.Unmarshal(data, &any_); err != nil {
		return nil, failf("invalid JSON input — %v", err)
	}
	if _, ok := any_.(map[string]any); !ok {
		return nil, failf("checkpoint JSON must be an object, got: %s", jsonKind(any_))
	}
	// The server's decoder names the field and the JSON type it wants,
	// never a Go type.
	var p checkpointPayload
	if err := wire.DecodeJSON(data, &p); err != nil {
		return nil, failf("invalid checkpoint JSON — %s", smriti.ErrorMessage(err))
	}
	if p.Message == nil || strings.TrimSpace(*p.Message) == "" {
		return nil, failf("checkpoint JSON must include a non-empty 'message' field")
	}
	return &p, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "array"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	}
	return "object"
}

// DefaultAuthorAgent tags checkpoints the CLI writes when neither
// --author-agent nor the payload names an author (the first implementation
// let the throwaway session's provider name stand in for the author).
const DefaultAuthorAgent = "smriti-cli"

func newCheckpointCreateCmd() *cobra.Command {
	var (
		asJSON, extract, dryRun, noRoot, yes bool
		propose                              bool
		fromJSON, session, author, root      string
		base                                 string
		resolve                              []string
	)
	cmd := &cobra.Command{
		Use:   "create <space>",
		Short: "Create a checkpoint from JSON on stdin (or --from-json), or extract one from markdown (--extract)",
		Example: `  echo '{"message":"Chose SQLite","decisions":["SQLite by default"]}' | smriti checkpoint create demo
  cat handoff.md | smriti checkpoint create demo --extract
  smriti checkpoint create demo --from-json cp.json --session <fork-session-id>`,
		Args: exactArgs(1, "space"),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			ctx := cmd.Context()
			if extract && fromJSON != "" {
				return usageErr(cmd, "--extract and --from-json are mutually exclusive")
			}
			resolutions, err := parseResolutions(cmd, resolve)
			if err != nil {
				return err
			}
			var sessionID smriti.ID
			if session != "" {
				id, err := smriti.ParseID("--session", session)
				if err != nil {
					return err
				}
				sessionID = id
			}
			c := env.Client()
			// --base takes what Smriti prints: a hash or id prefix of 7+
			// characters, or the full id; the server is sent the id.
			if base != "" {
				cp, err := resolveCheckpoint(ctx, c, base)
				if err != nil {
					return err
				}
				base = cp.ID.String()
			}
			var p *checkpointPayload
			if extract {
				if env.StdinTTY {
					return failf("--extract reads markdown from stdin; pipe it in:\n  cat handoff.md | smriti checkpoint create %s --extract", args[0])
				}
				data, err := readAllLimited(env.Stdin, "stdin")
				if err != nil {
					return err
				}
				if strings.TrimSpace(string(data)) == "" {
					return failf("empty content on stdin for --extract")
				}
				// The document changes the head of main (or of the
				// session's branch): the checkpoint is the head plus what
				// the document adds, updates or retires.
				sp, err := resolveSpace(ctx, c, args[0])
				if err != nil {
					return err
				}
				// The base is what the checkpoint will build on: the
				// session's branch head, a fork's source before its first.
				onto, err := c.CommitBase(ctx, sp.ID, sessionID)
				if err != nil {
					return withHint(err, smriti.ENOTFOUND, "Check the --session id (`smriti fork` prints it).")
				}
				if base != "" {
					// Extract against a named base (a retry after a conflict
					// keeps the base the first attempt stood on).
					id, err := smriti.ParseID("--base", base)
					if err != nil {
						return err
					}
					onto = &id
				}
				stop := spinner(env, "extracting checkpoint…")
				ex, err := c.Extract(ctx, string(data), false, onto)
				stop()
				if err != nil {
					return err
				}
				if !dryRun && !asJSON && !propose {
					list := changeList(ex.BaseCheckpointID, ex.Changes)
					if yes {
						fmt.Fprintln(env.Stderr, list)
					}
					if err := confirm(env, yes, list); err != nil {
						return err
					}
				}
				msg := strings.TrimSpace(ex.Title)
				if msg == "" {
					msg = "Extracted checkpoint"
				}
				p = &checkpointPayload{ContentFields: wire.ContentFields{Message: &msg, Summary: ex.Summary,
					Objective: ex.Objective, Decisions: ex.Decisions, Assumptions: ex.Assumptions, Tasks: ex.Tasks,
					OpenQuestions: ex.OpenQuestions, Entities: ex.Entities, Artifacts: ex.Artifacts},
					Items: wire.ItemsInOf(wire.DomainItems(ex.Items)), Model: ex.Model}
				if ex.BaseCheckpointID != nil {
					b := ex.BaseCheckpointID.String()
					p.BaseCheckpointID = &b
				}
			} else {
				var data []byte
				var err error
				switch {
				case fromJSON != "" && fromJSON != "-":
					f, ferr := os.Open(fromJSON)
					if ferr != nil {
						return failf("file not found — %v", ferr)
					}
					data, err = readAllLimited(f, fromJSON)
					f.Close()
				case fromJSON == "-" || !env.StdinTTY:
					data, err = readAllLimited(env.Stdin, "stdin")
				}
				if err != nil {
					return err
				}
				if p, err = parseCheckpointJSON(data); err != nil {
					return err
				}
			}
			switch {
			case noRoot:
				p.ProjectRoot = nil
			case root != "":
				p.ProjectRoot = &root
			case p.ProjectRoot == nil:
				if wd, err := env.Getwd(); err == nil {
					p.ProjectRoot = &wd
				}
			}
			switch {
			case author != "":
				p.AuthorAgent = &author
			case p.AuthorAgent == nil || *p.AuthorAgent == "":
				a := DefaultAuthorAgent
				p.AuthorAgent = &a
			}
			if base != "" {
				p.BaseCheckpointID = &base
			}
			if dryRun {
				return printJSON(env.Stdout, p)
			}
			sp, err := resolveSpace(ctx, c, args[0])
			if err != nil {
				return err
			}
			git := gitOf(ctx, env, p.ProjectRoot)
			if propose {
				return proposeCheckpoint(ctx, env, c, sp, session, p, git, asJSON)
			}
			items := wire.ItemFields{Items: p.Items, Model: p.Model, BaseCheckpointID: p.BaseCheckpointID, Resolutions: resolutions}
			var out *wire.Commit
			if session != "" {
				spID, sid := sp.ID.String(), sessionID.String()
				out, err = c.Commit(ctx, wire.CommitRequest{RepoID: &spID, SessionID: &sid, ContentFields: p.ContentFields,
					AuthorAgent: p.AuthorAgent, ProjectRoot: p.ProjectRoot, ItemFields: items, Git: git})
			} else {
				// Without --session the checkpoint goes onto main's head and
				// no session is made for it.
				out, err = c.CommitToSpace(ctx, sp.ID, wire.SpaceCommitRequest{ContentFields: p.ContentFields,
					AuthorAgent: p.AuthorAgent, ProjectRoot: p.ProjectRoot, ItemFields: items, Git: git})
			}
			if err != nil {
				if cc, ok := smriti.ErrorData(err).(*smriti.CommitConflict); ok && asJSON {
					if perr := printJSON(env.Stdout, cc); perr != nil {
						return perr
					}
				}
				retry := createRetry(cmd, args[0], p, extract)
				return withHint(asConflict(err, retry, ""), smriti.ENOTFOUND, "Check the --session id (`smriti fork` prints it) and the space.")
			}
			if asJSON {
				return printJSON(env.Stdout, out)
			}
			fmt.Fprintf(env.Stdout, "Created checkpoint: `%s` %s\n", short(out.CommitHash), out.Message)
			printRebased(env, out)
			if out.BranchName != "main" {
				fmt.Fprintf(env.Stdout, "Branch: %s\n", out.BranchName)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&fromJSON, "from-json", "", "read the checkpoint JSON from this file ('-' for stdin)")
	f.BoolVar(&extract, "extract", false, "extract the checkpoint from markdown on stdin (LLM-backed) as changes to the branch head; shows the changes first")
	f.BoolVar(&propose, "propose", false, "save it as a proposal waiting on the server (reviewed with `smriti proposals`) instead of a checkpoint")
	f.BoolVarP(&yes, "yes", "y", false, "save an extracted checkpoint without asking (needed when not on a terminal, unless --json)")
	f.BoolVar(&dryRun, "dry-run", false, "print the payload that would be sent and stop")
	f.StringVar(&session, "session", "", "write into this session (a fork's session puts the checkpoint on its branch)")
	f.StringVar(&author, "author-agent", "", "who wrote it (default: the payload's author_agent, else "+DefaultAuthorAgent+")")
	f.StringVar(&root, "project-root", "", "project directory (default: the payload's, else the current directory)")
	f.BoolVar(&noRoot, "no-project-root", false, "record no project root")
	f.StringVar(&base, "base", "", "the checkpoint your content was written against, by id or 7+ characters of its hash (default: the payload's base_checkpoint_id; with --extract, the branch head). "+
		"If the branch head has moved past it, your changes are applied onto the head, or nothing is saved and the conflicts are printed (exit 3). "+
		"Without a base the content is saved as the whole new state, replacing the head's")
	f.StringArrayVar(&resolve, "resolve", nil, "settle a conflict a save reported, then save again with the same --base: FIELD:KEY=CHOICE, KEY the item id (as printed), "+
		"CHOICE ours (keep the branch head's), theirs (keep yours) or base (keep the text both started from); repeat per conflict")
	cmd.MarkFlagsMutuallyExclusive("project-root", "no-project-root")
	jsonFlag(cmd, &asJSON)
	return cmd
}

// createRetry is the command that saves the same content again with the
// same base (the --resolve flags are appended by the conflict report).
func createRetry(cmd *cobra.Command, space string, p *checkpointPayload, extract bool) string {
	parts := []string{"smriti checkpoint create", shellQuote(space)}
	if extract {
		// An extract is asked of the model again; the base stays.
		parts = append([]string{"<same stdin> |"}, parts...)
		parts = append(parts, "--extract", "--yes")
	} else if f := cmd.Flags().Lookup("from-json"); f != nil && f.Value.String() != "" && f.Value.String() != "-" {
		parts = append(parts, "--from-json", shellQuote(f.Value.String()))
	} else {
		parts = append([]string{"<same stdin> |"}, parts...)
	}
	// The retry writes what the first attempt would have: the same
	// session, author and project root.
	for _, name := range []string{"session", "author-agent", "project-root"} {
		if f := cmd.Flags().Lookup(name); f != nil && f.Value.String() != "" {
			parts = append(parts, "--"+name, shellQuote(f.Value.String()))
		}
	}
	if f := cmd.Flags().Lookup("no-project-root"); f != nil && f.Changed {
		parts = append(parts, "--no-project-root")
	}
	if p.BaseCheckpointID != nil {
		parts = append(parts, "--base", *p.BaseCheckpointID)
	}
	return strings.Join(parts, " ")
}

// printRebased says when a save landed on a head its base was not.
func printRebased(env *Env, out *wire.Commit) {
	if out.RebasedFrom == nil || out.ParentCommitID == nil {
		return
	}
	fmt.Fprintf(env.Stdout, "Rebased onto %s: the branch head moved past your base %s; your changes were applied onto it.\n",
		*out.ParentCommitID, *out.RebasedFrom)
}

func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

func newCheckpointShowCmd() *cobra.Command {
	var asJSON, full, items bool
	cmd := &cobra.Command{
		Use:   "show <checkpoint>",
		Short: "Show a checkpoint (by UUID or a unique id/hash prefix of 7+ characters)",
		Args:  exactArgs(1, "checkpoint"),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			c := env.Client()
			cp, err := resolveCheckpoint(cmd.Context(), c, args[0])
			if err != nil {
				return err
			}
			if items {
				list, err := c.CheckpointItems(cmd.Context(), cp.ID)
				if err != nil {
					return err
				}
				cp.Items = &list
			}
			if asJSON {
				return printJSON(env.Stdout, cp)
			}
			fmt.Fprint(env.Stdout, formatCheckpoint(cp, full))
			if items {
				fmt.Fprint(env.Stdout, formatItems(*cp.Items))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&full, "full-artifacts", false, "show artifacts in full (default: 800-character previews)")
	cmd.Flags().BoolVar(&items, "items", false, "list the items with their ids, origins and what this checkpoint changed (ids for `smriti why`)")
	jsonFlag(cmd, &asJSON)
	return cmd
}

func newCheckpointListCmd() *cobra.Command {
	var asJSON bool
	var branch string
	cmd := &cobra.Command{
		Use:   "list <space>",
		Short: "List a space's checkpoints, newest first",
		Args:  exactArgs(1, "space"),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			c := env.Client()
			sp, err := resolveSpace(cmd.Context(), c, args[0])
			if err != nil {
				return err
			}
			cps, err := c.Checkpoints(cmd.Context(), sp.ID, branch)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Stdout, cps)
			}
			fmt.Fprint(env.Stdout, formatCheckpointList(cps))
			return nil
		},
	}
	cmd.Flags().StringVar(&branch, "branch", "", "only this branch")
	jsonFlag(cmd, &asJSON)
	return cmd
}

func newCheckpointReviewCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "review <checkpoint>",
		Short: "Review a checkpoint for contradictions and hidden assumptions (LLM-backed)",
		Args:  exactArgs(1, "checkpoint"),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			c := env.Client()
			cp, err := resolveCheckpoint(cmd.Context(), c, args[0])
			if err != nil {
				return err
			}
			stop := spinner(env, "reviewing…")
			r, err := c.Review(cmd.Context(), cp.ID)
			stop()
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Stdout, r)
			}
			fmt.Fprint(env.Stdout, formatReview(r))
			return nil
		},
	}
	jsonFlag(cmd, &asJSON)
	return cmd
}

// CheckpointDeleted is the --json answer of `checkpoint delete`.
type CheckpointDeleted struct {
	Deleted      bool   `json:"deleted"`
	CheckpointID string `json:"checkpoint_id"`
	Cascade      bool   `json:"cascade"`
}

func newCheckpointDeleteCmd() *cobra.Command {
	var asJSON, yes, cascade bool
	cmd := &cobra.Command{
		Use:   "delete <checkpoint>",
		Short: "Delete a checkpoint (--cascade for its subtree; asks first, --yes in scripts)",
		Args:  exactArgs(1, "checkpoint"),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			c := env.Client()
			cp, err := resolveCheckpoint(cmd.Context(), c, args[0])
			if err != nil {
				return err
			}
			preview := fmt.Sprintf("Delete checkpoint '%s' (`%s`)?", cp.Message, short(cp.CommitHash))
			if cascade {
				preview += "\n  --cascade: every descendant checkpoint and every session forked from them goes too."
			}
			if err := confirm(env, yes, preview); err != nil {
				return err
			}
			if err := c.DeleteCheckpoint(cmd.Context(), cp.ID, cascade); err != nil {
				return refusalOf(err)
			}
			if asJSON {
				return printJSON(env.Stdout, CheckpointDeleted{Deleted: true, CheckpointID: cp.ID.String(), Cascade: cascade})
			}
			suffix := ""
			if cascade {
				suffix = " (cascade)"
			}
			fmt.Fprintf(env.Stdout, "Deleted checkpoint `%s`%s.\n", short(cp.CommitHash), suffix)
			return nil
		},
	}
	cmd.Flags().BoolVar(&cascade, "cascade", false, "also delete descendants and sessions forked from them")
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask for confirmation")
	jsonFlag(cmd, &asJSON)
	return cmd
}

// refusalOf lists what blocks a checkpoint delete.
func refusalOf(err error) error {
	data, ok := smriti.ErrorData(err).(map[string]any)
	if !ok || smriti.ErrorCode(err) != smriti.ECONFLICT {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Refusing to delete: %s", smriti.ErrorMessage(err))
	if deps, ok := data["dependents"].(map[string]any); ok {
		for _, group := range []struct{ key, label string }{{"child_commits", "child commit"}, {"forked_sessions", "forked session"}} {
			items, _ := deps[group.key].([]any)
			for _, it := range items {
				m, _ := it.(map[string]any)
				fmt.Fprintf(&b, "\n    - %s: %v (%v)", group.label, m["label"], m["id"])
			}
		}
	}
	return &hinted{err: smriti.Errorf(smriti.ECONFLICT, "%s", b.String()), hint: "  Re-run with --cascade to delete the subtree."}
}

func newCheckpointNoteCmd() *cobra.Command {
	var asJSON bool
	var text, author, kind string
	cmd := &cobra.Command{
		Use:   "note <checkpoint>",
		Short: "Annotate a checkpoint (note, milestone or noise) without changing it",
		Args:  exactArgs(1, "checkpoint"),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			if text == "" {
				return usageErr(cmd, "--text is required")
			}
			c := env.Client()
			cp, err := resolveCheckpoint(cmd.Context(), c, args[0])
			if err != nil {
				return err
			}
			n, err := c.AddNote(cmd.Context(), cp.ID, text, author, kind)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Stdout, n)
			}
			suffix := ""
			if n.Kind != "" && n.Kind != smriti.NoteKindNote {
				suffix = " [" + n.Kind + "]"
			}
			fmt.Fprintf(env.Stdout, "Note added to checkpoint `%s…`%s\n", cp.ID.String()[:8], suffix)
			return nil
		},
	}
	cmd.Flags().StringVar(&text, "text", "", "the note (required)")
	cmd.Flags().StringVar(&author, "author", "founder", "who writes it")
	cmd.Flags().StringVar(&kind, "kind", "note", "note, milestone or noise")
	jsonFlag(cmd, &asJSON)
	return cmd
}
