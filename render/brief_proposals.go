package render

import (
	"fmt"
	"strings"

	"smriti"
	"smriti/coord"
	"smriti/internal/textutil"
)

// briefProposalsShown is how many waiting proposals the brief names.
const briefProposalsShown = 3

// proposals says how many drafts wait for review, names the newest, and
// gives the commands that review and accept them.
func (r briefRenderer) proposals(ps []coord.ProposalWaiting) string {
	if len(ps) == 0 {
		return ""
	}
	var b strings.Builder
	noun := "proposal"
	if len(ps) != 1 {
		noun = "proposals"
	}
	fmt.Fprintf(&b, "## Waiting for review\n%d %s waiting (drafts saved for later, not yet checkpoints):\n", len(ps), noun)
	for i, p := range ps {
		if i == briefProposalsShown {
			fmt.Fprintf(&b, "  ... and %d more (`smriti proposals list`)\n", len(ps)-i)
			break
		}
		fmt.Fprintf(&b, "- `%s` %s — from %s on `%s`, %s\n", shortProposal(p.ID), oneLine(textutil.Truncate(p.Title, 120)), p.Source, p.Branch, r.rel(p.CreatedAt))
	}
	first := shortProposal(ps[0].ID)
	fmt.Fprintf(&b, "Review: `smriti proposals show %s`; accept: `smriti proposals accept %s`; reject: `smriti proposals reject %s`\n", first, first, first)
	return b.String()
}

// shortProposal is the id prefix the CLI takes for a proposal.
func shortProposal(id smriti.ID) string { return id.String()[:8] }
