package app

import (
	"smriti"
	"smriti/internal/textutil"
	"strings"
)

// Validate checks what a send can be refused for before anything is read:
// a message that is not blank and at most the message cap, a history budget
// that is not negative and an idempotency key of at most
// maxIdempotencyKeyChars. EUNPROCESSABLE otherwise.
func (r *SendRequest) Validate() error {
	switch {
	case strings.TrimSpace(r.Message) == "":
		return smriti.Errorf(smriti.EUNPROCESSABLE, "message is required")
	case textutil.RuneLen(r.Message) > maxMessageChars:
		return smriti.Errorf(smriti.EUNPROCESSABLE, "message must be at most %d characters", maxMessageChars)
	case r.HistoryBudget < 0:
		return smriti.Errorf(smriti.EUNPROCESSABLE, "history_token_budget must be positive")
	case len(r.IdempotencyKey) > smriti.MaxIdempotencyKeyChars:
		return smriti.Errorf(smriti.EUNPROCESSABLE, "Idempotency-Key must be at most %d characters", smriti.MaxIdempotencyKeyChars)
	}
	return nil
}
