package dbx

import (
	"database/sql/driver"
	"errors"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"

	"smriti"
)

// Database failures fall in two classes. A connection-class failure is the
// database being away for a while — refused or reset connections, a server
// shutting down or starting up, a primary turned read-only by a failover, a
// pool or database past its deadline — and is answered as smriti.ETRYAGAIN
// (503 with Retry-After): the same request may succeed a moment later.
// Anything else stays what it was (an internal error unless the store said
// otherwise).

// UnavailableMessage is what a client is told about a connection-class
// failure.
const UnavailableMessage = "the database is unavailable right now; try again shortly"

// Classify returns err as a smriti.ETRYAGAIN error when it is a
// connection-class database failure, and err unchanged otherwise. Domain
// errors the store raised keep their code.
func Classify(err error) error {
	if err == nil {
		return nil
	}
	var de *smriti.Error
	if errors.As(err, &de) {
		return err
	}
	if ConnectionClass(err) {
		return &smriti.Error{Code: smriti.ETRYAGAIN, Message: UnavailableMessage, Err: err}
	}
	return err
}

// ConnectionClass reports whether err says the database could not be
// reached or written for a reason that passes.
func ConnectionClass(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch {
		case strings.HasPrefix(pg.Code, "08"): // connection exception
			return true
		case pg.Code == "57P01", pg.Code == "57P02", pg.Code == "57P03": // admin shutdown, crash shutdown, cannot connect now
			return true
		case pg.Code == "25006": // read-only transaction: a standby or a demoted primary
			return true
		case pg.Code == "53300": // too many connections
			return true
		case pg.Code == "57014" && strings.Contains(pg.Message, "statement timeout"):
			return true
		}
		return false
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true
	}
	if pgconn.SafeToRetry(err) || errors.Is(err, driver.ErrBadConn) {
		return true
	}
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return true
	}
	// pgx reports a connection that broke under a query as closed or
	// failed to receive/write, without a typed cause in every case.
	msg := err.Error()
	return strings.Contains(msg, "conn closed") || strings.Contains(msg, "failed to receive message") ||
		strings.Contains(msg, "failed to write") || strings.Contains(msg, "unexpected EOF") ||
		strings.Contains(msg, "connection reset by peer") || strings.Contains(msg, "broken pipe")
}
