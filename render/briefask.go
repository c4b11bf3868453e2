package render

import "time"

// BriefAsk is what a reader asks of the state brief, whichever entry point
// they ask through (the CLI, an MCP tool, the API, a hook).
type BriefAsk struct {
	// Compact lists artifacts by label only; Preview cuts them to
	// previews (Compact wins when both are set).
	Compact, Preview bool
	// Stats appends what compact mode saved.
	Stats bool
	// All lists every live item, whatever the mode.
	All bool
	// Budget, when positive, is the most tokens the brief may cost, in any
	// mode.
	Budget int
}

// TokenBudget is the one rule every entry point follows for a brief's
// budget: the budget asked for, else — for the compact brief, what an
// agent reads at the start of a session — CompactBriefBudget unless every
// item is asked for, and none (every item) for a full or preview brief.
func (a BriefAsk) TokenBudget() int {
	switch {
	case a.Budget > 0:
		return a.Budget
	case a.Compact && !a.All:
		return CompactBriefBudget
	}
	return 0
}

// Options settles a brief's options: the mode asked for (compact, else
// preview, else full), the budget by TokenBudget, and count as the token
// counter, so the brief ends with its cost.
func (a BriefAsk) Options(now time.Time, count func(string) int) BriefOptions {
	o := BriefOptions{Mode: BriefFull, Stats: a.Stats, Now: now, Tokens: count, Budget: a.TokenBudget()}
	switch {
	case a.Compact:
		o.Mode = BriefCompact
	case a.Preview:
		o.Mode = BriefPreview
	}
	return o
}
