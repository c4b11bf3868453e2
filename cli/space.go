package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"smriti/render"
	"smriti/wire"
)

func newSpaceCmd() *cobra.Command {
	return groupCmd("space", "List, create and delete spaces; set a space's project root",
		newSpaceListCmd(), newSpaceCreateCmd(), newSpaceDeleteCmd(), newSpaceSetRootCmd())
}

func newSpaceListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List spaces",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			spaces, err := env.Client().Spaces(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Stdout, spaces)
			}
			fmt.Fprint(env.Stdout, render.RenderSpaces(wire.SpacesOf(spaces), "`smriti space create <name>`"))
			return nil
		},
	}
	jsonFlag(cmd, &asJSON)
	return cmd
}

func newSpaceCreateCmd() *cobra.Command {
	var (
		asJSON, noRoot bool
		desc, root     string
	)
	cmd := &cobra.Command{
		Use:   "create <name>",
		Short: "Create a space (project root: --project-root, else the current directory)",
		Args:  exactArgs(1, "name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			req := wire.SpaceCreateRequest{Name: &args[0], Description: &desc}
			switch {
			case noRoot:
			case root != "":
				req.ProjectRoot = &root
			default:
				wd, err := env.Getwd()
				if err != nil {
					return err
				}
				req.ProjectRoot = &wd
			}
			sp, err := env.Client().CreateSpace(cmd.Context(), req)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Stdout, sp)
			}
			fmt.Fprintf(env.Stdout, "Created space: %s  `%s`\n", sp.Name, sp.ID)
			if sp.ProjectRoot != nil {
				fmt.Fprintf(env.Stdout, "Project root: %s\n", *sp.ProjectRoot)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&desc, "description", "", "what the space is for")
	cmd.Flags().StringVar(&root, "project-root", "", "the project directory this space describes")
	cmd.Flags().BoolVar(&noRoot, "no-project-root", false, "do not record a project root")
	cmd.MarkFlagsMutuallyExclusive("project-root", "no-project-root")
	jsonFlag(cmd, &asJSON)
	return cmd
}

func newSpaceSetRootCmd() *cobra.Command {
	var asJSON, here bool
	cmd := &cobra.Command{
		Use:   "set-project-root <space> [path]",
		Short: "Set the project directory a space describes (--here for the current directory)",
		Args:  rangeArgs(1, 2, "space", "path"),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			path := ""
			if len(args) == 2 {
				path = args[1]
			}
			if here || path == "." || path == "--here" {
				wd, err := env.Getwd()
				if err != nil {
					return err
				}
				path = wd
			}
			if path == "" {
				return usageErr(cmd, "path is required unless --here is passed")
			}
			c := env.Client()
			sp, err := resolveSpace(cmd.Context(), c, args[0])
			if err != nil {
				return err
			}
			out, err := c.SetProjectRoot(cmd.Context(), sp.ID, path)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Stdout, out)
			}
			fmt.Fprintf(env.Stdout, "Set project_root for '%s' to %s\n", out.Name, deref(out.ProjectRoot))
			return nil
		},
	}
	cmd.Flags().BoolVar(&here, "here", false, "use the current directory")
	jsonFlag(cmd, &asJSON)
	return cmd
}

// SpaceDeleted is the --json answer of `space delete`.
type SpaceDeleted struct {
	Deleted        bool   `json:"deleted"`
	SpaceID        string `json:"space_id"`
	CommitsDeleted int    `json:"commits_deleted"`
}

func newSpaceDeleteCmd() *cobra.Command {
	var asJSON, yes bool
	cmd := &cobra.Command{
		Use:   "delete <space>",
		Short: "Delete a space with all its checkpoints and sessions (asks first; --yes in scripts)",
		Args:  exactArgs(1, "space"),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			c := env.Client()
			sp, err := resolveSpace(cmd.Context(), c, args[0])
			if err != nil {
				return err
			}
			cps, err := c.Checkpoints(cmd.Context(), sp.ID, "")
			if err != nil {
				return err
			}
			preview := fmt.Sprintf("Delete space '%s' (`%s`)?\n  This will permanently delete %d checkpoint(s) and all sessions/turns under this space.",
				spaceName(sp), sp.ID, len(cps))
			if err := confirm(env, yes, preview); err != nil {
				return err
			}
			if err := c.DeleteSpace(cmd.Context(), sp.ID); err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Stdout, SpaceDeleted{Deleted: true, SpaceID: sp.ID.String(), CommitsDeleted: len(cps)})
			}
			fmt.Fprintf(env.Stdout, "Deleted space '%s' and its %d checkpoint(s).\n", spaceName(sp), len(cps))
			return nil
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask for confirmation")
	jsonFlag(cmd, &asJSON)
	return cmd
}
