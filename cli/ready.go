package cli

import (
	"context"
	"fmt"
	"os"
	"smriti/client"
	"smriti/coord"
	"smriti/wire"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"smriti"
)

// agentName is who the CLI acts as when --agent is not given: SMRITI_AGENT.
func agentName(flag string) string {
	return strings.TrimSpace(firstNonEmpty(flag, os.Getenv("SMRITI_AGENT")))
}

func newReadyCmd() *cobra.Command {
	var (
		asJSON, claim    bool
		agent, ttl, sess string
		limit            int
	)
	cmd := &cobra.Command{
		Use:   "ready [space]",
		Short: "List the ready queue (open tasks nothing blocks and no one holds); --claim takes the first atomically",
		Long: `List the open tasks of main's head and the active branches' heads whose
blocked_by tasks are all done and that no live claim holds, ranked: the task
that unblocks the most first, then the oldest.

--claim takes the first ready task with an exclusive claim: two agents
running it at once always get two different tasks. The space is the one
named, else SMRITI_SPACE, else the space whose project root holds this
directory.`,
		Example: `  smriti ready
  smriti ready --claim --agent codex --ttl 2h`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			ctx := cmd.Context()
			c := env.Client()
			sp, err := spaceForCommand(ctx, env, c, firstArg(args))
			if err != nil {
				return err
			}
			if claim {
				req := wire.ReadyClaimRequest{}
				if a := agentName(agent); a != "" {
					req.Agent = &a
				}
				if ttl != "" {
					if _, err := coord.ParseDuration(ttl); err != nil {
						return err
					}
					req.TTL = &ttl
				}
				if sess != "" {
					req.SessionID = &sess
				}
				out, err := c.ClaimReady(ctx, sp.ID, req)
				if err != nil {
					return err
				}
				if asJSON {
					return printJSON(env.Stdout, out)
				}
				fmt.Fprintf(env.Stdout, "Claimed task %s: %s\nClaim %s by %s until %s (renew: smriti claim heartbeat %s; finish: smriti claim done %s)\n",
					out.Task.Key, out.Task.Text, shortID(out.Claim.ID), orDash(out.Claim.Agent), out.Claim.ExpiresAt.UTC().Format(time.RFC3339),
					shortID(out.Claim.ID), shortID(out.Claim.ID))
				return nil
			}
			out, err := c.ReadyTasks(ctx, sp.ID, limit)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Stdout, out.Tasks)
			}
			fmt.Fprint(env.Stdout, formatReady(sp.Name, out.Tasks))
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&claim, "claim", false, "claim the first ready task (exclusive)")
	f.StringVar(&agent, "agent", "", "who claims (default SMRITI_AGENT)")
	f.StringVar(&ttl, "ttl", "", "lease length with --claim: 90m, 2h, 1h30m, 3d (default 4h)")
	f.StringVar(&sess, "session", "", "with --claim: the claimer's session id")
	f.IntVar(&limit, "limit", 0, "at most this many tasks")
	jsonFlag(cmd, &asJSON)
	return cmd
}

func firstArg(args []string) string {
	if len(args) > 0 {
		return args[0]
	}
	return ""
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func formatReady(space string, ts []wire.ReadyTaskOut) string {
	if len(ts) == 0 {
		return fmt.Sprintf("Nothing is ready in %s: every open task is blocked or claimed.\n", space)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d ready task(s) in %s:\n", len(ts), space)
	for _, t := range ts {
		fmt.Fprintf(&b, "- %s  %s", t.Key, t.Text)
		var notes []string
		if t.IntentHint != "" {
			notes = append(notes, t.IntentHint)
		}
		if t.Unblocks > 0 {
			notes = append(notes, fmt.Sprintf("unblocks %d", t.Unblocks))
		}
		if t.BranchName != smriti.MainBranch {
			notes = append(notes, "on "+t.BranchName)
		}
		if len(notes) > 0 {
			fmt.Fprintf(&b, "  (%s)", strings.Join(notes, ", "))
		}
		b.WriteString("\n")
	}
	b.WriteString("Claim one: smriti claim create --task KEY, or the first: smriti ready --claim\n")
	return b.String()
}

func newClaimHeartbeatCmd() *cobra.Command {
	var asJSON bool
	var ttl string
	cmd := &cobra.Command{
		Use:   "heartbeat <claim>",
		Short: "Renew a live claim's lease (claim id or a unique prefix of it)",
		Args:  exactArgs(1, "claim"),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			c := env.Client()
			if ttl != "" {
				if _, err := coord.ParseDuration(ttl); err != nil {
					return err
				}
			}
			id, err := resolveClaim(cmd.Context(), c, args[0])
			if err != nil {
				return err
			}
			out, err := c.HeartbeatClaim(cmd.Context(), id, ttl)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Stdout, out)
			}
			fmt.Fprintf(env.Stdout, "Claim %s renewed until %s.\n", shortID(out.ID), out.ExpiresAt.UTC().Format(time.RFC3339))
			return nil
		},
	}
	cmd.Flags().StringVar(&ttl, "ttl", "", "new lease from now: 90m, 2h, … (default: the claim's original length)")
	jsonFlag(cmd, &asJSON)
	return cmd
}

// resolveClaim asks the server which claim arg names (its id or a unique
// prefix of 4+ characters, among the claims of every space the caller
// sees).
func resolveClaim(ctx context.Context, c *client.Client, arg string) (smriti.ID, error) {
	cl, err := c.ResolveClaim(ctx, arg)
	if err != nil {
		if smriti.ErrorCode(err) == smriti.EINVALID {
			return smriti.NilID, smriti.Errorf(smriti.EINVALID, "claim %s", smriti.ErrorMessage(err))
		}
		return smriti.NilID, err
	}
	return cl.ID, nil
}

// humanDuration prints 4h, 1h30m or 90s rather than 4h0m0s.
func humanDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
