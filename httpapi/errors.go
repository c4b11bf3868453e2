package httpapi

import (
	"encoding/json"
	"net/http"
	"smriti/app"
	"strconv"

	"smriti"
)

// statusOf is the one table from domain error codes to HTTP statuses.
var statusOf = map[string]int{
	smriti.EINVALID:          http.StatusBadRequest,
	smriti.EUNAUTHORIZED:     http.StatusUnauthorized,
	smriti.EFORBIDDEN:        http.StatusForbidden,
	smriti.ENOTFOUND:         http.StatusNotFound,
	smriti.ECONFLICT:         http.StatusConflict,
	smriti.ETOOLARGE:         http.StatusRequestEntityTooLarge,
	smriti.EUNPROCESSABLE:    http.StatusUnprocessableEntity,
	smriti.EINTERNAL:         http.StatusInternalServerError,
	smriti.ENOTIMPLEMENTED:   http.StatusNotImplemented,
	smriti.EUPSTREAM:         http.StatusBadGateway,
	smriti.EUNAVAILABLE:      http.StatusServiceUnavailable,
	smriti.EUNSUPPORTEDMEDIA: http.StatusUnsupportedMediaType,
	smriti.EMISDIRECTED:      http.StatusMisdirectedRequest,
	smriti.ETIMEOUT:          http.StatusRequestTimeout,
	smriti.ETOOMANY:          http.StatusTooManyRequests,
	smriti.ETRYAGAIN:         http.StatusServiceUnavailable,
}

// retryAfterSeconds is the Retry-After of a smriti.ETRYAGAIN answer: long
// enough for a pooler or a failover to reconnect, short enough that a
// client does not give up.
const retryAfterSeconds = "2"

// codeOf maps a status back to a domain code; the client uses it so the CLI
// and MCP report the error the server meant.
func codeOf(status int) string {
	if status == http.StatusServiceUnavailable {
		return smriti.EUNAVAILABLE // the client reads ETRYAGAIN from a Retry-After
	}
	for code, s := range statusOf {
		if s == status {
			return code
		}
	}
	switch {
	case status == http.StatusMethodNotAllowed:
		return smriti.EINVALID
	case status >= 500:
		return smriti.EINTERNAL
	default:
		return smriti.EINVALID
	}
}

// ErrorBody is every error answer: {"detail": "..."}, or an object detail
// where the reference says so (the 409 on deleting a checkpoint with
// dependents).
type ErrorBody struct {
	Detail any `json:"detail"`
}

// writeError answers with err as a JSON error body.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	err = s.store.Classify(err)
	status, body := s.errorAnswer(r, err)
	if smriti.ErrorCode(err) == smriti.ETRYAGAIN {
		w.Header().Set("Retry-After", retryAfterSeconds)
	}
	if secs := app.RetryAfter(err); secs > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(secs))
	}
	writeJSON(w, status, body)
}

// errorAnswer is the status and body that report err, whether as a JSON
// answer or as a stream's error event. It logs internal errors and counts
// every error by code.
func (s *Server) errorAnswer(r *http.Request, err error) (int, ErrorBody) {
	err = s.store.Classify(err)
	code := smriti.ErrorCode(err)
	status, ok := statusOf[code]
	if !ok {
		status = http.StatusInternalServerError
	}
	if code == smriti.ETRYAGAIN {
		s.log.WarnContext(r.Context(), "database unavailable", "err", err, "method", r.Method, "path", r.URL.Path, "request_id", requestID(r.Context()))
	}
	if code == smriti.EINTERNAL {
		s.log.ErrorContext(r.Context(), "internal error", "err", err, "method", r.Method, "path", r.URL.Path, "request_id", requestID(r.Context()))
	}
	var detail any = smriti.ErrorMessage(err)
	if data := smriti.ErrorData(err); data != nil {
		detail = data
	}
	s.metrics.errors.WithLabelValues(code).Inc()
	return status, ErrorBody{Detail: detail}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}
