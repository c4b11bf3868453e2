package httpapi

import (
	"net/http"
	"smriti"
	"smriti/internal/textutil"
	"smriti/search"
	"smriti/wire"
	"strconv"
	"strings"
)

// searchGroupRoutes is the grouped search: one result per item.
func (s *Server) searchGroupRoutes() []route {
	return []route{
		{method: "GET", path: "/api/v5/search/grouped", summary: "Full-text search with one result per item: an item carried through many checkpoints is one result listing them",
			tag: "portability", out: wire.SearchGroupsResponse{}, status: 200, query: map[string]string{
				"q": "the words to find (all must match)", "space_id": "only this space", "kind": "checkpoint, turn or note (repeat or comma-separate for several)",
				"branch": "only this branch", "limit": "at most this many results (1–100, default 20)"}, querySchema: map[string]map[string]any{"kind": searchKindSchema}, handle: s.searchGrouped},
	}
}

// searchKindSchema is a search's kind parameter: repeated, each a kind or
// a comma-separated list of kinds.
var searchKindSchema = map[string]any{"type": "array", "items": map[string]any{"type": "string",
	"pattern": "^ *(checkpoint|turn|note) *(, *(checkpoint|turn|note) *)*$", "examples": []string{"checkpoint", "turn,note"}}}

// searchQuery reads a search's query parameters.
func searchQuery(r *http.Request) (search.Query, error) {
	q := r.URL.Query()
	sq := search.Query{Text: q.Get("q"), Branch: q.Get("branch")}
	var err error
	if sq.SpaceID, err = queryID(r, "space_id"); err != nil {
		return sq, err
	}
	for _, k := range q["kind"] {
		for _, part := range strings.Split(k, ",") {
			if part = strings.TrimSpace(part); part != "" {
				sq.Kinds = append(sq.Kinds, part)
			}
		}
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return sq, smriti.Errorf(smriti.EINVALID, "query parameter limit must be an integer, got %q", textutil.Truncate(v, 32))
		}
		sq.Limit = n
	}
	return sq, nil
}

func (s *Server) searchGrouped(w http.ResponseWriter, r *http.Request) error {
	sq, err := searchQuery(r)
	if err != nil {
		return err
	}
	groups, err := s.app.SearchGrouped(r.Context(), sq)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.SearchGroupsResponse{Query: sq.Text, Results: groups})
	return nil
}
