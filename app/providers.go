package app

import "smriti/intelligence"

// ProviderStatus reports every provider, the background slot, and the
// chat provider and model a request naming none gets.
type ProviderStatus struct {
	Providers       map[string]intelligence.ProviderStatus
	Background      intelligence.BackgroundStatus
	DefaultProvider string
	DefaultModel    string
}

// Providers is what the configured providers are and which one chat uses
// by default.
func (a *App) Providers() ProviderStatus {
	list, bg := a.providers.Status()
	def := a.providers.DefaultProvider()
	return ProviderStatus{Providers: list, Background: bg, DefaultProvider: def, DefaultModel: a.providers.DefaultModel(def)}
}
