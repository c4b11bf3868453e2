package render_test

import (
	"testing"
	"time"

	"smriti/render"
)

// TestBriefAskIsOneRule: every entry point settles a brief's mode and
// budget here. The compact brief keeps within CompactBriefBudget unless
// every item is asked for; a full or preview brief lists every item (the
// MCP tool budgeted those too, the CLI did not); an explicit budget holds
// in any mode.
func TestBriefAskIsOneRule(t *testing.T) {
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name   string
		ask    render.BriefAsk
		mode   render.BriefMode
		budget int
	}{
		{"FullListsEveryItem", render.BriefAsk{}, render.BriefFull, 0},
		{"PreviewListsEveryItem", render.BriefAsk{Preview: true}, render.BriefPreview, 0},
		{"CompactKeepsWithinTheBudget", render.BriefAsk{Compact: true}, render.BriefCompact, render.CompactBriefBudget},
		{"CompactWinsOverPreview", render.BriefAsk{Compact: true, Preview: true}, render.BriefCompact, render.CompactBriefBudget},
		{"CompactAllListsEveryItem", render.BriefAsk{Compact: true, All: true}, render.BriefCompact, 0},
		{"ExplicitBudgetHoldsInFull", render.BriefAsk{Budget: 500}, render.BriefFull, 500},
		{"ExplicitBudgetWinsOverAll", render.BriefAsk{Compact: true, All: true, Budget: 800}, render.BriefCompact, 800},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := c.ask.Options(now, func(s string) int { return len(s) })
			if o.Mode != c.mode || o.Budget != c.budget || c.ask.TokenBudget() != c.budget || !o.Now.Equal(now) || o.Tokens == nil || o.Stats != c.ask.Stats {
				t.Fatalf("options = mode %v budget %d; want mode %v budget %d, counted, at %s", o.Mode, o.Budget, c.mode, c.budget, now)
			}
		})
	}
}
