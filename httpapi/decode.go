package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"unicode"

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
	return DecodeJSON(body, dst)
}

// DecodeJSON decodes one JSON object from body into dst, turning decoder
// errors into domain errors with a message that names the problem.
func DecodeJSON(body []byte, dst any) error {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return smriti.Errorf(smriti.EINVALID, "request body is empty; send a JSON object")
	}
	if trimmed[0] != '{' {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "request body must be a JSON object")
	}
	if err := smriti.CheckJSONText(trimmed); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if err := dec.Decode(dst); err != nil {
		return jsonError(err)
	}
	if dec.More() {
		return smriti.Errorf(smriti.EINVALID, "request body has data after the JSON object")
	}
	return nil
}

// wireField is a decoder's field path without the names of embedded Go
// structs ("ContentFields.message" is "message"): the wire's names are
// lower-case, Go's are not, and a client should never see a Go name.
func wireField(path string) string {
	var keep []string
	for _, seg := range strings.Split(path, ".") {
		if seg != "" && !unicode.IsUpper([]rune(seg)[0]) {
			keep = append(keep, seg)
		}
	}
	return strings.Join(keep, ".")
}

func jsonError(err error) error {
	var domain *smriti.Error
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &domain):
		return domain
	case errors.As(err, &syntax):
		return smriti.Errorf(smriti.EINVALID, "malformed JSON at byte %d: %v", syntax.Offset, syntax)
	case errors.As(err, &typ):
		field := wireField(typ.Field)
		if field == "" {
			field = "body"
		}
		return smriti.Errorf(smriti.EUNPROCESSABLE, "%s: expected %s, got %s", field, describeType(typ.Type.String()), typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return smriti.Errorf(smriti.EINVALID, "malformed JSON: the body ends too early")
	}
	return smriti.Errorf(smriti.EINVALID, "malformed JSON: %v", err)
}

func describeType(t string) string {
	switch {
	case t == "[]string":
		return "an array of strings"
	case strings.HasPrefix(t, "[]"):
		return "an array of " + describeType(t[2:])
	case t == "string", t == "*string":
		return "a string"
	case strings.Contains(t, "int"):
		return "an integer"
	case t == "bool", t == "*bool":
		return "a boolean"
	case strings.HasPrefix(t, "map["), strings.Contains(t, "Artifact"):
		return "an object"
	}
	return t
}

// pathID parses a UUID path parameter; a malformed one is 400.
func pathID(r *http.Request, name string) (smriti.ID, error) {
	return smriti.ParseID(name, r.PathValue(name))
}

// optID parses an optional UUID from a request field; "" and null are absent.
func optID(field string, v *string) (*smriti.ID, error) {
	if v == nil || strings.TrimSpace(*v) == "" {
		return nil, nil
	}
	id, err := smriti.ParseID(field, strings.TrimSpace(*v))
	if err != nil {
		return nil, err
	}
	return &id, nil
}

// queryID parses an optional UUID query parameter; absent or blank is nil.
func queryID(r *http.Request, name string) (*smriti.ID, error) {
	v := r.URL.Query().Get(name)
	return optID(name, &v)
}

// requiredQueryID parses a required UUID query parameter.
func requiredQueryID(r *http.Request, name string) (smriti.ID, error) {
	v := r.URL.Query().Get(name)
	if strings.TrimSpace(v) == "" {
		return smriti.NilID, smriti.Errorf(smriti.EUNPROCESSABLE, "query parameter %s is required", name)
	}
	return reqID(name, &v)
}

// reqID parses a required UUID field.
func reqID(field string, v *string) (smriti.ID, error) {
	id, err := optID(field, v)
	if err != nil {
		return smriti.NilID, err
	}
	if id == nil {
		return smriti.NilID, smriti.Errorf(smriti.EUNPROCESSABLE, "%s is required", field)
	}
	return *id, nil
}

// queryBool parses an optional boolean query parameter.
func queryBool(r *http.Request, name string) (bool, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, smriti.Errorf(smriti.EINVALID, "query parameter %s must be true or false, got %q", name, smriti.Truncate(v, 32))
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
			return p, smriti.Errorf(smriti.EINVALID, "query parameter limit must be an integer from 1 to 1000, got %q", smriti.Truncate(v, 32))
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

func fieldTooLong(field string, max int) error {
	return smriti.Errorf(smriti.EUNPROCESSABLE, "%s must be at most %d characters", field, max)
}

// deref is the value of an optional string field, "" when absent.
func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
