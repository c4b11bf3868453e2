package wire

import (
	"net/http"

	"smriti"
)

// statusOf is the one table from domain error codes to HTTP statuses.
var StatusByCode = map[string]int{
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

// codeOf maps a status back to a domain code; the client uses it so the CLI
// and MCP report the error the server meant.
func CodeOf(status int) string {
	if status == http.StatusServiceUnavailable {
		return smriti.EUNAVAILABLE // the client reads ETRYAGAIN from a Retry-After
	}
	for code, s := range StatusByCode {
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
