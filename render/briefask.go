package render

import (
	"time"

	"smriti/tokenizer"
)

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

// Options settles a brief's options by the one rule every entry point
// follows: the mode asked for (compact, else preview, else full); the
// budget asked for, else — for the compact brief, what an agent reads at
// the start of a session — CompactBriefBudget unless every item is asked
// for, and none for a full or preview brief; tokens counted in o200k, so
// the brief ends with its cost.
func (a BriefAsk) Options(now time.Time) BriefOptions {
	o := BriefOptions{Mode: BriefFull, Stats: a.Stats, Now: now, Tokens: tokenizer.CountO200K}
	switch {
	case a.Compact:
		o.Mode = BriefCompact
	case a.Preview:
		o.Mode = BriefPreview
	}
	switch {
	case a.Budget > 0:
		o.Budget = a.Budget
	case o.Mode == BriefCompact && !a.All:
		o.Budget = CompactBriefBudget
	}
	return o
}
