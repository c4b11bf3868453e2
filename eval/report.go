package eval

import (
	"fmt"
	"strings"
)

// Row is one scenario's result: Smriti's score and the baselines'.
type Row struct {
	Scenario    string `json:"scenario"`
	File        string `json:"file"`
	Hash        string `json:"hash"`
	Turns       int    `json:"turns"`
	Saves       int    `json:"checkpoints"`
	Smriti      Score  `json:"smriti"`
	FullContext *Score `json:"full_context,omitempty"`
	Notes       *Score `json:"notes_file,omitempty"`
	// Drafts is each of Smriti's draft requests, in script order.
	Drafts []DraftCost `json:"drafts"`
}

// Report is a whole eval run.
type Report struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Version  string `json:"smriti_version"`
	// Window is the context window the full-context baseline was cut to.
	Window      int    `json:"window_tokens"`
	Rows        []Row  `json:"scenarios"`
	Overall     Score  `json:"overall"`
	FullContext *Score `json:"full_context,omitempty"`
	Notes       *Score `json:"notes_file,omitempty"`
}

// Finish computes the totals.
func (r *Report) Finish() {
	var smriti, full, notes []Score
	for _, row := range r.Rows {
		smriti = append(smriti, row.Smriti)
		if row.FullContext != nil {
			full = append(full, *row.FullContext)
		}
		if row.Notes != nil {
			notes = append(notes, *row.Notes)
		}
	}
	r.Overall = Total(smriti)
	if len(full) > 0 {
		t := Total(full)
		r.FullContext = &t
	}
	if len(notes) > 0 {
		t := Total(notes)
		r.Notes = &t
	}
}

// Markdown renders the report as two tables: Smriti's measures per
// scenario, then recall and precision beside the two baselines'.
func (r *Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Provider `%s`, model `%s`, Smriti `%s`; %d scenarios.\n\n", r.Provider, r.Model, r.Version, len(r.Rows))
	b.WriteString("| scenario | hash | turns | ckpts | recall | precision | lost | stale | dup | unexpected | conflicts right/found/expected | leaks | missing | provenance | prime tok | draft in-tok (max) | drafts | draft ms |\n")
	b.WriteString("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	line := func(name, hash string, turns, saves string, s Score) {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %.3f | %.3f | %d | %d | %d | %d | %d/%d/%d | %d | %d | %.3f | %d | %d (%d) | %d | %d |\n",
			name, hash, turns, saves, s.Recall, s.Precision, s.Lost, s.Stale, s.Duplicated, s.Unexpected,
			s.ConflictsMatched, s.ConflictsFound, s.ConflictsExpected, s.Leaks, s.Missing, s.Provenance, s.PrimeTokens,
			s.DraftTokens, s.DraftTokensMax, s.Drafts, s.DraftWall.Milliseconds())
	}
	turns, saves := 0, 0
	for _, row := range r.Rows {
		line(row.Scenario, "`"+row.Hash+"`", fmt.Sprint(row.Turns), fmt.Sprint(row.Saves), row.Smriti)
		turns += row.Turns
		saves += row.Saves
	}
	line("**overall**", "", fmt.Sprint(turns), fmt.Sprint(saves), r.Overall)
	for _, row := range r.Rows {
		if row.Smriti.Err != "" {
			fmt.Fprintf(&b, "\n%s failed: %s\n", row.Scenario, row.Smriti.Err)
		}
	}
	if r.FullContext == nil && r.Notes == nil {
		return b.String()
	}
	fmt.Fprintf(&b, "\nBaselines, same model and scenarios: full context (no checkpoints; the whole transcript of what reached main, newest turns kept within %d tokens) and notes file (an append-only list of what each draft said, each draft given no state).\n\n", r.Window)
	b.WriteString("| scenario | Smriti recall / precision | full context recall / precision | lost | notes file recall / precision | dup | stale | unexpected |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|\n")
	base := func(name string, s Score, full, notes *Score) {
		fc, fl, nf, nd, ns, nu := "–", "–", "–", "–", "–", "–"
		if full != nil {
			fc, fl = fmt.Sprintf("%.3f / %.3f", full.Recall, full.Precision), fmt.Sprint(full.Lost)
		}
		if notes != nil {
			nf, nd, ns, nu = fmt.Sprintf("%.3f / %.3f", notes.Recall, notes.Precision), fmt.Sprint(notes.Duplicated), fmt.Sprint(notes.Stale), fmt.Sprint(notes.Unexpected)
		}
		fmt.Fprintf(&b, "| %s | %.3f / %.3f | %s | %s | %s | %s | %s | %s |\n", name, s.Recall, s.Precision, fc, fl, nf, nd, ns, nu)
	}
	for _, row := range r.Rows {
		base(row.Scenario, row.Smriti, row.FullContext, row.Notes)
	}
	base("**overall**", r.Overall, r.FullContext, r.Notes)
	return b.String()
}
