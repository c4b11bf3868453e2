package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"smriti/coderef"
	"smriti/render"
)

// CheckOut is what `smriti check --json` prints.
type CheckOut struct {
	SpaceID string `json:"space_id"`
	// Root is the work tree checked against, Head its HEAD commit.
	Root         string              `json:"root"`
	Head         string              `json:"head"`
	CheckpointID string              `json:"checkpoint_id"`
	CommitHash   string              `json:"commit_hash"`
	Items        []coderef.ItemCheck `json:"items"`
	Stale        int                 `json:"stale"`
}

func newCheckCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "check [space]",
		Short: "Check the code the items of main's head cite against this work tree: fresh, moved, changed (commits since, diff stat) or gone",
		Long: `List every item of main's head that cites code, its worst news first: each ref
fresh (the cited lines are unchanged), moved (the same lines are elsewhere in the
file: the new lines are given), changed (the cited lines differ: the commits
since the ref's commit that touched the file and its diff stat) or gone (the file
was deleted). Nothing is changed: the items stay as they are. The work tree is
the current directory's, else the space's project root.`,
		Example: `  smriti check
  smriti check demo --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			ctx := cmd.Context()
			c := env.Client()
			sp, err := spaceForCommand(ctx, env, c, firstArg(args))
			if err != nil {
				return err
			}
			ck := openWorkTree(ctx, env, sp.ProjectRoot)
			if ck == nil {
				return failf("not in a git work tree: run smriti check inside the project (the space's project root is not one either)")
			}
			defer ck.Close()
			out := CheckOut{SpaceID: sp.ID.String(), Root: ck.Root, Head: ck.Head, Items: []coderef.ItemCheck{}}
			head, err := c.LatestCheckpoint(ctx, sp.ID, "")
			if err != nil {
				return err
			}
			out.CheckpointID, out.CommitHash = head.ID.String(), head.CommitHash
			checks, err := checkCheckpoint(ctx, c, ck, head.ID)
			if err != nil {
				return err
			}
			if checks != nil {
				out.Items = checks
			}
			out.Stale = len(coderef.Stale(checks))
			if asJSON {
				return printJSON(env.Stdout, out)
			}
			fmt.Fprint(env.Stdout, render.RenderCheck(ck.Root, checks))
			return nil
		},
	}
	jsonFlag(cmd, &asJSON)
	return cmd
}
