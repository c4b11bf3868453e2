package provider

import (
	"smriti/intelligence"
	"strings"
)

// unknownContextWindow is assumed for models not in contextWindows: small
// enough that a prompt sized for it fits almost any model.
const unknownContextWindow = 8192

// contextWindows maps model-name prefixes to context windows in tokens.
// Longer prefixes are listed before shorter ones they extend; the first
// match wins.
var contextWindows = []struct {
	prefix string
	tokens int
}{
	{"gpt-5", 400_000},
	{"gpt-4.1", 1_047_576},
	{"gpt-4o", 128_000},
	{"gpt-4-turbo", 128_000},
	{"gpt-4-32k", 32_768},
	{"gpt-4", 8_192},
	{"gpt-3.5-turbo", 16_385},
	{"o1-mini", 128_000},
	{"o1", 200_000},
	{"o3", 200_000},
	{"o4-mini", 200_000},
	{"claude", 200_000},
	{"gemini", 1_048_576},
	{"llama-3", 128_000},
	{"llama3", 128_000},
	{"mistral-large", 128_000},
	{"qwen2.5", 32_768},
	{"deepseek", 64_000},
}

// ContextWindow is the model's context window in tokens; unknown models get
// a conservative 8192. OpenRouter-style names ("anthropic/claude-…") and
// Ollama tags ("llama3.1:8b") are matched on the model part.
func (r *Registry) ContextWindow(provider, model string) int {
	return contextWindow(provider, model)
}

func contextWindow(provider, model string) int {
	if strings.EqualFold(provider, intelligence.ProviderMock) {
		return unknownContextWindow
	}
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	for _, w := range contextWindows {
		if strings.HasPrefix(m, w.prefix) {
			return w.tokens
		}
	}
	return unknownContextWindow
}
