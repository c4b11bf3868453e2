package httpapi

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"smriti/internal/textutil"
	"smriti/portability"
	"smriti/wire"

	"smriti"
)

// DefaultImportBodyLimit bounds the body of the two import routes, which
// take whole export files. Neither holds the body in memory: a transcript is
// parsed as it streams in, a bundle is spooled to a temporary file, checked,
// and then written.
const DefaultImportBodyLimit = 1 << 30

func (s *Server) portabilityRoutes() []route {
	return []route{
		{method: "POST", path: "/api/v5/import/transcript", summary: "Import a transcript file (ChatGPT or Claude conversations.json, or a markdown/text transcript) as sessions of a space; the body is the file itself",
			tag: "portability", out: wire.TranscriptImportResponse{}, status: 200, mustQuery: []string{"space_id"},
			files: []string{"application/json", "application/octet-stream"}, query: map[string]string{
				"space_id": "the space to import into (required)", "draft": "true to draft and commit a checkpoint after each imported conversation",
				"format":      "claude-code or codex for a coding agent's JSON Lines transcript (appended to the space's session for that agent session, only new entries); empty to detect a chat export or markdown",
				"session_key": "with format: the agent's session id, when the file does not name it",
				"filename":    "the file's name, for reports and the title of a markdown transcript"}, handle: s.importTranscript, idempotent: true},
		{method: "GET", path: "/api/v5/spaces/{space_id}/export", summary: "Export a space as a bundle (gzip'd JSON Lines, application/gzip; see docs/bundle-format.md)",
			tag: "portability", status: 200, text: "application/gzip", errors: []int{422}, handle: s.exportSpace},
		{method: "POST", path: "/api/v5/spaces/import", summary: "Recreate a space from a bundle (the body, application/gzip): same ids and hashes, or new ones with as_new",
			tag: "portability", out: wire.SpaceImportResponse{}, status: 201,
			files: []string{"application/gzip", "application/octet-stream"}, query: map[string]string{
				"as_new": "true to give everything new ids and recompute the hashes (lineage kept)"}, handle: s.importSpace, idempotent: true},
		{method: "GET", path: "/api/v5/search", summary: "Full-text search over checkpoints, notes and turns, ranked, with highlighted snippets",
			tag: "portability", out: wire.SearchResponse{}, status: 200, query: map[string]string{
				"q": "the words to find (all must match)", "space_id": "only this space", "kind": "checkpoint, turn or note (repeat or comma-separate for several)",
				"branch": "only this branch", "limit": "at most this many results (1–100, default 20)"}, querySchema: map[string]map[string]any{"kind": searchKindSchema}, handle: s.search},
	}
}

func (s *Server) importLimit() int64 {
	if s.cfg.ImportBodyLimit > 0 {
		return s.cfg.ImportBodyLimit
	}
	return DefaultImportBodyLimit
}

// importBody bounds an import body; a declared length over the limit is
// refused before a byte is read.
func (s *Server) importBody(w http.ResponseWriter, r *http.Request) (io.Reader, error) {
	limit := s.importLimit()
	if r.ContentLength > limit {
		return nil, smriti.Errorf(smriti.ETOOLARGE, "request body of %d bytes is larger than the %d-byte import limit", r.ContentLength, limit)
	}
	return &importReader{r: http.MaxBytesReader(w, r.Body, limit)}, nil
}

// importReader turns the body limit's error into the domain's.
type importReader struct{ r io.Reader }

func (b *importReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return n, smriti.Errorf(smriti.ETOOLARGE, "request body is larger than the %d-byte import limit", tooBig.Limit)
	}
	return n, err
}

func (s *Server) importTranscript(w http.ResponseWriter, r *http.Request) error {
	spaceID, err := requiredQueryID(r, "space_id")
	if err != nil {
		return err
	}
	draft, err := queryBool(r, "draft")
	if err != nil {
		return err
	}
	if _, err := s.app.Space(r.Context(), spaceID); err != nil {
		return err
	}
	body, err := s.importBody(w, r)
	if err != nil {
		return err
	}
	if format := r.URL.Query().Get("format"); format != "" {
		return s.importAgentTranscript(w, r, spaceID, format, body)
	}
	convs, err := s.app.ImportTranscripts(r.Context(), body, portability.TranscriptImport{SpaceID: spaceID, Filename: r.URL.Query().Get("filename"), Draft: draft})
	if err != nil {
		return err
	}
	out := wire.TranscriptImportResponse{SpaceID: spaceID, Conversations: convs}
	for _, c := range convs {
		switch c.Status {
		case portability.ImportImported:
			out.Imported++
		case portability.ImportUnchanged:
			out.Unchanged++
		default:
			out.Failed++
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) importAgentTranscript(w http.ResponseWriter, r *http.Request, spaceID smriti.ID, format string, body io.Reader) error {
	if !portability.ValidAgentFormat(format) {
		return smriti.Errorf(smriti.EINVALID, "query parameter format must be claude-code or codex, got %q", textutil.Truncate(format, 40))
	}
	q := r.URL.Query()
	res, err := s.app.ImportAgentTranscript(r.Context(), body, portability.AgentImport{SpaceID: spaceID, Format: format,
		Filename: q.Get("filename"), SessionKey: q.Get("session_key")})
	if err != nil {
		return err
	}
	status := portability.ImportImported
	if res.Added == 0 {
		status = portability.ImportUnchanged
	}
	sid := res.SessionID
	out := wire.TranscriptImportResponse{SpaceID: spaceID, Conversations: []portability.ImportedConversation{{
		Index: 0, Title: q.Get("filename"), Source: format, Status: status, SessionID: &sid, Turns: res.Added}},
		Agent: &wire.AgentImport{Source: format, SessionKey: res.SessionKey, SessionID: res.SessionID, Created: res.Created,
			Added: res.Added, Unchanged: res.Unchanged, Lines: res.Lines, Skipped: res.Skipped, Truncated: res.Truncated}}
	if res.Added > 0 {
		out.Imported = 1
	} else {
		out.Unchanged = 1
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) exportSpace(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "space_id")
	if err != nil {
		return err
	}
	// Errors before the first byte still get a JSON answer: check the
	// space first, then stream.
	if _, err := s.app.Space(r.Context(), id); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/gzip")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="space-%s.smriti.jsonl.gz"`, id))
	return s.app.ExportSpace(r.Context(), id, w)
}

func (s *Server) importSpace(w http.ResponseWriter, r *http.Request) error {
	asNew, err := queryBool(r, "as_new")
	if err != nil {
		return err
	}
	body, err := s.importBody(w, r)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp("", "smriti-bundle-*")
	if err != nil {
		return fmt.Errorf("spool bundle: %w", err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	n, err := io.Copy(f, body)
	if err != nil {
		if smriti.ErrorCode(err) != smriti.EINTERNAL {
			return err
		}
		return smriti.Errorf(smriti.EINVALID, "could not read the request body: %v", err)
	}
	if n == 0 {
		return smriti.Errorf(smriti.EINVALID, "request body is empty; send a space bundle (application/gzip)")
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("spool bundle: %w", err)
	}
	sp, counts, err := s.app.ImportSpace(r.Context(), f, asNew)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, wire.SpaceImportResponse{Repo: wire.RepoOf(sp), Counts: *counts, AsNew: asNew})
	return nil
}

func (s *Server) search(w http.ResponseWriter, r *http.Request) error {
	sq, err := searchQuery(r)
	if err != nil {
		return err
	}
	hits, err := s.app.Search(r.Context(), sq)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.SearchResponse{Query: sq.Text, Results: hits})
	return nil
}
