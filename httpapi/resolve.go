package httpapi

import (
	"net/http"
	"strings"

	"smriti"
	"smriti/wire"
)

// resolveRoutes answer what a reference a person typed names — a session,
// a proposal or an item — by the App's one rule, so no client resolves a
// prefix or searches items itself.
func (s *Server) resolveRoutes() []route {
	return []route{
		{method: "GET", path: "/api/v5/sessions/resolve", summary: "Find the session a reference names: its UUID, or a unique prefix (4+ characters) of its id", tag: "sessions",
			query: map[string]string{"ref": "the reference (required)"}, mustQuery: []string{"ref"},
			out: wire.SessionOut{}, status: 200, handle: s.resolveSession, errors: []int{400}},
		{method: "GET", path: "/api/v5/proposals/resolve", summary: "Find a space's proposal a reference names: its UUID, or a unique prefix (4+ characters) of its id", tag: "proposals",
			query: map[string]string{"ref": "the reference (required)", "space_id": "the space (required)"}, mustQuery: []string{"ref", "space_id"},
			out: wire.ProposalOut{}, status: 200, handle: s.resolveProposal, errors: []int{400}},
		{method: "GET", path: "/api/v5/claims/resolve", summary: "Find the claim a reference names: its UUID, or a unique prefix (4+ characters) of its id, among the claims of every space you can see", tag: "coordination",
			query: map[string]string{"ref": "the reference (required)"}, mustQuery: []string{"ref"},
			out: wire.ClaimOut{}, status: 200, handle: s.resolveClaim, errors: []int{400}},
		{method: "GET", path: "/api/v5/items/resolve", summary: "An item's history, the item named by its id, a version's name, or words of its text (matched against the space's head: main's newest checkpoint, else the newest of any branch)", tag: "checkpoints",
			query: map[string]string{"ref": "the reference (required)", "space_id": "the space (required)"}, mustQuery: []string{"ref", "space_id"},
			out: wire.ItemHistoryOut{}, status: 200, handle: s.resolveItem, errors: []int{400}},
	}
}

// refQuery is the required ref query parameter.
func refQuery(r *http.Request, what string) (string, error) {
	ref := strings.TrimSpace(r.URL.Query().Get("ref"))
	if ref == "" {
		return "", smriti.Errorf(smriti.EINVALID, "query parameter ref is required: %s", what)
	}
	return ref, nil
}

func (s *Server) resolveSession(w http.ResponseWriter, r *http.Request) error {
	ref, err := refQuery(r, "a session UUID, or 4+ characters of its id")
	if err != nil {
		return err
	}
	se, err := s.app.ResolveSession(r.Context(), ref)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.SessionOf(se))
	return nil
}

func (s *Server) resolveProposal(w http.ResponseWriter, r *http.Request) error {
	space, err := requiredQueryID(r, "space_id")
	if err != nil {
		return err
	}
	ref, err := refQuery(r, "a proposal UUID, or 4+ characters of its id")
	if err != nil {
		return err
	}
	p, err := s.app.ResolveProposal(r.Context(), space, ref)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.ProposalOf(p))
	return nil
}

func (s *Server) resolveItem(w http.ResponseWriter, r *http.Request) error {
	space, err := requiredQueryID(r, "space_id")
	if err != nil {
		return err
	}
	ref, err := refQuery(r, "an item id, an item@version name, or words of the item's text")
	if err != nil {
		return err
	}
	id, err := s.app.ResolveItem(r.Context(), space, ref)
	if err != nil {
		return err
	}
	at, err := s.app.Item(r.Context(), space, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, itemHistoryOf(at))
	return nil
}

func (s *Server) resolveClaim(w http.ResponseWriter, r *http.Request) error {
	ref, err := refQuery(r, "a claim UUID, or 4+ characters of its id")
	if err != nil {
		return err
	}
	c, err := s.app.ResolveClaim(r.Context(), ref)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.ClaimOf(c))
	return nil
}
