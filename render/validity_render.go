package render

import (
	"fmt"
	"smriti/internal/textutil"
	"strings"

	"smriti"
)

// validitySection lists the versions of an item with the checkpoints that
// began and ended each (see smriti.ItemHistory.Validity); "" when it has none.
func validitySection(itemID string, evs []smriti.ItemEvent) string {
	vs := smriti.ItemHistory(evs).Validity(itemID)
	if len(vs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Validity:\n")
	at := func(ev *smriti.ItemEvent) string {
		return fmt.Sprintf("`%s` (%s)", textutil.ShortHash(ev.CommitHash), ev.CreatedAt.UTC().Format("2006-01-02 15:04"))
	}
	for _, v := range vs {
		fmt.Fprintf(&b, "- `%s` %q (%s) on %s: since %s", smriti.ItemVersion{ItemID: itemID, Hash: v.From.CommitHash}.Short(),
			oneLine(textutil.Truncate(v.Text, 120)), v.Status, v.Branch, at(v.From))
		if v.To != nil {
			fmt.Fprintf(&b, ", until %s\n", at(v.To))
		} else {
			b.WriteString(", still held\n")
		}
	}
	return b.String() + "\n"
}
