package httpapi

import (
	"errors"
	"io"
	"net/http"
	"smriti/internal/textutil"
	"smriti/wire"
	"strconv"
	"strings"

	"smriti"
)

// DefaultBodyLimit bounds every request body; extract takes up to 200,000
// characters of markdown, which fits with room to spare.
const DefaultBodyLimit = 2 << 20

// decodeBody reads one JSON object from the request into dst. Malformed JSON
// is 400, a value of the wrong type 422, a body over the limit 413. Unknown
// fields are ignored, as the first implementation did.
func (s *Server) decodeBody(w http.ResponseWriter, r *http.Request, dst any) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.bodyLimit))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return smriti.Errorf(smriti.ETOOLARGE, "request body is larger than the %d-byte limit", tooBig.Limit)
		}
		var domain *smriti.Error
		if errors.As(err, &domain) {
			return domain
		}
		return smriti.Errorf(smriti.EINVALID, "could not read the request body: %v", err)
	}
	return wire.DecodeJSON(body, dst)
}

// pathID parses a UUID path parameter; a malformed one is 400.
func pathID(r *http.Request, name string) (smriti.ID, error) {
	return smriti.ParseID(name, r.PathValue(name))
}

// queryID parses an optional UUID query parameter; absent or blank is nil.
func queryID(r *http.Request, name string) (*smriti.ID, error) {
	v := r.URL.Query().Get(name)
	return wire.OptID(name, &v)
}

// requiredQueryID parses a required UUID query parameter.
func requiredQueryID(r *http.Request, name string) (smriti.ID, error) {
	v := r.URL.Query().Get(name)
	if strings.TrimSpace(v) == "" {
		return smriti.NilID, smriti.Errorf(smriti.EUNPROCESSABLE, "query parameter %s is required", name)
	}
	return wire.ReqID(name, &v)
}

// queryBool parses an optional boolean query parameter.
func queryBool(r *http.Request, name string) (bool, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, smriti.Errorf(smriti.EINVALID, "query parameter %s must be true or false, got %q", name, textutil.Truncate(v, 32))
	}
	return b, nil
}

// cursorAliases are older names of the ?after= cursor, still accepted.
var cursorAliases = []string{"after_seq", "cursor"}

// queryPage reads ?limit= and ?after= for keyset-paginated lists: every list
// takes its cursor as ?after=, the value of the previous page's
// X-Next-Cursor header. The older names in cursorAliases are read when
// ?after= is absent.
func queryPage(r *http.Request) (smriti.Page, error) {
	q := r.URL.Query()
	p := smriti.Page{After: q.Get("after")}
	for _, alias := range cursorAliases {
		if p.After == "" {
			p.After = q.Get(alias)
		}
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return p, smriti.Errorf(smriti.EINVALID, "query parameter limit must be an integer from 1 to 1000, got %q", textutil.Truncate(v, 32))
		}
		p.Limit = n
	}
	return p, nil
}

// setNextCursor tells the client where the next page starts.
func setNextCursor(w http.ResponseWriter, next string) {
	if next != "" {
		w.Header().Set("X-Next-Cursor", next)
	}
}

// deref is the value of an optional string field, "" when absent.
func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
