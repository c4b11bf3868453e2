package app

import (
	"smriti/intelligence"
	"strings"
)

// ChooseModel names the provider and model a session or send uses: the
// requested ones (the provider name trimmed and lower-cased), else the
// configured default provider and that provider's default model. The model
// is "" when none is requested or configured; p may be nil (no defaults).
func ChooseModel(p intelligence.Providers, provider, model string) (string, string) {
	provider = strings.ToLower(strings.TrimSpace(provider))
	if provider == "" && p != nil {
		provider = p.DefaultProvider()
	}
	model = strings.TrimSpace(model)
	if model == "" && p != nil {
		model = p.DefaultModel(provider)
	}
	return provider, model
}
