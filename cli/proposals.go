package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"smriti"
	"smriti/client"
	"smriti/internal/textutil"
	"smriti/proposal"
	"smriti/wire"
)

// Proposals are drafts saved for later on the server (by the agent hooks,
// `checkpoint create --extract --propose`, MCP or the web inbox): this is
// where a person reviews, edits, accepts or rejects them.
func newProposalsCmd() *cobra.Command {
	var space, status string
	var asJSON bool
	list := func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return usageErr(cmd, fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath()))
		}
		env := envOf(cmd)
		c := env.Client()
		sp, err := spaceForCommand(cmd.Context(), env, c, space)
		if err != nil {
			return err
		}
		ps, err := c.Proposals(cmd.Context(), sp.ID, status)
		if err != nil {
			return err
		}
		if asJSON {
			return printJSON(env.Stdout, ps)
		}
		printProposalList(env.Stdout, sp.Name, status, ps)
		return nil
	}
	cmd := &cobra.Command{
		Use:   "proposals",
		Short: "Review the drafts waiting on the server: list (the default), show, edit, accept, reject",
		Example: `  smriti proposals                 # the pending proposals of this project's space
  smriti proposals show 3f2a9c1e
  smriti proposals accept 3f2a9c1e
  smriti proposals edit 3f2a9c1e --title "Weekly releases" --decision "Ship on Fridays"`,
		Args: cobra.ArbitraryArgs,
		RunE: list,
	}
	listCmd := &cobra.Command{Use: "list", Short: "List the space's proposals, newest first (pending ones unless --status)", Args: cobra.NoArgs, RunE: list}
	for _, c := range []*cobra.Command{cmd, listCmd} {
		c.Flags().StringVar(&status, "status", "pending", "pending, accepted, rejected, superseded, or \"\" for all")
		jsonFlag(c, &asJSON)
	}
	cmd.AddCommand(listCmd, newProposalShowCmd(), newProposalAcceptCmd(), newProposalEditCmd(), newProposalRejectCmd())
	cmd.PersistentFlags().StringVar(&space, "space", "", "the space (default: SMRITI_SPACE, else the space whose project root holds the working directory)")
	return cmd
}

func printProposalList(w io.Writer, space, status string, ps []wire.ProposalOut) {
	if len(ps) == 0 {
		what := "proposals"
		if status != "" {
			what = status + " proposals"
		}
		fmt.Fprintf(w, "No %s in %s.\n", what, space)
		return
	}
	for _, p := range ps {
		fmt.Fprintf(w, "%s  %-8s  %-4s  %-10s  %s  %s\n", shortID(p.ID), p.Status, p.Source, p.BranchName, p.CreatedAt.UTC().Format("2006-01-02 15:04"), p.Title)
	}
	if status == proposal.Pending {
		fmt.Fprintf(w, "Review one: smriti proposals show %s\n", shortID(ps[0].ID))
	}
}

// proposalArg resolves what the user typed — a full id or 4+ characters
// of one — to a proposal of the space.
func proposalArg(ctx context.Context, env *Env, c *client.Client, space, arg string) (smriti.ID, smriti.ID, error) {
	sp, err := spaceForCommand(ctx, env, c, space)
	if err != nil {
		return smriti.NilID, smriti.NilID, err
	}
	p, err := c.ResolveProposal(ctx, sp.ID, arg)
	switch {
	case smriti.ErrorCode(err) == smriti.ENOTFOUND:
		return smriti.NilID, smriti.NilID, &hinted{err: smriti.Errorf(smriti.ENOTFOUND, "no proposal %s in %s", strings.TrimSpace(arg), sp.Name),
			hint: "`smriti proposals --status ''` lists them all."}
	case err != nil:
		return smriti.NilID, smriti.NilID, err
	}
	return sp.ID, p.ID, nil
}

func newProposalShowCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show <proposal>",
		Short: "Show a proposal: what accepting it would save, and on what",
		Args:  exactArgs(1, "proposal"),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			c := env.Client()
			space, id, err := proposalArg(cmd.Context(), env, c, spaceFlag(cmd), args[0])
			if err != nil {
				return err
			}
			p, err := c.Proposal(cmd.Context(), space, id)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Stdout, p)
			}
			fmt.Fprint(env.Stdout, proposalText(p))
			return nil
		},
	}
	jsonFlag(cmd, &asJSON)
	return cmd
}

func spaceFlag(cmd *cobra.Command) string {
	if f := cmd.Flags().Lookup("space"); f != nil {
		return f.Value.String()
	}
	return ""
}

// proposalText is a proposal as a person reviews it.
func proposalText(p *wire.ProposalOut) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Proposal %s: %s\n", shortID(p.ID), p.Title)
	base := "nothing (the first checkpoint of its line)"
	if p.BaseCheckpointID != nil {
		base = shortID(*p.BaseCheckpointID)
	}
	fmt.Fprintf(&b, "%s · from %s · on %s · base %s · saved %s\n", p.Status, p.Source, p.BranchName, base, p.CreatedAt.UTC().Format("2006-01-02 15:04 UTC"))
	if p.CheckpointID != nil {
		fmt.Fprintf(&b, "Accepted as checkpoint %s\n", shortID(*p.CheckpointID))
	}
	section := func(title string, items []string) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n## %s\n", title)
		for _, it := range items {
			fmt.Fprintf(&b, "- %s\n", it)
		}
	}
	if p.Objective != "" {
		fmt.Fprintf(&b, "\n## Objective\n%s\n", p.Objective)
	}
	if p.Summary != "" {
		fmt.Fprintf(&b, "\n## Summary\n%s\n", p.Summary)
	}
	section("Decisions", p.Decisions)
	section("Assumptions", p.Assumptions)
	var tasks []string
	for _, t := range p.Tasks {
		mark := "[ ] "
		if t.Status == smriti.ItemDone {
			mark = "[x] "
		}
		tasks = append(tasks, mark+t.Text)
	}
	section("Tasks", tasks)
	section("Open questions", p.OpenQuestions)
	section("Entities", p.Entities)
	if p.Status == proposal.Pending {
		id := shortID(p.ID)
		fmt.Fprintf(&b, "\nAccept: smriti proposals accept %s · edit: smriti proposals edit %s --title … · reject: smriti proposals reject %s\n", id, id, id)
	}
	return b.String()
}

func newProposalAcceptCmd() *cobra.Command {
	var resolve []string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "accept <proposal>",
		Short: "Save a proposal as a checkpoint on its base; a head that moved is rebased onto, or the conflicts are printed (exit 3) and it stays pending",
		Args:  exactArgs(1, "proposal"),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			res, err := parseResolutions(cmd, resolve)
			if err != nil {
				return err
			}
			c := env.Client()
			space, id, err := proposalArg(cmd.Context(), env, c, spaceFlag(cmd), args[0])
			if err != nil {
				return err
			}
			out, err := c.AcceptProposal(cmd.Context(), space, id, res)
			if err != nil {
				if cc, ok := smriti.ErrorData(err).(*smriti.CommitConflict); ok && asJSON {
					if perr := printJSON(env.Stdout, cc); perr != nil {
						return perr
					}
				}
				return asConflict(err, "smriti proposals accept "+shortID(id), "proposal "+shortID(id)+" (still pending)")
			}
			if asJSON {
				return printJSON(env.Stdout, out)
			}
			cp := out.Checkpoint
			fmt.Fprintf(env.Stdout, "Accepted proposal %s: saved checkpoint %s %q on %s\n", shortID(id), textutil.ShortHash(cp.CommitHash), cp.Message, cp.BranchName)
			printRebased(env, &cp)
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&resolve, "resolve", nil, "settle a conflict the last accept reported: FIELD:KEY=CHOICE, KEY the item id (as printed), "+
		"CHOICE ours (keep the branch head's), theirs (keep the proposal's) or base; repeat per conflict")
	jsonFlag(cmd, &asJSON)
	return cmd
}

func newProposalRejectCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "reject <proposal>",
		Short: "Reject a pending proposal (it is kept, marked rejected, and leaves the brief)",
		Args:  exactArgs(1, "proposal"),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			c := env.Client()
			space, id, err := proposalArg(cmd.Context(), env, c, spaceFlag(cmd), args[0])
			if err != nil {
				return err
			}
			p, err := c.RejectProposal(cmd.Context(), space, id)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Stdout, p)
			}
			fmt.Fprintf(env.Stdout, "Rejected proposal %s %q\n", shortID(p.ID), p.Title)
			return nil
		},
	}
	jsonFlag(cmd, &asJSON)
	return cmd
}

func newProposalEditCmd() *cobra.Command {
	var title, summary, objective string
	var decisions, assumptions, questions, tasks, entities []string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "edit <proposal>",
		Short: "Change a pending proposal before accepting it: each list flag given replaces that whole list",
		Args:  exactArgs(1, "proposal"),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			f := cmd.Flags()
			var req wire.ProposalEditRequest
			str := func(name string, v string) *string {
				if f.Changed(name) {
					return &v
				}
				return nil
			}
			list := func(name string, v []string) *[]string {
				if f.Changed(name) {
					return &v
				}
				return nil
			}
			req.Message, req.Summary, req.Objective = str("title", title), str("summary", summary), str("objective", objective)
			req.Decisions, req.Assumptions, req.OpenQuestions, req.Entities = list("decision", decisions), list("assumption", assumptions), list("question", questions), list("entity", entities)
			if f.Changed("task") {
				ts := make([]smriti.Task, 0, len(tasks))
				for _, t := range tasks {
					ts = append(ts, smriti.Task{Text: t})
				}
				req.Tasks = &ts
			}
			if req == (wire.ProposalEditRequest{}) {
				return usageErr(cmd, "nothing to change: give --title, --summary, --objective, --decision, --assumption, --task, --question or --entity")
			}
			c := env.Client()
			space, id, err := proposalArg(cmd.Context(), env, c, spaceFlag(cmd), args[0])
			if err != nil {
				return err
			}
			p, err := c.EditProposal(cmd.Context(), space, id, req)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Stdout, p)
			}
			fmt.Fprintf(env.Stdout, "Edited proposal %s %q\n", shortID(p.ID), p.Title)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&title, "title", "", "the checkpoint's title")
	f.StringVar(&summary, "summary", "", "where things stand")
	f.StringVar(&objective, "objective", "", "what the work is for")
	f.StringArrayVar(&decisions, "decision", nil, "a decision (repeat; replaces the list)")
	f.StringArrayVar(&assumptions, "assumption", nil, "an assumption (repeat; replaces the list)")
	f.StringArrayVar(&tasks, "task", nil, "a task (repeat; replaces the list)")
	f.StringArrayVar(&questions, "question", nil, "an open question (repeat; replaces the list)")
	f.StringArrayVar(&entities, "entity", nil, "an entity (repeat; replaces the list)")
	jsonFlag(cmd, &asJSON)
	return cmd
}
