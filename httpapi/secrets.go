package httpapi

import (
	"net/http"

	"smriti"
	"smriti/secretlog"
	"smriti/wire"
)

func (s *Server) secretRoutes() []route {
	return []route{
		{method: "GET", path: "/api/v5/secrets/scan", summary: "Find secrets already stored (before redaction existed, or imported): in one space, or every space the caller can see", tag: "secrets",
			query:  map[string]string{"space_id": "only this space (default: every space the caller can see)"},
			stream: "finding (data: {space_id, kind, id, field, rule, fingerprint}) for each secret as it is found, then done (data: what was scanned and how many were found) or error ({status, detail})",
			status: 200, handle: s.scanSecrets},
		{method: "POST", path: "/api/v5/spaces/{space_id}/secrets/purge", summary: "Purge a stored secret from a space: every value a rule finds, or one value by fingerprint, replaced by the rule's marker wherever the space stores it; checkpoints keep each purged text's digest, so version 3 hashes still verify (owner only; audited)", tag: "secrets",
			in: wire.SecretPurgeRequest{}, out: secretlog.SecretPurge{}, status: 200, handle: s.purgeSecrets},
		{method: "GET", path: "/api/v5/spaces/{space_id}/secrets/allowlist", summary: "The values a space keeps although they look like secrets, oldest first", tag: "secrets",
			out: []secretlog.SecretAllow{}, status: 200, handle: s.secretAllowlist},
		{method: "POST", path: "/api/v5/spaces/{space_id}/secrets/allowlist", summary: "Keep one value that only looks like a secret (a test fixture's fake key) in a space, by its rule and fingerprint: every door lets it through there (owner only)", tag: "secrets",
			in: wire.SecretAllowRequest{}, out: secretlog.SecretAllow{}, status: 201, handle: s.allowSecret},
		{method: "DELETE", path: "/api/v5/spaces/{space_id}/secrets/allowlist/{rule}/{fingerprint}", summary: "Take a value off a space's allowlist: every door redacts it again (owner only)", tag: "secrets",
			paths:  map[string]string{"rule": "the rule that finds the value", "fingerprint": "the value's fingerprint (16 hex digits)"},
			status: 204, handle: s.removeSecretAllow},
	}
}

func (s *Server) purgeSecrets(w http.ResponseWriter, r *http.Request) error {
	space, err := pathID(r, "space_id")
	if err != nil {
		return err
	}
	var req wire.SecretPurgeRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	p, err := s.app.PurgeSecrets(r.Context(), space, req.Rule, req.Fingerprint, req.Full)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, p)
	return nil
}

func (s *Server) secretAllowlist(w http.ResponseWriter, r *http.Request) error {
	space, err := pathID(r, "space_id")
	if err != nil {
		return err
	}
	list, err := s.app.SecretAllowlist(r.Context(), space)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, list)
	return nil
}

func (s *Server) allowSecret(w http.ResponseWriter, r *http.Request) error {
	space, err := pathID(r, "space_id")
	if err != nil {
		return err
	}
	var req wire.SecretAllowRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	a, err := s.app.AllowSecret(r.Context(), space, req.Rule, req.Fingerprint)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, a)
	return nil
}

func (s *Server) removeSecretAllow(w http.ResponseWriter, r *http.Request) error {
	space, err := pathID(r, "space_id")
	if err != nil {
		return err
	}
	if err := s.app.RemoveSecretAllow(r.Context(), space, r.PathValue("rule"), r.PathValue("fingerprint")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) scanSecrets(w http.ResponseWriter, r *http.Request) error {
	var space *smriti.ID
	if v := r.URL.Query().Get("space_id"); v != "" {
		id, err := wire.ReqID("space_id", &v)
		if err != nil {
			return err
		}
		space = &id
	}
	es, err := newEventStream(w)
	if err != nil {
		return err
	}
	read, err := s.app.ScanSecrets(r.Context(), space, func(f secretlog.StoredSecret) error { return es.send("finding", f) })
	if err != nil {
		return s.failStream(es, r, err)
	}
	return es.send("done", read)
}
