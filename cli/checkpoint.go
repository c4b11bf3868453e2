package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
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
			printRedactions(env, n.Redactions)
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
