package app

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"smriti"
	"smriti/contract"
	"smriti/intelligence"
	"smriti/internal/textutil"
	"strings"
)

// requestDigest fingerprints what a send asks for, so an idempotency key
// reused for a different request can be refused (as Stripe does) rather
// than silently answered with the first reply. Every field that changes
// the answer counts: the message, the provider and model asked for,
// use_mock, and the context fields. The key itself does not.
func requestDigest(req SendRequest) string {
	var mount, base any
	if req.Context.MountedCheckpointID != nil {
		mount = req.Context.MountedCheckpointID.String()
	}
	if req.Context.HistoryBaseSeq != nil {
		base = *req.Context.HistoryBaseSeq
	}
	scope := req.Context.MemoryScope
	if scope == "" {
		scope = intelligence.ScopeLatest1
	}
	parts := []any{
		req.SessionID.String(), req.Message, strings.ToLower(strings.TrimSpace(req.Provider)), strings.TrimSpace(req.Model),
		req.UseMock, scope, mount, base, req.HistoryBudget,
	}
	if req.Context.Unmount {
		// Only then, so the digests stored before the field existed still match.
		parts = append(parts, "unmount")
	}
	b, _ := json.Marshal(parts)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// checkReplay decides whether a stored exchange answers req: ECONFLICT is
// not right for this (nothing is in a conflicting state), so a key reused
// with a different request is EUNPROCESSABLE (422). Exchanges stored
// before digests were kept ("" digest) answer any request with their key.
func checkReplay(req SendRequest, stored *contract.ExchangeResult) error {
	if stored.RequestHash != "" && stored.RequestHash != requestDigest(req) {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "Idempotency-Key %q was already used for a different request; use a new key for a new request",
			textutil.Truncate(req.IdempotencyKey, 64))
	}
	return nil
}
