package app

import (
	"context"
	"smriti"
)

// LLMGate admits or refuses a call that would reach a model provider on
// behalf of the caller in ctx, about the things ids name (Spaces, sessions,
// checkpoints): the caller's role in each one's Space must permit a write,
// and the caller must be within their allowance of LLM-backed calls. It
// returns the error the HTTP API would answer (EFORBIDDEN, ETOOMANY, …).
type LLMGate func(ctx context.Context, ids ...smriti.ID) error

type llmGateKey struct{}

// WithLLMGate returns ctx carrying g. The HTTP server gives its MCP requests
// the gate its own LLM routes pass through, so tools served in-process meet
// the same role check and rate limit before any provider is called.
func WithLLMGate(ctx context.Context, g LLMGate) context.Context {
	return context.WithValue(ctx, llmGateKey{}, g)
}

// AdmitLLM asks the gate in ctx to admit a provider call about ids. With no
// gate (a caller whose provider calls go through the HTTP API, which applies
// the rules itself) it admits.
func AdmitLLM(ctx context.Context, ids ...smriti.ID) error {
	if g, ok := ctx.Value(llmGateKey{}).(LLMGate); ok && g != nil {
		return g(ctx, ids...)
	}
	return nil
}
