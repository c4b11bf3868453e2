package render_test

import (
	"testing"

	"smriti/render"
	"smriti/tokenizer"
)

// BenchmarkBudgetedBrief300 is what the server spends on `smriti state
// --compact`, `smriti prime` and the SessionStart hook for a head of 300
// items: the brief rendered and counted to its budget.
func BenchmarkBudgetedBrief300(b *testing.B) {
	br := bigBrief(300)
	tokenizer.CountO200K("warm")
	for _, c := range []struct {
		name string
		run  func() string
	}{
		{"Compact", func() string {
			return render.RenderBrief(br, render.BriefOptions{Mode: render.BriefCompact, Now: now, Tokens: tokenizer.CountO200K, Budget: render.CompactBriefBudget})
		}},
		{"Prime", func() string {
			return render.RenderPrime(br, render.BriefOptions{Now: now, Tokens: tokenizer.CountO200K}, 0).Text
		}},
		{"HookChars", func() string {
			return render.RenderBriefWithin(br, render.BriefOptions{Mode: render.BriefCompact, Now: now, Tokens: tokenizer.CountO200K}, 9400)
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				c.run()
			}
		})
	}
}
