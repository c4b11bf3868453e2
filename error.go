package smriti

import (
	"errors"
	"fmt"
)

// Error codes. The HTTP layer maps each to one status in a single table and
// the Go client maps statuses back, so the CLI and MCP report the same error
// the server meant.
const (
	ECONFLICT       = "conflict"        // 409
	EINTERNAL       = "internal"        // 500
	EINVALID        = "invalid"         // 400: malformed input (bad UUID, bad JSON)
	EUNPROCESSABLE  = "unprocessable"   // 422: well-formed but fails validation
	ENOTFOUND       = "not_found"       // 404 (also for things the caller may not see)
	EUNAUTHORIZED   = "unauthorized"    // 401
	EFORBIDDEN      = "forbidden"       // 403
	ETOOLARGE       = "too_large"       // 413
	EUPSTREAM       = "upstream"        // 502: the LLM provider failed or answered nonsense
	EUNAVAILABLE    = "unavailable"     // 503: a needed provider is not configured
	ENOTIMPLEMENTED = "not_implemented" // 501
	// Codes a transport raises about the request itself rather than the
	// domain; they still travel as domain errors so the client can name them.
	EUNSUPPORTEDMEDIA = "unsupported_media" // 415: a body that is not JSON
	EMISDIRECTED      = "misdirected"       // 421: a Host this server does not serve
	ETIMEOUT          = "timeout"           // 408: the request body arrived too slowly
	ETOOMANY          = "too_many"          // 429: a rate limit; Data carries the wait
	// ETRYAGAIN is a database that cannot serve right now but should soon:
	// unreachable, restarting, failing over, read-only or past its
	// deadline. Nothing was written, or what was is reported as written;
	// the request may be sent again after Retry-After.
	ETRYAGAIN = "try_again" // 503 with Retry-After
)

// Error is the domain's error: a code, a message meant for the user, and
// optional structured data (for example the dependents of a checkpoint that
// cannot be deleted).
type Error struct {
	Code    string
	Message string
	// Data, when set, is sent to clients in place of the plain message
	// (the wire format allows an object "detail" for a few errors).
	Data any
	// Err is the cause, for logs; it is never shown to the user.
	Err error
}

func (e *Error) Error() string { return e.Message }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, EINTERNAL for
// any other non-nil error, and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the user-facing message of err. Errors that are not
// *Error are internal and never shown in detail.
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "internal error"
}

// ErrorData returns the structured data of the first *Error in err's chain.
func ErrorData(err error) any {
	var e *Error
	if errors.As(err, &e) {
		return e.Data
	}
	return nil
}
