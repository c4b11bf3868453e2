package cli

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"smriti/client"
	"smriti/internal/estimate"
	"smriti/render"
	"smriti/wire"
)

// PrimeBudget is the most tokens (o200k) `smriti prime` costs an agent, at
// any number of items: the brief shows the newest and open items first and
// counts the rest.
const PrimeBudget = render.PrimeBudget

// Prime is what `smriti prime --json` prints.
type Prime struct {
	SpaceID   string `json:"space_id"`
	SpaceName string `json:"space_name"`
	// Usage is the how-to part, Brief the compact brief (without a token
	// line); Text is both as printed, ending with its "~N tokens" line.
	Usage  string `json:"usage"`
	Brief  string `json:"brief"`
	Text   string `json:"text"`
	Tokens int    `json:"tokens"`
	// Encoding names the tokenizer Tokens counts with.
	Encoding string `json:"encoding"`
}

func newPrimeCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "prime [space]",
		Short: "Print what an agent needs at session start: how to use Smriti and the compact brief, within 2,000 tokens",
		Long: `Print what an agent needs at the start of a session: the few commands that
matter and the compact state brief, ending with its own token count (o200k).
The space is the one named, else SMRITI_SPACE, else the space whose project
root holds this directory.`,
		Example: `  smriti prime
  smriti prime demo --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			ctx := cmd.Context()
			c := env.Client()
			sp, err := spaceForCommand(ctx, env, c, firstArg(args))
			if err != nil {
				return err
			}
			p, err := primeOf(ctx, env, c, sp)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Stdout, p)
			}
			fmt.Fprint(env.Stdout, p.Text)
			return nil
		},
	}
	jsonFlag(cmd, &asJSON)
	return cmd
}

// primeOf reads the prime text the server rendered and counted, with the
// items whose code refs are not fresh (checked against this work tree)
// first and marked where they are listed.
func primeOf(ctx context.Context, env *Env, c *client.Client, sp *wire.Repo) (Prime, error) {
	o := client.BriefOptions{Prime: true}
	o.Home, _ = os.UserHomeDir()
	text, checks, err := checkedBrief(ctx, env, c, sp, o)
	if err != nil {
		return Prime{}, err
	}
	usage, brief, n, ok := render.SplitPrime(text)
	if !ok {
		return Prime{}, failf("the server's prime text is not one this smriti reads; run the same version as the server (smriti version)")
	}
	if checked := withChecks(brief, checks); checked != brief {
		n += max(0, estimate.Tokens(checked)-estimate.Tokens(brief))
		brief = checked
	}
	text, _ = render.WithTokenLine(usage+"\n"+strings.TrimLeft(brief, "\n"), func(string) int { return n })
	return Prime{SpaceID: sp.ID.String(), SpaceName: sp.Name, Usage: usage, Brief: brief,
		Text: text, Tokens: n, Encoding: render.TokenEncoding}, nil
}
