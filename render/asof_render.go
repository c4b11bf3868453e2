package render

import (
	"fmt"
	"smriti"
	"smriti/internal/textutil"
	"strings"
	"time"
)

// asOfHeadings are the sections of a state as of, in checkpoint order.
var asOfHeadings = []struct {
	kind  smriti.ItemKind
	title string
}{{smriti.KindDecision, "Decisions"}, {smriti.KindAssumption, "Assumptions"}, {smriti.KindTask, "Tasks"},
	{smriti.KindQuestion, "Open questions"}, {smriti.KindEntity, "Entities"}}

// RenderStateAsOf writes the state of a line of work as of checkpoint at:
// each live item under its kind with its id and span — "since `abc1234`
// (date)" and "until `def5678` (date)" or "still held at the head".
func RenderStateAsOf(space, branch string, at *smriti.Checkpoint, spans []smriti.ItemSpan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s as of `%s` on `%s`\n", oneLine(space), textutil.ShortHash(at.Hash), branch)
	fmt.Fprintf(&b, "%s — %s\n", at.CreatedAt.UTC().Format(time.DateTime+" UTC"), oneLine(at.Message))
	if len(spans) == 0 {
		b.WriteString("\nNo live items at that checkpoint.\n")
	}
	mark := func(c *smriti.Checkpoint) string {
		return fmt.Sprintf("`%s` (%s)", textutil.ShortHash(c.Hash), c.CreatedAt.UTC().Format(time.DateOnly))
	}
	for _, h := range asOfHeadings {
		first := true
		for _, sp := range spans {
			if sp.Item.Kind != h.kind {
				continue
			}
			if first {
				fmt.Fprintf(&b, "\n## %s\n", h.title)
				first = false
			}
			until := "still held at the head"
			if sp.ValidTo != nil {
				until = "until " + mark(sp.ValidTo)
			}
			status := ""
			if sp.Item.Status == smriti.ItemDone {
				status = " [done]"
			}
			fmt.Fprintf(&b, "- %s%s (%s; since %s, %s)\n", oneLine(sp.Item.Text), status, sp.Item.ID, mark(sp.ValidFrom), until)
		}
	}
	return Inert(b.String())
}
