package httpapi

import (
	"net/http"

	"smriti"
	"smriti/wire"
)

func (s *Server) secretRoutes() []route {
	return []route{
		{method: "GET", path: "/api/v5/secrets/scan", summary: "Find secrets already stored (before redaction existed, or imported): in one space, or every space the caller can see", tag: "secrets",
			query:  map[string]string{"space_id": "only this space (default: every space the caller can see)"},
			stream: "finding (data: {space_id, kind, id, field, rule, fingerprint}) for each secret as it is found, then done (data: what was scanned and how many were found) or error ({status, detail})",
			status: 200, handle: s.scanSecrets},
	}
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
	read, err := s.app.ScanSecrets(r.Context(), space, func(f smriti.StoredSecret) error { return es.send("finding", f) })
	if err != nil {
		return s.failStream(es, r, err)
	}
	return es.send("done", read)
}
