package httpapi

import (
	"time"

	"smriti/coord"
	"smriti/render"
	"smriti/tokenizer"
)

// compactBriefTokens is the state's brief_tokens: what the compact markdown
// brief of b costs in o200k tokens, as GET .../brief?compact=true renders it.
func compactBriefTokens(b *coord.StateBrief, now time.Time) int {
	_, n := render.WithTokenLine(render.RenderBrief(b, render.BriefOptions{Mode: render.BriefCompact, Now: now}), tokenizer.CountO200K)
	return n
}
