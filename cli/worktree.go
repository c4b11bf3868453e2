package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"smriti"
	"smriti/render"
	"smriti/wire"
)

func newWorktreeCmd() *cobra.Command {
	return groupCmd("worktree", "Open, list, show and close per-agent git worktrees",
		newWorktreeOpenCmd(), newWorktreeListCmd(), newWorktreeShowCmd(), newWorktreeCloseCmd())
}

func newWorktreeOpenCmd() *cobra.Command {
	var asJSON bool
	var agent, branch, base, path string
	cmd := &cobra.Command{
		Use:   "open <space>",
		Short: "Create a git worktree for an agent in the space's project; prints its path",
		Args:  exactArgs(1, "space"),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			if agent == "" {
				return usageErr(cmd, "--agent is required")
			}
			c := env.Client()
			sp, err := resolveSpace(cmd.Context(), c, args[0])
			if err != nil {
				return err
			}
			id := sp.ID.String()
			req := wire.WorktreeRequest{SpaceID: &id, Agent: &agent}
			if branch != "" {
				req.BranchName = &branch
			}
			if base != "" {
				req.BaseCommitSHA = &base
			}
			if path != "" {
				req.BasePath = &path
			}
			w, err := c.OpenWorktree(cmd.Context(), req)
			if err != nil {
				err = withHint(err, smriti.ECONFLICT, "Choose another --branch, or leave it out for a new one.")
				return withHint(err, smriti.EINVALID, "Set the project root with `smriti space set-project-root <space> --here` in the git repository.")
			}
			if asJSON {
				return printJSON(env.Stdout, w)
			}
			fmt.Fprintln(env.Stdout, w.Path)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&agent, "agent", "", "the agent that works in it (required)")
	f.StringVar(&branch, "branch", "", "git branch to create (default smriti/<agent>/<suffix>)")
	f.StringVar(&base, "base-commit", "", "commit to start from (default the project's HEAD)")
	f.StringVar(&path, "base-path", "", "absolute directory to create")
	jsonFlag(cmd, &asJSON)
	return cmd
}

func newWorktreeListCmd() *cobra.Command {
	var asJSON, closed bool
	cmd := &cobra.Command{
		Use:   "list <space>",
		Short: "List worktrees with their drift (dirty files, ahead/behind)",
		Args:  exactArgs(1, "space"),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			c := env.Client()
			sp, err := resolveSpace(cmd.Context(), c, args[0])
			if err != nil {
				return err
			}
			items, err := c.Worktrees(cmd.Context(), sp.ID, closed)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Stdout, items)
			}
			wts, probes := wire.WorktreesOf(items)
			home, _ := os.UserHomeDir()
			fmt.Fprint(env.Stdout, render.RenderWorktrees(wts, probes, closed, home))
			return nil
		},
	}
	cmd.Flags().BoolVar(&closed, "include-closed", false, "also list closed worktrees")
	jsonFlag(cmd, &asJSON)
	return cmd
}

func newWorktreeShowCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show <worktree>",
		Short: "Show a worktree (by id or a prefix of 4+ characters)",
		Args:  exactArgs(1, "worktree"),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			w, err := env.Client().Worktree(cmd.Context(), args[0])
			if err != nil {
				return withHint(err, smriti.ENOTFOUND, "Run `smriti worktree list <space>` to see worktree ids.")
			}
			if asJSON {
				return printJSON(env.Stdout, w)
			}
			fmt.Fprint(env.Stdout, render.RenderWorktree(w.Worktree()))
			return nil
		},
	}
	jsonFlag(cmd, &asJSON)
	return cmd
}

func newWorktreeCloseCmd() *cobra.Command {
	var asJSON, force bool
	cmd := &cobra.Command{
		Use:   "close <worktree>",
		Short: "Remove a worktree (the branch stays); refuses uncommitted changes without --force",
		Args:  exactArgs(1, "worktree"),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			w, err := env.Client().CloseWorktree(cmd.Context(), args[0], force)
			if err != nil {
				return withHint(err, smriti.ENOTFOUND, "Run `smriti worktree list <space>` to see worktree ids.")
			}
			if asJSON {
				return printJSON(env.Stdout, w)
			}
			fmt.Fprintf(env.Stdout, "Closed worktree `%s` at %s.\n", w.ID, w.Path)
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "remove even with uncommitted changes")
	jsonFlag(cmd, &asJSON)
	return cmd
}
