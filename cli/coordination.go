package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"smriti"
	"smriti/client"
	"smriti/coord"
	"smriti/render"
	"smriti/wire"
)

func newStateCmd() *cobra.Command {
	var (
		asJSON, compact, preview, full, mainOnly, stats, all bool
		since, asOf, branch                                  string
	)
	cmd := &cobra.Command{
		Use:   "state <space>",
		Short: "Print the state brief: main's head, active branches, live claims, divergence (read this first)",
		Example: `  smriti state demo --compact
  smriti state demo --compact --all
  smriti state demo --since 3f9a2c1
  smriti state demo --as-of 2026-11-30          # what main held at the end of that day
  smriti state demo --as-of 3f9a2c1 --json      # each item with valid_from / valid_to`,
		Args: exactArgs(1, "space"),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			ctx := cmd.Context()
			c := env.Client()
			sp, err := resolveSpace(ctx, c, args[0])
			if err != nil {
				return err
			}
			if asOf != "" {
				st, err := c.StateAsOf(ctx, sp.ID, asOf, branch)
				if err != nil {
					return err
				}
				if asJSON {
					return printJSON(env.Stdout, st)
				}
				fmt.Fprint(env.Stdout, render.RenderStateAsOf(sp.Name, st.Branch, st.Checkpoint.Checkpoint(), wire.DomainSpans(st)))
				return nil
			}
			if branch != "" {
				return usageErr(cmd, "--branch goes with --as-of TIME")
			}
			var opts client.StateOptions
			if since != "" && !mainOnly {
				cp, err := resolveCheckpoint(ctx, c, since)
				if err != nil {
					return err
				}
				opts.Since = &cp.ID
			}
			if asJSON {
				st, err := c.State(ctx, sp.ID, opts)
				if err != nil {
					return err
				}
				if mainOnly {
					st.ActiveBranches, st.ActiveBranchesMore = []wire.ActiveBranch{}, 0
					st.ActiveClaims, st.ActiveClaimsMore = []wire.StateClaim{}, 0
					st.Divergence, st.Freshness = nil, nil
				}
				return printJSON(env.Stdout, st)
			}
			// The server renders and counts the brief (it keeps the
			// tokenizer loaded); the CLI adds what it checked against its
			// own work tree.
			o := client.BriefOptions{StateOptions: opts, Compact: compact, Preview: preview, Stats: stats, MainOnly: mainOnly}
			o.Budget = render.BriefAsk{Compact: compact, Preview: preview, All: all}.TokenBudget()
			o.Home, _ = os.UserHomeDir()
			md, checks, err := checkedBrief(ctx, env, c, sp, o)
			if err != nil {
				return err
			}
			fmt.Fprint(env.Stdout, withChecks(md, checks))
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&compact, "compact", false, "list artifacts by label only (recommended at session start)")
	f.BoolVar(&preview, "preview", false, "cut artifacts to 800-character previews")
	f.BoolVar(&full, "full-artifacts", false, "artifacts in full (the default)")
	f.BoolVar(&mainOnly, "main-only", false, "only main's head: no branches, claims, divergence or freshness")
	f.BoolVar(&stats, "stats", false, "append what compact mode saved")
	f.BoolVar(&all, "all", false, "list every live item (--compact otherwise keeps within 3,000 tokens, newest and open first)")
	f.StringVar(&since, "since", "", "the checkpoint you last saw: say what changed on main since")
	f.StringVar(&asOf, "as-of", "", "the state as it was at a checkpoint (id or hash prefix) or a time (RFC 3339 or YYYY-MM-DD), each item with when it began and ended")
	f.StringVar(&branch, "branch", "", "with --as-of TIME: the line of work to read (default main)")
	cmd.MarkFlagsMutuallyExclusive("compact", "preview", "full-artifacts")
	cmd.MarkFlagsMutuallyExclusive("as-of", "since")
	jsonFlag(cmd, &asJSON)
	return cmd
}

func newClaimCmd() *cobra.Command {
	return groupCmd("claim", "Declare, renew, finish and list work claims (a task id is held by one claim at a time)",
		newClaimCreateCmd(), newClaimFinishCmd("done"), newClaimFinishCmd("abandon"), newClaimListCmd(), newClaimHeartbeatCmd())
}

func newClaimCreateCmd() *cobra.Command {
	var (
		asJSON                                     bool
		agent, scope, branch, intent, task, worktr string
		ttl                                        string
	)
	cmd := &cobra.Command{
		Use:   "create [space]",
		Short: "Claim a piece of work (based on main's current head); a --task is held exclusively, other collisions are listed",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			ctx := cmd.Context()
			agent = agentName(agent)
			if scope == "" {
				scope = task
			}
			if agent == "" || scope == "" {
				return usageErr(cmd, "--agent (or SMRITI_AGENT) and --scope or --task are required")
			}
			d, err := coord.ParseDuration(ttl)
			if err != nil {
				return err
			}
			c := env.Client()
			sp, err := spaceForCommand(ctx, env, c, firstArg(args))
			if err != nil {
				return err
			}
			head, err := c.Head(ctx, sp.ID)
			if err != nil {
				return err
			}
			spID := sp.ID.String()
			req := wire.ClaimRequest{SpaceID: &spID, Agent: &agent, Scope: &scope, BranchName: &branch, IntentType: &intent, TTL: &ttl}
			if head.CommitID != nil {
				id := head.CommitID.String()
				req.BaseCommitID = &id
			}
			if task != "" {
				req.TaskID = &task
			}
			if worktr != "" {
				req.WorktreeID = &worktr
			}
			out, err := c.Claim(ctx, req)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Stdout, out)
			}
			fmt.Fprintf(env.Stdout, "Claimed: [%s] %q on `%s` by `%s`  (id: %s, expires in %s)\n",
				out.IntentType, out.Scope, out.BranchName, out.Agent, out.ID, humanDuration(d))
			if len(out.Collisions) > 0 {
				fmt.Fprintf(env.Stdout, "\nCollides with %d live claim(s) — re-read state and consider another task:\n", len(out.Collisions))
				cl := make([]*coord.Claim, len(out.Collisions))
				for i := range out.Collisions {
					cl[i] = out.Collisions[i].Claim()
				}
				fmt.Fprint(env.Stdout, render.RenderClaims(cl, false))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&agent, "agent", "", "who claims (required)")
	f.StringVar(&scope, "scope", "", "what will be done (required)")
	f.StringVar(&branch, "branch", "main", "branch the work is on")
	f.StringVar(&intent, "intent-type", "implement", "implement, review, investigate, docs or test")
	f.StringVar(&task, "task", "", "the task key from the brief or smriti ready: held by this claim alone")
	f.StringVar(&task, "task-id", "", "same as --task")
	f.StringVar(&worktr, "worktree", "", "bind to this worktree (UUID)")
	f.StringVar(&ttl, "ttl", "4h", "lease length: 90m, 2h, 1h30m, 3d, or a number of hours")
	jsonFlag(cmd, &asJSON)
	return cmd
}

func newClaimFinishCmd(verb string) *cobra.Command {
	status := map[string]string{"done": coord.ClaimDone, "abandon": coord.ClaimAbandoned}[verb]
	var asJSON bool
	cmd := &cobra.Command{
		Use:   verb + " <claim-id>",
		Short: "Mark a claim " + status,
		Args:  exactArgs(1, "claim-id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			id, err := resolveClaim(cmd.Context(), env.Client(), args[0])
			if err != nil {
				return err
			}
			out, err := env.Client().FinishClaim(cmd.Context(), id, status)
			if err != nil {
				return withHint(err, smriti.ENOTFOUND, "Run `smriti claim list <space> --all` to see claim ids.")
			}
			if asJSON {
				return printJSON(env.Stdout, out)
			}
			fmt.Fprintf(env.Stdout, "Claim `%s` marked %s.\n", out.ID, out.Status)
			return nil
		},
	}
	jsonFlag(cmd, &asJSON)
	return cmd
}

func newClaimListCmd() *cobra.Command {
	var asJSON, all bool
	cmd := &cobra.Command{
		Use:   "list <space>",
		Short: "List live claims (--all: also expired, done and abandoned)",
		Args:  exactArgs(1, "space"),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			c := env.Client()
			sp, err := resolveSpace(cmd.Context(), c, args[0])
			if err != nil {
				return err
			}
			claims, _, err := c.Claims(cmd.Context(), sp.ID, client.ClaimsOptions{IncludeExpired: all})
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Stdout, claims)
			}
			cl := make([]*coord.Claim, len(claims))
			for i := range claims {
				cl[i] = claims[i].Claim()
			}
			fmt.Fprint(env.Stdout, render.RenderClaims(cl, all))
			return nil
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "include expired, done and abandoned claims")
	jsonFlag(cmd, &asJSON)
	return cmd
}

func newMetricsCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "metrics <space>",
		Short: "Coordination and state-quality metrics of a space",
		Args:  exactArgs(1, "space"),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			c := env.Client()
			sp, err := resolveSpace(cmd.Context(), c, args[0])
			if err != nil {
				return err
			}
			m, err := c.SpaceMetrics(cmd.Context(), sp.ID)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Stdout, m)
			}
			fmt.Fprint(env.Stdout, render.RenderMetrics(m.View()))
			return nil
		},
	}
	jsonFlag(cmd, &asJSON)
	return cmd
}
