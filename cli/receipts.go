package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"smriti/internal/textutil"
	"smriti/render"
	"smriti/wire"
)

func newReceiptsCmd() *cobra.Command {
	var asJSON bool
	var limit int
	cmd := &cobra.Command{
		Use:   "receipts <space>",
		Short: "List compaction receipts: each time an agent host compacted, which live items the hook re-injected in full and which it only counted",
		Example: `  smriti receipts demo
  smriti receipts demo --limit 1 --json`,
		Args: exactArgs(1, "space"),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			ctx := cmd.Context()
			c := env.Client()
			if limit < 0 {
				return usageErr(cmd, "--limit must not be negative")
			}
			sp, err := resolveSpace(ctx, c, args[0])
			if err != nil {
				return err
			}
			rs, err := c.Receipts(ctx, sp.ID, limit)
			if err != nil {
				return err
			}
			if asJSON {
				if rs == nil {
					rs = []wire.ReceiptOut{}
				}
				return printJSON(env.Stdout, rs)
			}
			fmt.Fprint(env.Stdout, render.Inert(receiptsText(sp.Name, rs, time.Now())))
			return nil
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 0, "the most receipts to list (default every one)")
	jsonFlag(cmd, &asJSON)
	return cmd
}

// receiptsText lists receipts newest first, each with what was left out.
func receiptsText(space string, rs []wire.ReceiptOut, now time.Time) string {
	if len(rs) == 0 {
		return fmt.Sprintf("No compaction receipts in %s yet: the SessionStart hook records one each time an agent host compacts (smriti init installs it).\n", space)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Compaction receipts of %s, newest first:\n", space)
	for _, r := range rs {
		rc := r.Receipt()
		trigger := ""
		if r.Trigger != "" {
			trigger = ", " + r.Trigger
		}
		fmt.Fprintf(&b, "\n%s  %s  %s%s  session %s  ~%d tokens\n", strings.ToUpper(r.Status), r.Host, r.Event, trigger, textutil.Truncate(r.AgentSession, 36), r.Tokens)
		fmt.Fprintf(&b, "  %s\n", render.CompactionLine(rc, now))
		if len(r.OmittedItemIDs) > 0 {
			fmt.Fprintf(&b, "  only counted: %s\n", strings.Join(r.OmittedItemIDs, ", "))
		}
	}
	return b.String()
}
