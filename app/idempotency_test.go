package app

import (
	"smriti"
	"smriti/contract"
	"smriti/intelligence"
	"testing"
)

func TestRequestDigest(t *testing.T) {
	sid, cp := smriti.NewID(), smriti.NewID()
	base := SendRequest{SessionID: sid, Message: "hello", IdempotencyKey: "k"}
	d := requestDigest(base)
	seq := int64(3)
	same := base
	same.IdempotencyKey = "other key"
	same.Provider = " " // blank provider is no provider
	same.Context.MemoryScope = intelligence.ScopeLatest1
	if requestDigest(same) != d {
		t.Fatal("the key, blank provider or default scope changed the digest")
	}
	for name, change := range map[string]func(*SendRequest){
		"Message":  func(r *SendRequest) { r.Message = "hello!" },
		"Session":  func(r *SendRequest) { r.SessionID = smriti.NewID() },
		"Provider": func(r *SendRequest) { r.Provider = "openai" },
		"Model":    func(r *SendRequest) { r.Model = "gpt-4o" },
		"UseMock":  func(r *SendRequest) { r.UseMock = true },
		"Scope":    func(r *SendRequest) { r.Context.MemoryScope = intelligence.ScopeLatest3 },
		"Mount":    func(r *SendRequest) { r.Context.MountedCheckpointID = &cp },
		"Base":     func(r *SendRequest) { r.Context.HistoryBaseSeq = &seq },
		"Budget":   func(r *SendRequest) { r.HistoryBudget = 100 },
	} {
		r := base
		change(&r)
		if requestDigest(r) == d {
			t.Errorf("%s did not change the digest", name)
		}
	}
	if err := checkReplay(base, &contract.ExchangeResult{RequestHash: d}); err != nil {
		t.Fatalf("same request refused: %v", err)
	}
	other := base
	other.Message = "something else"
	if err := checkReplay(other, &contract.ExchangeResult{RequestHash: d}); smriti.ErrorCode(err) != smriti.EUNPROCESSABLE {
		t.Fatalf("different request: %v, want unprocessable", err)
	}
	if err := checkReplay(other, &contract.ExchangeResult{}); err != nil {
		t.Fatalf("a key stored without a digest refused: %v", err)
	}
}
