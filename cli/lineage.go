package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"smriti/coderef"
	"smriti/render"
	"smriti/wire"
)

func newForkCmd() *cobra.Command {
	var asJSON bool
	var branch string
	cmd := &cobra.Command{
		Use:   "fork <checkpoint>",
		Short: "Start a session on a new branch from a checkpoint",
		Args:  exactArgs(1, "checkpoint"),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			c := env.Client()
			cp, err := resolveCheckpoint(cmd.Context(), c, args[0])
			if err != nil {
				return err
			}
			sp, cpID := cp.RepoID.String(), cp.ID.String()
			out, err := c.Fork(cmd.Context(), wire.ForkRequest{SpaceID: &sp, CheckpointID: &cpID, BranchName: branch})
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Stdout, out)
			}
			msg := cp.Message
			if msg == "" {
				msg = "(no message)"
			}
			fmt.Fprintf(env.Stdout, "Forked from `%s` — %q\n  → new session: %s (%s)\n  → seeded from: %s\n\n"+
				"Next: write a checkpoint to this session with\n  smriti checkpoint create %s --session %s < checkpoint.json\n",
				short(cp.CommitHash), msg, out.BranchName, out.SessionID, short(cp.CommitHash), cp.RepoID, out.SessionID)
			return nil
		},
	}
	cmd.Flags().StringVar(&branch, "branch", "", "branch name (default: a free generated name)")
	jsonFlag(cmd, &asJSON)
	return cmd
}

// Restored is the --json answer of `restore`.
type Restored struct {
	Space  *wire.Repo   `json:"space"`
	Commit *wire.Commit `json:"commit"`
}

func newRestoreCmd() *cobra.Command {
	var asJSON, preview, full bool
	cmd := &cobra.Command{
		Use:   "restore <checkpoint>",
		Short: "Print a continuation brief for a checkpoint (read-only)",
		Args:  exactArgs(1, "checkpoint"),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			c := env.Client()
			cp, err := resolveCheckpoint(cmd.Context(), c, args[0])
			if err != nil {
				return err
			}
			sp, err := c.Space(cmd.Context(), cp.RepoID)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Stdout, Restored{Space: sp, Commit: cp})
			}
			checks := checkItems(cmd.Context(), env, c, cp.ID, sp.ProjectRoot)
			fmt.Fprint(env.Stdout, render.WithRefChecks(formatRestoreChecked(sp, cp, !preview, checks), checks))
			return nil
		},
	}
	cmd.Flags().BoolVar(&preview, "preview", false, "800-character artifact previews")
	cmd.Flags().BoolVar(&full, "full-artifacts", false, "artifacts in full (the default)")
	jsonFlag(cmd, &asJSON)
	return cmd
}

// formatRestoreChecked is the brief of one checkpoint, without branches
// or claims, with the items whose code refs are not fresh marked.
func formatRestoreChecked(sp *wire.Repo, cp *wire.Commit, full bool, checks []coderef.ItemCheck) string {
	return render.RenderRestore(sp.Space(), render.MarkStale(cp.Checkpoint(), checks), viewOptions(full))
}

func newCompareCmd() *cobra.Command {
	var asJSON, full bool
	cmd := &cobra.Command{
		Use:   "compare <checkpoint-a> <checkpoint-b>",
		Short: "Compare two checkpoints: shared and one-sided decisions, assumptions, tasks",
		Args:  exactArgs(2, "checkpoint-a", "checkpoint-b"),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			c := env.Client()
			a, err := resolveCheckpoint(cmd.Context(), c, args[0])
			if err != nil {
				return err
			}
			b, err := resolveCheckpoint(cmd.Context(), c, args[1])
			if err != nil {
				return err
			}
			out, err := c.Compare(cmd.Context(), a.ID, b.ID)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Stdout, out)
			}
			fmt.Fprint(env.Stdout, formatCompare(out))
			return nil
		},
	}
	cmd.Flags().BoolVar(&full, "full-artifacts", false, "accepted for compatibility; artifacts are not diffed")
	jsonFlag(cmd, &asJSON)
	return cmd
}

func formatCompare(r *wire.CompareResponse) string {
	return render.RenderCompare(r.CheckpointA.Checkpoint(), r.CheckpointB.Checkpoint(), r.Diff.CheckpointDiff(), r.Diff.CommonAncestorCommitID, deref(r.Diff.CommonAncestorCommitHash))
}

func newBranchCmd() *cobra.Command {
	var asJSON bool
	var disposition string
	closeCmd := &cobra.Command{
		Use:   "close <space> <branch>",
		Short: "Mark a branch integrated (default), abandoned, or active again",
		Args:  exactArgs(2, "space", "branch"),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			c := env.Client()
			sp, err := resolveSpace(cmd.Context(), c, args[0])
			if err != nil {
				return err
			}
			out, err := c.SetDisposition(cmd.Context(), sp.ID, args[1], disposition)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Stdout, out)
			}
			fmt.Fprintf(env.Stdout, "Branch `%s` marked `%s` (%d session(s) updated).\n", out.BranchName, out.Disposition, out.SessionsUpdated)
			return nil
		},
	}
	closeCmd.Flags().StringVar(&disposition, "disposition", "integrated", "integrated, abandoned or active")
	jsonFlag(closeCmd, &asJSON)
	return groupCmd("branch", "Branch lifecycle", closeCmd)
}

func newVerifyCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "verify <checkpoint>",
		Short: "Recompute a checkpoint's hash chain back to its roots (exit 1 on a mismatch)",
		Args:  exactArgs(1, "checkpoint"),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			c := env.Client()
			cp, err := resolveCheckpoint(cmd.Context(), c, args[0])
			if err != nil {
				return err
			}
			v, err := c.Verify(cmd.Context(), cp.ID)
			if err != nil {
				return err
			}
			if asJSON {
				if err := printJSON(env.Stdout, v); err != nil {
					return err
				}
			} else {
				if v.OK {
					fmt.Fprintf(env.Stdout, "Verified `%s`: %d checkpoint(s) in its history, every hash matches.\n", short(cp.CommitHash), v.Checked)
				}
				for _, p := range v.Purged {
					fmt.Fprintf(env.Stdout, "checkpoint %s %s: %s\n", shortID(p.CheckpointID), p.Field, p.Detail)
				}
			}
			if !v.OK {
				first := "?"
				if v.FirstMismatch != nil {
					first = v.FirstMismatch.String()
				}
				return failf("hash chain of %s does not verify: first mismatch at checkpoint %s (%d checked)", short(cp.CommitHash), first, v.Checked)
			}
			return nil
		},
	}
	jsonFlag(cmd, &asJSON)
	return cmd
}
