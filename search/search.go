// Package search finds a caller's checkpoints, notes and turns by their
// words: the query and its rules, the hit, and the word folding and
// snippets both database engines share so they answer alike. The store
// implements Service.
//
// It imports the domain (smriti) only.
package search

import (
	"context"
	"smriti"
	"smriti/internal/textutil"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Result kinds.
const (
	KindCheckpoint = "checkpoint"
	KindTurn       = "turn"
	KindNote       = "note"
)

// Limits of a query and its answer.
const (
	maxSearchQueryChars = 500
	maxSearchTerms      = 16
	defaultSearchLimit  = 20
	maxSearchLimit      = 100
	// snippetWords is how many words a snippet shows around the first match.
	snippetWords = 24
)

// Snippet highlight markers. The text between them is not escaped: a client
// rendering HTML escapes the snippet first and then turns the markers into
// tags.
const (
	HighlightStart = "<mark>"
	HighlightEnd   = "</mark>"
)

// Query asks for the caller's checkpoints, notes and turns matching
// every term of Text.
type Query struct {
	Text string
	// SpaceID narrows the search to one space.
	SpaceID *smriti.ID
	// Kinds narrows it to some result kinds (all when empty).
	Kinds []string
	// Branch keeps only checkpoints, notes and turns of that branch.
	Branch string
	Limit  int
}

// Terms returns the query's search terms: words as the indexes tokenize them
// (letters and digits, case and diacritics folded), at most maxSearchTerms.
func (q Query) Terms() []string { return Terms(q.Text) }

// Validate checks the query and fills defaults.
func (q *Query) Validate() error {
	if strings.TrimSpace(q.Text) == "" {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "q is required")
	}
	if utf8.RuneCountInString(q.Text) > maxSearchQueryChars {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "q must be at most %d characters", maxSearchQueryChars)
	}
	if len(q.Terms()) == 0 {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "q has no words to search for")
	}
	for _, k := range q.Kinds {
		if k != KindCheckpoint && k != KindTurn && k != KindNote {
			return smriti.Errorf(smriti.EUNPROCESSABLE, "kind must be checkpoint, turn or note, not %q", textutil.Truncate(k, 32))
		}
	}
	if q.Limit == 0 {
		q.Limit = defaultSearchLimit
	}
	if q.Limit < 1 || q.Limit > maxSearchLimit {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "limit must be from 1 to %d", maxSearchLimit)
	}
	return nil
}

// Wants reports whether the query asks for results of kind.
func (q Query) Wants(kind string) bool {
	if len(q.Kinds) == 0 {
		return true
	}
	for _, k := range q.Kinds {
		if k == kind {
			return true
		}
	}
	return false
}

// SearchHit is one search result (named so on the wire: the OpenAPI
// document names its schema after the Go type). CheckpointID, Hash and Branch name the
// checkpoint the hit is (kind checkpoint) or annotates (kind note); a turn
// carries its session and sequence number and its session's branch.
type SearchHit struct {
	Kind         string     `json:"kind" doc:"checkpoint, turn or note"`
	ID           smriti.ID  `json:"id" doc:"The checkpoint, turn or note found"`
	SpaceID      smriti.ID  `json:"space_id" doc:"The space (UUID)"`
	CheckpointID *smriti.ID `json:"checkpoint_id" doc:"The checkpoint (of a checkpoint or a note; null for a turn)"`
	CommitHash   *string    `json:"commit_hash" doc:"Its hash (null for a turn)"`
	Branch       string     `json:"branch" doc:"The branch it is on"`
	SessionID    *smriti.ID `json:"session_id" doc:"The turn's session (null otherwise)"`
	Seq          *int64     `json:"sequence_number" doc:"The turn's sequence number (null otherwise)"`
	Title        string     `json:"title" doc:"The checkpoint's title, or the session's for a turn"`
	Snippet      string     `json:"snippet" doc:"About 24 words around the first match, each matching word between <mark> and </mark>; the rest is not escaped (escape it, then turn the markers back)"`
	// Score orders hits, higher first. It is comparable within one search
	// only.
	Score float64 `json:"score" doc:"Relevance, higher first; comparable within one search only"`
	// ItemVersion is set when the query was an item version's name.
	ItemVersion *string `json:"item_version" doc:"The full item@version name when the query was one (the hit is then the checkpoint that introduced that version, and the snippet the version's text); null otherwise"`
	// Text is what the snippet was cut from; not sent.
	Text string `json:"-"`
}

// Service finds the caller's state by its words.
type Service interface {
	// Search returns the best hits for q, best first, only from spaces the
	// caller owns ([] when nothing matches). EUNPROCESSABLE for an invalid
	// query; ENOTFOUND for a space the caller may not see.
	Search(ctx context.Context, q Query) ([]*SearchHit, error)
}

// CheckpointText is the text of a checkpoint the search indexes: its fields in
// the order they are shown.
func CheckpointText(c *smriti.Checkpoint) string {
	parts := []string{c.Message, c.Objective, c.Summary}
	parts = append(parts, c.Decisions...)
	parts = append(parts, c.Assumptions...)
	for _, t := range c.Tasks {
		parts = append(parts, t.Text)
	}
	parts = append(parts, c.OpenQuestions...)
	parts = append(parts, c.Entities...)
	for _, a := range c.Artifacts {
		parts = append(parts, a.Label, a.Content)
	}
	var b strings.Builder
	for _, p := range parts {
		if strings.TrimSpace(p) == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(" · ")
		}
		b.WriteString(p)
	}
	return b.String()
}

// Terms splits text into the words the indexes match: runs of letters
// and digits, lower-cased with diacritics removed, de-duplicated, at most
// maxSearchTerms.
func Terms(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range splitWords(text) {
		f := foldWord(w.text)
		if f == "" || seen[f] {
			continue
		}
		seen[f] = true
		out = append(out, f)
		if len(out) == maxSearchTerms {
			break
		}
	}
	return out
}

type textWord struct {
	text       string
	start, end int // byte offsets
}

func splitWords(text string) []textWord {
	var out []textWord
	start := -1
	for i, r := range text {
		in := unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
		switch {
		case in && start < 0:
			start = i
		case !in && start >= 0:
			out = append(out, textWord{text[start:i], start, i})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, textWord{text[start:], start, len(text)})
	}
	return out
}

// foldWord lower-cases w and strips combining marks, as the SQLite
// tokenizer's remove_diacritics does.
func foldWord(w string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(strings.ToLower(w)) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Snippet cuts a window of about snippetWords words from text around the
// first word matching a term (the start when none does) and wraps every
// matching word in the highlight markers. It is computed here, not by the
// database, so both engines show the same snippet for the same text.
func Snippet(text string, terms []string) string {
	ws := splitWords(text)
	if len(ws) == 0 {
		return ""
	}
	want := make(map[string]bool, len(terms))
	for _, t := range terms {
		want[t] = true
	}
	match := make([]bool, len(ws))
	first := -1
	for i, w := range ws {
		if want[foldWord(w.text)] {
			match[i] = true
			if first < 0 {
				first = i
			}
		}
	}
	from := 0
	if first > snippetWords/3 {
		from = first - snippetWords/3
	}
	to := from + snippetWords
	if to > len(ws) {
		to = len(ws)
		if from = to - snippetWords; from < 0 {
			from = 0
		}
	}
	var b strings.Builder
	if from > 0 {
		b.WriteString("…")
	}
	// From the start of the text, what precedes the first word stays: an
	// opening quote, a bracket, "#" of "#42".
	pos := 0
	if from > 0 {
		pos = ws[from].start
	}
	for i := from; i < to; i++ {
		w := ws[i]
		b.WriteString(collapseSpace(text[pos:w.start]))
		if match[i] {
			b.WriteString(HighlightStart + w.text + HighlightEnd)
		} else {
			b.WriteString(w.text)
		}
		pos = w.end
	}
	if to < len(ws) {
		b.WriteString(strings.TrimRightFunc(collapseSpace(text[pos:ws[to].start]), unicode.IsSpace))
		b.WriteString("…")
	} else {
		b.WriteString(collapseSpace(text[pos:]))
	}
	return strings.TrimSpace(b.String())
}

// collapseSpace keeps the punctuation between two words but turns every run
// of white space (newlines included) into one space.
func collapseSpace(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	if space {
		b.WriteByte(' ')
	}
	return b.String()
}
