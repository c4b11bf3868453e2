package httpapi

import (
	"encoding/json"
	"net/http"
	"smriti/app"
	"smriti/wire"
	"strconv"

	"smriti"
)

// retryAfterSeconds is the Retry-After of a smriti.ETRYAGAIN answer: long
// enough for a pooler or a failover to reconnect, short enough that a
// client does not give up.
const retryAfterSeconds = "2"

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
	if cc, ok := smriti.ErrorData(err).(*smriti.CommitConflict); ok {
		// A commit's conflicts are top-level fields beside a plain detail,
		// so that a client reading only "detail" still gets a message.
		writeJSON(w, status, cc)
		return
	}
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
	status, ok := wire.StatusByCode[code]
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
