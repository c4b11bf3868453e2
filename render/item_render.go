package render

import (
	"fmt"
	"smriti"
	"smriti/internal/textutil"
	"strings"
)

// RenderItem is an item's provenance as markdown: the version picked
// (what it says now, or the version a name asked for) with its stable
// name, where the item came from, and every change along the lineage with
// the turns and quotes behind it.
func RenderItem(at *smriti.ItemAt) string {
	var b strings.Builder
	itemID, evs := at.ItemID, at.History
	if at.Version == nil {
		return fmt.Sprintf("Item %s has no history in this space.\n", itemID)
	}
	cur := &at.Version.Item
	fmt.Fprintf(&b, "## %s %s (%s)\n\n%s\n\n", cur.Kind, cur.ID, cur.StatusOrOpen(), block(cur.Text))
	fmt.Fprintf(&b, "Version `%s`", smriti.ItemVersion{ItemID: itemID, Hash: at.Version.CommitHash}.Short())
	if at.Latest() {
		b.WriteString(" (the newest).\n\n")
	} else {
		newest := at.Newest()
		fmt.Fprintf(&b, ", written on %s %s; the newest is `%s`.\n\n", at.Version.BranchName,
			at.Version.CreatedAt.UTC().Format("2006-01-02 15:04"), smriti.ItemVersion{ItemID: itemID, Hash: newest.CommitHash}.Short())
	}
	if o := cur.Origin; o.CheckpointID != nil {
		fmt.Fprintf(&b, "Introduced in checkpoint %s", o.CheckpointID.String()[:8])
		if o.SessionID != nil {
			fmt.Fprintf(&b, ", session %s", o.SessionID.String()[:8])
		}
		if o.FromSeq != nil && o.ToSeq != nil {
			fmt.Fprintf(&b, ", turns %d–%d", *o.FromSeq, *o.ToSeq)
		}
		if o.Model != nil {
			fmt.Fprintf(&b, ", drafted by %s", *o.Model)
		} else if o.AuthorAgent != nil {
			fmt.Fprintf(&b, ", by %s", *o.AuthorAgent)
		}
		b.WriteString(".\n")
		if o.Quote != nil {
			fmt.Fprintf(&b, "> %s\n", oneLine(*o.Quote))
		}
		b.WriteString("\n")
	}
	b.WriteString(validitySection(itemID, evs))
	b.WriteString("History:\n")
	for i := range evs {
		ev := &evs[i]
		kind := ev.KindFor(itemID)
		if kind == smriti.EventRejected {
			b.WriteString(rejectedLine(ev))
			continue
		}
		fmt.Fprintf(&b, "- %s on %s (%s %s", kind, ev.BranchName, textutil.ShortHash(ev.CommitHash), ev.CreatedAt.UTC().Format("2006-01-02 15:04"))
		if ev.Merge {
			b.WriteString(", merge")
		}
		b.WriteString(")")
		ch := ev.Item.Change
		switch {
		case ch != nil && ch.Merge != nil && ev.Item.Live():
			if ch.Merge.Choice == smriti.ChooseCustom {
				fmt.Fprintf(&b, ": kept %q (written in the merge)", ev.Item.Text)
			} else {
				fmt.Fprintf(&b, ": kept %q from %s", ev.Item.Text, ch.Merge.Choice)
			}
		case kind == smriti.EventSupersededBy:
			fmt.Fprintf(&b, " by %s: %q", ev.Item.ID, ev.Item.Text)
		case kind == smriti.EventChanged && ch != nil && ch.Before != nil:
			fmt.Fprintf(&b, ": %q → %q", *ch.Before, ev.Item.Text)
		case kind == smriti.EventIntroduced:
			fmt.Fprintf(&b, ": %q", ev.Item.Text)
		}
		if ch != nil {
			if ch.By != nil {
				fmt.Fprintf(&b, " — %s", oneLine(*ch.By))
			}
			if ch.Reason != nil {
				fmt.Fprintf(&b, " — %s", oneLine(*ch.Reason))
			}
			writeSource(&b, ch.Source)
		}
		b.WriteString("\n")
	}
	return Inert(b.String())
}

// writeSource writes the turns and quote a change came from.
func writeSource(b *strings.Builder, src smriti.ItemSource) {
	if src.SessionID != nil && src.FromSeq != nil && src.ToSeq != nil {
		fmt.Fprintf(b, " [session %s, turns %d–%d]", src.SessionID.String()[:8], *src.FromSeq, *src.ToSeq)
	}
	if src.Quote != nil {
		fmt.Fprintf(b, "\n  > %s", oneLine(*src.Quote))
	}
}

// rejectedLine is the history line of a version a merge turned down.
func rejectedLine(ev *smriti.ItemEvent) string {
	var b strings.Builder
	side := ""
	if ch := ev.Item.Change; ch != nil && ch.Merge != nil && len(ch.Merge.Rejected) == 1 {
		side = ch.Merge.Rejected[0].Side
	}
	fmt.Fprintf(&b, "- rejected in merge %s on %s (%s %s)", ev.CheckpointID, ev.BranchName, textutil.ShortHash(ev.CommitHash), ev.CreatedAt.UTC().Format("2006-01-02 15:04"))
	what := fmt.Sprintf("%q", ev.Item.Text)
	if ev.Item.Text == "" {
		what = "the removal"
	}
	fmt.Fprintf(&b, ": %s", what)
	if side != "" {
		fmt.Fprintf(&b, " from %s", side)
	}
	if ch := ev.Item.Change; ch != nil {
		writeSource(&b, ch.Source)
	}
	b.WriteString("\n")
	return b.String()
}
