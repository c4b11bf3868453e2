package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"smriti/skills"
)

func newSkillsCmd() *cobra.Command {
	return groupCmd("skills", "The embedded skill pack that teaches agents to use Smriti",
		newSkillsListCmd(), newSkillsShowCmd(), newSkillsInstallCmd())
}

// SkillsList is the --json answer of `skills list`.
type SkillsList struct {
	Version string          `json:"version"`
	Targets []skills.Target `json:"targets"`
}

func newSkillsListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the skill pack targets",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			if asJSON {
				return printJSON(env.Stdout, SkillsList{Version: skills.Version(), Targets: skills.Targets()})
			}
			fmt.Fprintf(env.Stdout, "Smriti skill pack v%s\n\nAvailable targets:\n", skills.Version())
			for _, t := range skills.Targets() {
				fmt.Fprintf(env.Stdout, "  %-14s %s\n  %14s → %s\n", t.Key, t.Description, "", t.Destination)
			}
			fmt.Fprintln(env.Stdout, "\nInstall with: smriti skills install <target>")
			return nil
		},
	}
	jsonFlag(cmd, &asJSON)
	return cmd
}

func newSkillsShowCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show <target>",
		Short: "Print the rendered skill pack for a target (claude-code or codex)",
		Args:  exactArgs(1, "target"),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			out, err := skills.Render(args[0])
			if err != nil {
				return failf("%v", err)
			}
			if asJSON {
				t, _ := skills.Lookup(args[0])
				return printJSON(env.Stdout, map[string]string{"target": t.Key, "version": skills.Version(), "destination": t.Destination, "content": out})
			}
			fmt.Fprint(env.Stdout, out)
			return nil
		},
	}
	jsonFlag(cmd, &asJSON)
	return cmd
}

func newSkillsInstallCmd() *cobra.Command {
	var asJSON, force, dryRun bool
	var dest string
	cmd := &cobra.Command{
		Use:   "install <target>",
		Short: "Write the skill pack into this project (never replaces a same or newer version without --force)",
		Args:  exactArgs(1, "target"),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			wd, err := env.Getwd()
			if err != nil {
				return err
			}
			res, err := skills.Install(wd, args[0], dest, force, dryRun)
			if err != nil {
				return failf("%v", err)
			}
			if asJSON {
				return printJSON(env.Stdout, res)
			}
			t, _ := skills.Lookup(args[0])
			switch res.Action {
			case skills.ActionDryRun:
				fmt.Fprintf(env.Stdout, "Dry run — would write %s (version %s, not creating).\n\n%s", res.Destination, res.Version, res.Content)
			case skills.ActionSkipped:
				return failf("skipped: %s already has skill pack version %s (this binary has %s). Use --force to overwrite.",
					res.Destination, *res.PreviousVersion, res.Version)
			default:
				verb := "Installed"
				if res.Action == skills.ActionOverwritten {
					verb = "Overwrote"
				}
				was := ""
				if res.PreviousVersion != nil {
					was = " (was version " + *res.PreviousVersion + ")"
				}
				fmt.Fprintf(env.Stdout, "%s skill pack for %s at %s — version %s%s\n", verb, t.DisplayName, res.Destination, res.Version, was)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dest, "destination", "", "where to write it (default: the target's usual place)")
	cmd.Flags().BoolVar(&force, "force", false, "overwrite even a same or newer version")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "show what would be written; write nothing")
	jsonFlag(cmd, &asJSON)
	return cmd
}
