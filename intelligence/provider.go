package intelligence

import (
	"context"
)

// Message is one message of a provider conversation.
type Message struct {
	Role    string `json:"role" doc:"system, user or assistant"` // system | user | assistant
	Content string `json:"content" doc:"The message text"`
}

// CompletionRequest is what Smriti asks a model for.
type CompletionRequest struct {
	Model    string
	Messages []Message
	// MaxTokens caps the reply; 0 lets the adapter choose.
	MaxTokens int
	// Schema, when set, asks for a JSON object matching it, through the
	// provider's structured-output feature where it has one.
	Schema *JSONSchema
	// Annotations describe how the request was built (context mode,
	// checkpoint hashes, turn count). Real adapters never send them; the
	// offline mock echoes them so tests and users can see what it received.
	Annotations map[string]string
}

// JSONSchema names a JSON Schema (draft 2020-12 subset) for structured output.
type JSONSchema struct {
	Name   string
	Schema map[string]any
}

// Usage counts tokens of one provider call.
type Usage struct {
	InputTokens  int `json:"input_tokens" doc:"Prompt tokens"`
	OutputTokens int `json:"output_tokens" doc:"Reply tokens"`
}

// Completion is a provider's answer.
type Completion struct {
	Text  string
	Model string
	Usage Usage
}

// Provider is one LLM backend. Implementations honour ctx cancellation, retry
// 429/5xx with backoff, and return an EUPSTREAM *Error naming the provider and
// the upstream status on failure — never a key.
type Provider interface {
	// Name is the provider's configuration name (openai, anthropic, ...).
	Name() string
	// Complete returns the whole reply.
	Complete(ctx context.Context, req CompletionRequest) (*Completion, error)
	// Stream calls onDelta with each piece of text as it arrives and returns
	// the whole reply at the end. An error from onDelta stops the stream.
	Stream(ctx context.Context, req CompletionRequest, onDelta func(text string) error) (*Completion, error)
}

// ProviderStatus is one provider's configuration state, as the providers
// endpoint reports it. It never carries a key.
type ProviderStatus struct {
	Enabled        bool   `json:"enabled" doc:"The provider is enabled"`
	HasKey         bool   `json:"has_key" doc:"It has its API key (generic: its base URL)"`
	MissingPackage bool   `json:"missing_package" doc:"Always false: every provider is built into the binary (kept for the first implementation's clients)"`
	Configured     bool   `json:"configured" doc:"Sends can call it: enabled and has what it needs"`
	StatusLabel    string `json:"status_label" doc:"Its status for people: Ready, or what to set"`
	DefaultModel   string `json:"default_model" doc:"The model a send uses when it names none"`
	BaseURL        string `json:"base_url,omitempty" doc:"The API base URL when not the provider's own (absent otherwise)"`
}

// BackgroundStatus describes the background intelligence slot.
type BackgroundStatus struct {
	Provider       string `json:"provider" doc:"Provider of the background slot (drafts, reviews, extracts, titles)"`
	Model          string `json:"model" doc:"Its model"`
	Enabled        bool   `json:"enabled" doc:"The provider is enabled"`
	HasKey         bool   `json:"has_key" doc:"The provider has its API key"`
	MissingPackage bool   `json:"missing_package" doc:"Always false: every provider is built into the binary (kept for the first implementation's clients)"`
	Configured     bool   `json:"configured" doc:"Drafts, reviews and extracts can call the provider"`
	StatusLabel    string `json:"status_label" doc:"The slot's status for people, naming the variable to set when nothing is configured"`
	// UsingMock is true when nothing is configured and the deterministic
	// mock answers instead.
	UsingMock bool `json:"using_mock" doc:"True when nothing is configured and the offline mock answers instead"`
}

// Providers resolves configured providers.
type Providers interface {
	// Provider returns the named provider. EUNAVAILABLE (503) when it is not
	// configured, with the environment variable to set in the message;
	// EINVALID for an unknown name.
	Provider(name string) (Provider, error)
	// Background returns the background intelligence provider and model
	// (the mock when nothing is configured).
	Background() (Provider, string, error)
	// DefaultProvider is the chat provider used when a request names none.
	DefaultProvider() string
	// DefaultModel is the named provider's default model ("" if none).
	DefaultModel(name string) string
	// ContextWindow is the model's context window in tokens (a conservative
	// default for unknown models).
	ContextWindow(provider, model string) int
	// Status reports every provider and the background slot.
	Status() (map[string]ProviderStatus, BackgroundStatus)
}

// Provider names.
const (
	ProviderOpenAI     = "openai"
	ProviderAnthropic  = "anthropic"
	ProviderOpenRouter = "openrouter"
	ProviderGeneric    = "generic"
	ProviderMock       = "mock"
)
