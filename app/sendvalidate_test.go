package app

import (
	"smriti"
	"strings"
	"testing"
)

func TestSendRequestValidate(t *testing.T) {
	for _, tt := range []struct {
		name   string
		err    error
		code   string
		detail string
	}{
		{"SendBlank", (&SendRequest{Message: "\n"}).Validate(), smriti.EUNPROCESSABLE, "message is required"},
		{"SendBudget", (&SendRequest{Message: "hi", HistoryBudget: -1}).Validate(), smriti.EUNPROCESSABLE, "history_token_budget must be positive"},
		{"SendKey", (&SendRequest{Message: "hi", IdempotencyKey: strings.Repeat("k", smriti.MaxIdempotencyKeyChars+1)}).Validate(), smriti.EUNPROCESSABLE, "Idempotency-Key must be at most 200 characters"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if smriti.ErrorCode(tt.err) != tt.code || smriti.ErrorMessage(tt.err) != tt.detail {
				t.Fatalf("err = %s %q, want %s %q", smriti.ErrorCode(tt.err), smriti.ErrorMessage(tt.err), tt.code, tt.detail)
			}
		})
	}
}
