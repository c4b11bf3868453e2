package mcp

import (
	"context"
	"fmt"
	"os"
	"smriti/coord"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"smriti"
)

type readyIn struct {
	Space string `json:"space" jsonschema:"space name or UUID"`
	Claim bool   `json:"claim,omitempty" jsonschema:"claim the first (exclusive)"`
	Agent string `json:"agent,omitempty" jsonschema:"agent name (default: you)"`
	TTL   string `json:"ttl,omitempty" jsonschema:"lease: 90m, 2h, 3d (default 4h)"`
}

func (t *tools) registerReady(s *sdk.Server) {
	add(t, s, "smriti_ready", "Ready tasks (open, unblocked, unclaimed), best first; claim=true takes the first atomically.", additive,
		func(ctx context.Context, in readyIn) (string, error) {
			sp, err := t.space(ctx, in.Space)
			if err != nil {
				return "", err
			}
			if !in.Claim {
				ready, err := t.ops.ReadyTasks(ctx, sp.ID, coord.ReadyQuery{})
				if err != nil {
					return "", err
				}
				return renderReady(sp.Name, ready), nil
			}
			req := coord.ClaimCreate{SpaceID: sp.ID, Agent: firstNonBlank(in.Agent, t.agent(ctx))}
			if in.TTL != "" {
				d, err := coord.ParseDuration(in.TTL)
				if err != nil {
					return "", err
				}
				req.TTL = &d
			}
			c, task, err := t.ops.ClaimReady(ctx, req)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("Claimed task %s: %s\nClaim ID: `%s`, expires %s. Finish with `smriti_claim_done(claim_id=%q)`.\n",
				task.Key, task.Task.Text, c.ID, c.ExpiresAt.UTC().Format(time.RFC3339), c.ID.String()), nil
		})
}

func firstNonBlank(ss ...string) string {
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			return s
		}
	}
	return ""
}

func renderReady(space string, ts []coord.ReadyTask) string {
	if len(ts) == 0 {
		return "Nothing is ready in " + space + ": every open task is blocked or claimed.\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d ready task(s) in %s:\n", len(ts), space)
	for _, r := range ts {
		fmt.Fprintf(&b, "- %s  %s", r.Key, r.Task.Text)
		if r.Unblocks > 0 {
			fmt.Fprintf(&b, " (unblocks %d)", r.Unblocks)
		}
		if r.Branch != smriti.MainBranch {
			fmt.Fprintf(&b, " [on %s]", r.Branch)
		}
		b.WriteString("\n")
	}
	return b.String()
}

type clientNameKey struct{}

// agent is the caller's agent name when a tool is not told one:
// SMRITI_AGENT, else the name the MCP client gave when it connected, else
// nobody.
func (t *tools) agent(ctx context.Context) string {
	if a := strings.TrimSpace(os.Getenv("SMRITI_AGENT")); a != "" {
		return a
	}
	name, _ := ctx.Value(clientNameKey{}).(string)
	return strings.TrimSpace(name)
}
