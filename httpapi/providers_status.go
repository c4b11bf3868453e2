package httpapi

import (
	"reflect"
	"smriti/intelligence"
	"sort"
)

// ProvidersStatus is the provider status answer: one entry per provider,
// "background_intelligence" and "chat" (ChatDefaults). Keys are never
// included.
type ProvidersStatus map[string]any

// apiSchema documents the known keys of the provider status answer.
func (ProvidersStatus) apiSchema(g *schemaGen) map[string]any {
	described := func(t reflect.Type, d string) map[string]any {
		return map[string]any{"allOf": []any{g.schema(t, dirOut)}, "description": d}
	}
	props := map[string]any{
		"background_intelligence": described(reflect.TypeOf(intelligence.BackgroundStatus{}), "The slot that drafts, reviews, extracts and titles"),
		"chat": described(reflect.TypeOf(ChatDefaults{}),
			"What a session created without a provider uses, with that provider's status fields"),
	}
	required := []string{"background_intelligence", "chat"}
	for _, name := range []string{intelligence.ProviderAnthropic, intelligence.ProviderGeneric, intelligence.ProviderOpenAI, intelligence.ProviderOpenRouter} {
		props[name] = described(reflect.TypeOf(intelligence.ProviderStatus{}), "The "+name+" provider's status")
		required = append(required, name)
	}
	sort.Strings(required)
	return map[string]any{"type": "object", "properties": props, "required": required,
		"description": "One entry per provider, the background intelligence slot, and the chat defaults. Never keys."}
}

// ChatDefaults says which provider and model a session created without
// them uses (a send without them uses its session's). It carries the status
// fields of every other entry, those of the default provider, because
// clients iterate the entries and read them from each.
type ChatDefaults struct {
	DefaultProvider string `json:"default_provider" doc:"Provider a new session uses when the request names none (mock when no provider can be called)"`
	DefaultModel    string `json:"default_model" doc:"That provider's default model (\"\" when none is configured)"`
	Enabled         bool   `json:"enabled" doc:"The default provider is enabled"`
	HasKey          bool   `json:"has_key" doc:"The default provider has its API key (generic: its base URL; mock: false, it needs none)"`
	MissingPackage  bool   `json:"missing_package" doc:"Always false: every provider is built into the binary (kept for the first implementation's clients)"`
	Configured      bool   `json:"configured" doc:"Sends without a provider can be answered: the default provider is enabled and has what it needs"`
	StatusLabel     string `json:"status_label" doc:"The default provider's status for people, such as Ready"`
}
