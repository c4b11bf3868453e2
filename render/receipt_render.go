package render

import (
	"fmt"
	"smriti/receipt"
	"strings"
	"time"
)

// compaction is the brief's line about the last compaction: when, and how
// much of the state the agent was given again ("" before the first).
func (r briefRenderer) compaction(rc *receipt.Receipt) string {
	if rc == nil {
		return ""
	}
	return CompactionLine(rc, r.o.Now) + "\n"
}

// CompactionLine says what a compaction receipt recorded, in one line:
// "After compaction at 10:14 UTC (codex): 42 of 42 live items re-injected,
// 0 omitted." An incomplete one names the decisions and open tasks left out.
func CompactionLine(rc *receipt.Receipt, now time.Time) string {
	at := rc.CreatedAt.UTC()
	when := at.Format("15:04 UTC")
	if n := now.UTC(); n.IsZero() || n.Format(time.DateOnly) != at.Format(time.DateOnly) {
		when = at.Format("2006-01-02 15:04 UTC")
	}
	line := fmt.Sprintf("After compaction at %s (%s): %d of %d live items re-injected, %d omitted", when, oneLine(rc.Host),
		len(rc.InjectedIDs), len(rc.LiveIDs), len(rc.OmittedIDs))
	if rc.Status != receipt.Incomplete {
		if len(rc.OmittedIDs) > 0 {
			line += fmt.Sprintf(" (listed by `%s`)", rc.ListCommand)
		}
		return line + "."
	}
	return line + fmt.Sprintf(". INCOMPLETE: %d decision(s) or open task(s) were not re-injected: %s (list them: `%s`).",
		len(rc.MissingIDs), strings.Join(rc.MissingIDs, ", "), rc.ListCommand)
}
