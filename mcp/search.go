package mcp

import (
	"context"
	"fmt"
	"smriti/app"
	"smriti/internal/textutil"
	"smriti/search"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Searcher is what smriti_search needs; the tool is offered when the Ops
// implementation has it.
type Searcher interface {
	Search(ctx context.Context, q search.Query) ([]*search.SearchHit, error)
}

// The in-process tools search through the App.
var _ Searcher = (*app.App)(nil)

type searchIn struct {
	Query  string `json:"query" jsonschema:"words; all must match"`
	Space  string `json:"space,omitempty" jsonschema:"name or UUID (default all)"`
	Kind   string `json:"kind,omitempty" jsonschema:"checkpoint, turn or note (default all)"`
	Branch string `json:"branch,omitempty" jsonschema:"only this branch"`
	Limit  int    `json:"limit,omitempty" jsonschema:"1-100, default 20"`
}

func (t *tools) registerSearch(s *sdk.Server) {
	sr, ok := t.ops.(Searcher)
	if !ok {
		return
	}
	add(t, s, "smriti_search", "Full-text search of checkpoints, notes and turns; best first.",
		readOnly, func(ctx context.Context, in searchIn) (string, error) {
			q := search.Query{Text: in.Query, Branch: in.Branch, Limit: in.Limit}
			if in.Kind != "" {
				q.Kinds = []string{in.Kind}
			}
			if in.Space != "" {
				sp, err := t.space(ctx, in.Space)
				if err != nil {
					return "", err
				}
				q.SpaceID = &sp.ID
			}
			hits, err := sr.Search(ctx, q)
			if err != nil {
				return "", err
			}
			return formatSearchHits(in.Query, hits), nil
		})
}

func formatSearchHits(query string, hits []*search.SearchHit) string {
	if len(hits) == 0 {
		return fmt.Sprintf("Nothing matches %q.", query)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d result(s) for %q:\n", len(hits), query)
	mark := strings.NewReplacer(search.HighlightStart, "**", search.HighlightEnd, "**")
	for _, h := range hits {
		where := h.Branch
		if h.CommitHash != nil {
			where += "@" + textutil.ShortHash(*h.CommitHash)
		}
		if h.SessionID != nil && h.Seq != nil {
			where += fmt.Sprintf(", session %s turn %d", h.SessionID, *h.Seq)
		}
		id := h.ID.String()
		if h.CheckpointID != nil {
			id = h.CheckpointID.String()
		}
		fmt.Fprintf(&b, "\n- [%s] %s (%s) `%s`\n  %s", h.Kind, h.Title, where, id, mark.Replace(h.Snippet))
	}
	return b.String()
}
