package coord

import (
	"context"
	"math"
	"smriti"
	"time"
)

// SpaceMetrics measures how a space is used for coordination and how rich
// its checkpoints are. It is computed on request, never stored.
type SpaceMetrics struct {
	SpaceID    smriti.ID
	SpaceName  string
	ComputedAt time.Time

	TotalCheckpoints int
	// AgentCheckpoints counts checkpoints per author agent; checkpoints
	// without one are counted under "(none)".
	AgentCheckpoints map[string]int
	// UniqueAgents counts distinct non-empty author agents.
	UniqueAgents int
	// CrossAgentContinuations counts checkpoints whose parent was written
	// by a different (known) agent.
	CrossAgentContinuations int

	TotalClaims       int
	ClaimsDone        int
	ClaimsAbandoned   int
	ClaimsWithTaskID  int
	TotalDecisions    int
	TotalTasks        int
	StructuredTasks   int // checkpoints with at least one task carrying an intent hint
	TaskIDCheckpoints int // checkpoints with at least one task carrying an id
	MilestoneNotes    int
	NoiseNotes        int

	// Sessions off main, by branch disposition.
	BranchesActive     int
	BranchesIntegrated int
	BranchesAbandoned  int
}

// NoAgent is the AgentCheckpoints key for checkpoints without an author.
const NoAgent = "(none)"

// ClaimCompletionRate is done / (done + abandoned) rounded to two decimals,
// nil when no claim has been finished.
func (m *SpaceMetrics) ClaimCompletionRate() *float64 {
	n := m.ClaimsDone + m.ClaimsAbandoned
	if n == 0 {
		return nil
	}
	r := roundTo(float64(m.ClaimsDone)/float64(n), 2)
	return &r
}

// AvgDecisions is decisions per checkpoint rounded to one decimal (0 for a
// space without checkpoints).
func (m *SpaceMetrics) AvgDecisions() float64 {
	return roundTo(float64(m.TotalDecisions)/float64(max(m.TotalCheckpoints, 1)), 1)
}

// AvgTasks is tasks per checkpoint rounded to one decimal.
func (m *SpaceMetrics) AvgTasks() float64 {
	return roundTo(float64(m.TotalTasks)/float64(max(m.TotalCheckpoints, 1)), 1)
}

// roundTo rounds x to the given number of decimals, halves away from zero
// (2.25 → 2.3, 0.125 → 0.13). The first implementation rounded halves to
// even on the binary value; the exact decimal rule is easier to predict and
// differs only on exact halves.
func roundTo(x float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	// Round the scaled value at 1e-9 first so 2.675*100 = 267.49999… still
	// counts as the half it was written as.
	scaled := math.Round(x*p*1e9) / 1e9
	return math.Round(scaled) / p
}

// MetricsService computes space metrics.
type MetricsService interface {
	// SpaceMetrics computes the metrics of a space; ENOTFOUND for an unknown
	// space.
	SpaceMetrics(ctx context.Context, spaceID smriti.ID) (*SpaceMetrics, error)
}

// MetricsView is what the metrics report shows: the numbers as the API
// serves them (averages and the completion rate already rounded).
type MetricsView struct {
	SpaceName               string
	TotalCheckpoints        int
	UniqueAgents            int
	AgentCheckpoints        map[string]int
	CrossAgentContinuations int
	TotalClaims             int
	ClaimsWithTaskID        int
	ClaimCompletionRate     *float64
	AvgDecisions            float64
	AvgTasks                float64
	StructuredTasks         int
	TaskIDCheckpoints       int
	MilestoneNotes          int
	NoiseNotes              int
	BranchesActive          int
	BranchesIntegrated      int
	BranchesAbandoned       int
}

// View returns the metrics as the report shows them.
func (m *SpaceMetrics) View() MetricsView {
	return MetricsView{SpaceName: m.SpaceName, TotalCheckpoints: m.TotalCheckpoints, UniqueAgents: m.UniqueAgents,
		AgentCheckpoints: m.AgentCheckpoints, CrossAgentContinuations: m.CrossAgentContinuations, TotalClaims: m.TotalClaims,
		ClaimsWithTaskID: m.ClaimsWithTaskID, ClaimCompletionRate: m.ClaimCompletionRate(), AvgDecisions: m.AvgDecisions(),
		AvgTasks: m.AvgTasks(), StructuredTasks: m.StructuredTasks, TaskIDCheckpoints: m.TaskIDCheckpoints,
		MilestoneNotes: m.MilestoneNotes, NoiseNotes: m.NoiseNotes, BranchesActive: m.BranchesActive,
		BranchesIntegrated: m.BranchesIntegrated, BranchesAbandoned: m.BranchesAbandoned}
}
