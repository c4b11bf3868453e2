package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"smriti/render"
	"smriti/wire"
)

func newWhyCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "why <space> <item-id | item@version | words of its text>",
		Short: "Show where an item (decision, assumption, task, …) came from and how it changed, with the turns and quotes behind it",
		Long: `Show where an item came from and how it changed, with the turns and quotes behind it.

An item is named by its id (its newest version is shown), by a version's
name item@version — the id and the hash (8 or more hex digits) of the
checkpoint that introduced that version; it names the same version on
every copy of the space — or by words of its text (matched against main's
newest checkpoint).`,
		Example: `  smriti why demo d-7f3a9c
  smriti why demo d-7f3a9c@3f9a1c2b
  smriti why demo "token TTL"`,
		Args: exactArgs(2, "space and item"),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			ctx := cmd.Context()
			c := env.Client()
			sp, err := resolveSpace(ctx, c, args[0])
			if err != nil {
				return err
			}
			h, err := c.ResolveItem(ctx, sp.ID, strings.TrimSpace(args[1]))
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Stdout, h)
			}
			fmt.Fprint(env.Stdout, render.RenderItem(wire.DomainItemAt(h)))
			return nil
		},
	}
	jsonFlag(cmd, &asJSON)
	return cmd
}
