package dbx

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"smriti"
)

// timeoutErr is a network read that ran out of time.
type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func TestClassifyByErrorClass(t *testing.T) {
	pg := func(code, msg string) error {
		return fmt.Errorf("update session: %w", &pgconn.PgError{Code: code, Message: msg})
	}
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"AdminShutdown", pg("57P01", "terminating connection due to administrator command"), smriti.ETRYAGAIN},
		{"CrashShutdown", pg("57P02", "terminating connection because of crash of another server process"), smriti.ETRYAGAIN},
		{"StartingUp", pg("57P03", "the database system is starting up"), smriti.ETRYAGAIN},
		{"ConnectionFailure", pg("08006", "connection failure"), smriti.ETRYAGAIN},
		{"ReadOnly", pg("25006", "cannot execute INSERT in a read-only transaction"), smriti.ETRYAGAIN},
		{"StatementTimeout", pg("57014", "canceling statement due to statement timeout"), smriti.ETRYAGAIN},
		{"Refused", &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}, smriti.ETRYAGAIN},
		{"Reset", fmt.Errorf("list turns: %w", &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}), smriti.ETRYAGAIN},
		{"StalledRead", fmt.Errorf("failed to receive message: %w", timeoutErr{}), smriti.ETRYAGAIN},
		{"ConnectError", &pgconn.ConnectError{}, smriti.ETRYAGAIN},
		{"UniqueViolation", pg("23505", "duplicate key value violates unique constraint"), smriti.EINTERNAL},
		{"CancelledByCaller", pg("57014", "canceling statement due to user request"), smriti.EINTERNAL},
		{"SyntaxError", pg("42601", "syntax error"), smriti.EINTERNAL},
		{"DomainErrorKeepsItsCode", smriti.Errorf(smriti.ENOTFOUND, "Session not found"), smriti.ENOTFOUND},
		{"PlainError", errors.New("turn 3 missing"), smriti.EINTERNAL},
		{"CallerGone", context.Canceled, smriti.EINTERNAL},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Classify(c.err)
			if code := smriti.ErrorCode(got); code != c.want {
				t.Fatalf("code %q, want %q", code, c.want)
			}
			if c.want == smriti.ETRYAGAIN {
				if msg := smriti.ErrorMessage(got); msg != "the database is unavailable right now; try again shortly" {
					t.Errorf("message %q", msg)
				}
				if !errors.Is(got, c.err) {
					t.Error("the cause is lost")
				}
			}
		})
	}
}
