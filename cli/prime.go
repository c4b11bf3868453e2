package cli

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"smriti/client"
	"smriti/coderef"
	"smriti/render"
	"smriti/tokenizer"
	"smriti/wire"
)

// PrimeBudget is the most tokens (o200k) `smriti prime` costs an agent, at
// any number of items: the brief shows the newest and open items first and
// counts the rest.
const PrimeBudget = render.PrimeBudget

// primeUsage is how to use Smriti, in the few commands an agent needs. The
// first %s is the space's name, the second the save's base flag.
const primeUsage = `# Smriti: this project's reasoning state
Decisions, assumptions, open questions and tasks live in space %q as checkpoints. Read the brief below, then work from it; save a checkpoint when something is settled and before you stop.

- Brief again: ` + "`smriti prime`" + ` (or ` + "`smriti state --compact`" + `)
- Next task: ` + "`smriti ready`" + `; take one exclusively: ` + "`smriti ready --claim --agent NAME`" + `; renew ` + "`smriti claim heartbeat CLAIM`" + `, finish ` + "`smriti claim done CLAIM`" + `
- Save: ` + "`echo '{\"message\":\"…\",\"decisions\":[\"…\"],\"tasks\":[\"…\"]}' | smriti checkpoint create SPACE%s`" + ` (a checkpoint is the whole state: give every list in full%s); from notes: ` + "`smriti checkpoint create SPACE --extract --yes < notes.md`" + `
- Look up: ` + "`smriti why SPACE ITEM`" + `, ` + "`smriti search WORDS`" + `, ` + "`smriti checkpoint show REF`" + `
- Try an alternative: ` + "`smriti fork REF --branch NAME`" + `, then ` + "`smriti compare A B`" + `
`

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
			st, err := c.State(ctx, sp.ID, client.StateOptions{})
			if err != nil {
				return err
			}
			var checks []coderef.ItemCheck
			if st.Commit != nil {
				checks = checkItems(ctx, env, c, st.Commit.ID, st.Space.ProjectRoot)
			}
			p := primeChecked(st, now(), checks)
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

// prime renders the usage and the compact brief of st.
func prime(st *wire.SpaceState, at time.Time) Prime { return primeChecked(st, at, nil) }

// primeChecked is prime with the items whose code refs are not fresh
// first, marked where they are listed.
func primeChecked(st *wire.SpaceState, at time.Time, checks []coderef.ItemCheck) Prime {
	// A save names the state it was written from, so that another
	// agent's save made meanwhile is merged in rather than overwritten.
	baseFlag, baseNote := "", ""
	if st.Commit != nil {
		baseFlag = " --base " + short(st.Commit.CommitHash)
		baseNote = "; --base is the checkpoint you started from: this head, or your last save"
	}
	usage := fmt.Sprintf(primeUsage, st.Space.Name, baseFlag, baseNote)
	// The brief's budget is what the usage and the token line leave.
	o := render.BriefOptions{Mode: render.BriefCompact, Digest: true, Now: at, Count: tokenizer.CountO200K,
		Budget: PrimeBudget - tokenizer.CountO200K(usage+"\n") - 12}
	o.Home, _ = os.UserHomeDir()
	brief := checkedBrief(st, o, checks)
	text, n := render.WithTokenLine(usage+"\n"+strings.TrimLeft(brief, "\n"), tokenizer.CountO200K)
	return Prime{SpaceID: st.Space.ID.String(), SpaceName: st.Space.Name, Usage: usage, Brief: brief,
		Text: text, Tokens: n, Encoding: tokenizer.O200K}
}

// PrimeTokens is what `smriti prime` costs an agent for a space state, in
// o200k tokens (the usage, the compact brief and its token line).
func PrimeTokens(st *wire.SpaceState) int { return prime(st, now()).Tokens }
