package render

import (
	"fmt"
	"smriti/coord"
	"sort"
	"strings"
)

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// RenderMetrics writes a space's metrics as the markdown report the CLI
// prints and the MCP tool returns.
func RenderMetrics(v coord.MetricsView) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s — project metrics\n\n## Coordination\n", v.SpaceName)
	agents := make([]string, 0, len(v.AgentCheckpoints))
	for a := range v.AgentCheckpoints {
		agents = append(agents, a)
	}
	sort.Strings(agents)
	parts := make([]string, len(agents))
	for i, a := range agents {
		parts[i] = fmt.Sprintf("%s: %d", a, v.AgentCheckpoints[a])
	}
	fmt.Fprintf(&b, "%s · %s", plural(v.TotalCheckpoints, "checkpoint", "checkpoints"), plural(v.UniqueAgents, "agent", "agents"))
	if len(parts) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(parts, ", "))
	}
	fmt.Fprintf(&b, "\n%s\n", plural(v.CrossAgentContinuations, "cross-agent continuation", "cross-agent continuations"))
	completion := "no claims resolved"
	if v.ClaimCompletionRate != nil {
		completion = fmt.Sprintf("%d%% completion", int(*v.ClaimCompletionRate*100+0.5))
	}
	fmt.Fprintf(&b, "%s · %s · %d with task IDs\n\n", plural(v.TotalClaims, "claim", "claims"), completion, v.ClaimsWithTaskID)
	fmt.Fprintf(&b, "## State quality\n%.1f decisions/checkpoint · %.1f tasks/checkpoint\n", v.AvgDecisions, v.AvgTasks)
	fmt.Fprintf(&b, "%d with structured tasks · %d with task IDs\n", v.StructuredTasks, v.TaskIDCheckpoints)
	fmt.Fprintf(&b, "%s · %s\n\n", plural(v.MilestoneNotes, "milestone", "milestones"), plural(v.NoiseNotes, "noise label", "noise labels"))
	fmt.Fprintf(&b, "## Branches\n%d active · %d integrated · %d abandoned\n", v.BranchesActive, v.BranchesIntegrated, v.BranchesAbandoned)
	return Inert(b.String())
}

// RenderClaims lists claims, one line each.
func RenderClaims(claims []*coord.Claim, all bool) string {
	if len(claims) == 0 {
		if all {
			return "No claims.\n"
		}
		return "No active claims.\n"
	}
	var b strings.Builder
	if all {
		fmt.Fprintf(&b, "%d claim(s):\n", len(claims))
	} else {
		fmt.Fprintf(&b, "%d active claim(s):\n", len(claims))
	}
	for _, c := range claims {
		task := ""
		if c.TaskID != nil && *c.TaskID != "" {
			task = " (task: " + *c.TaskID + ")"
		}
		status := ""
		if all {
			status = " · " + c.Status
		}
		fmt.Fprintf(&b, "  - `%s` [%s] on `%s` — %s%s  (id: %s%s)\n", c.Agent, c.Intent, c.BranchName, c.Scope, task, c.ID, status)
	}
	return Inert(b.String())
}
