package provider

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"smriti/intelligence"
	"strings"

	"gopkg.in/yaml.v3"

	"smriti"
)

// Secret holds an API key. It prints, logs and marshals as "[redacted]" so a
// Config can be logged or dumped without leaking a key; only the adapters
// read the value, through Reveal.
type Secret string

const redacted = "[redacted]"

// Reveal returns the key itself. Call it only where the key is sent upstream.
func (s Secret) Reveal() string { return string(s) }

func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return redacted
}

// GoString keeps %#v from printing the key.
func (s Secret) GoString() string { return `"` + s.String() + `"` }

// LogValue keeps log/slog from printing the key.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalText keeps encoders (JSON, YAML) from writing the key.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// ProviderConfig is one provider's resolved configuration.
type ProviderConfig struct {
	APIKey Secret
	// Disabled is providers.yaml's `enabled: false`. Like the first
	// implementation it only changes the reported status; a key still works.
	Disabled     bool
	DefaultModel string
	// BaseURL overrides the provider's endpoint ("" keeps the SDK default).
	BaseURL string
}

// Config is the resolved provider configuration: environment over .env over
// providers.yaml over built-in defaults.
type Config struct {
	// Providers holds openai, anthropic, openrouter and generic.
	Providers map[string]ProviderConfig
	// DefaultProvider is the configured chat default ("" when none is set).
	DefaultProvider string
	// BackgroundProvider and BackgroundModel are the configured background
	// intelligence slot ("" when not set).
	BackgroundProvider string
	BackgroundModel    string
}

// LoadOptions says where Load reads configuration from. Empty paths are
// skipped, and a missing file counts as empty.
type LoadOptions struct {
	YAMLPath   string
	DotEnvPath string
	// Getenv reads the process environment; nil means no environment.
	// Pass os.Getenv in production and a map lookup in tests.
	Getenv func(string) string
}

// Environment variables Load reads.
const (
	EnvOpenAIKey          = "OPENAI_API_KEY"
	EnvAnthropicKey       = "ANTHROPIC_API_KEY"
	EnvOpenRouterKey      = "OPENROUTER_API_KEY"
	EnvOpenAIBaseURL      = "OPENAI_BASE_URL"
	EnvAnthropicBaseURL   = "ANTHROPIC_BASE_URL"
	EnvOpenRouterBaseURL  = "OPENROUTER_BASE_URL"
	EnvGenericURL         = "SMRITI_GENERIC_API_URL"
	EnvGenericKey         = "SMRITI_GENERIC_API_KEY"
	EnvGenericModel       = "SMRITI_GENERIC_MODEL"
	EnvDefaultProvider    = "SMRITI_DEFAULT_PROVIDER"
	EnvBackgroundProvider = "SMRITI_BACKGROUND_PROVIDER"
	EnvBackgroundModel    = "SMRITI_BACKGROUND_MODEL"
)

// keyEnv and baseURLEnv name each provider's variables, for lookups and for
// the "set X" hints in errors and status labels.
var (
	keyEnv = map[string]string{
		intelligence.ProviderOpenAI:     EnvOpenAIKey,
		intelligence.ProviderAnthropic:  EnvAnthropicKey,
		intelligence.ProviderOpenRouter: EnvOpenRouterKey,
		intelligence.ProviderGeneric:    EnvGenericKey,
	}
	baseURLEnv = map[string]string{
		intelligence.ProviderOpenAI:     EnvOpenAIBaseURL,
		intelligence.ProviderAnthropic:  EnvAnthropicBaseURL,
		intelligence.ProviderOpenRouter: EnvOpenRouterBaseURL,
		intelligence.ProviderGeneric:    EnvGenericURL,
	}
)

// Built-in defaults, used when neither the environment nor providers.yaml
// says otherwise.
const (
	defaultOpenRouterBaseURL = "https://openrouter.ai/api/v1"
)

// ProviderOracle is the name the eval harness's oracle is offered under
// (WithOracle).
const ProviderOracle = "oracle"

var builtinModels = map[string]string{
	intelligence.ProviderOpenAI:     "gpt-4o-mini",
	intelligence.ProviderAnthropic:  "claude-sonnet-4-5",
	intelligence.ProviderOpenRouter: "openai/gpt-4o-mini",
	intelligence.ProviderMock:       "mock",
	ProviderOracle:                  ProviderOracle,
}

// realProviders are the configurable providers, in the order the default
// chat provider is chosen from.
var realProviders = []string{
	intelligence.ProviderOpenAI,
	intelligence.ProviderAnthropic,
	intelligence.ProviderOpenRouter,
	intelligence.ProviderGeneric,
}

// knownProviders are every name Provider accepts.
var knownProviders = append(append([]string(nil), realProviders...), intelligence.ProviderMock, ProviderOracle)

type yamlFile struct {
	Providers map[string]yamlProvider `yaml:"providers"`
	Chat      struct {
		DefaultProvider string `yaml:"default_provider"`
	} `yaml:"chat"`
	Background struct {
		Provider string `yaml:"provider"`
		Model    string `yaml:"model"`
	} `yaml:"background_intelligence"`
}

type yamlProvider struct {
	Enabled      *bool  `yaml:"enabled"`
	APIKey       string `yaml:"api_key"`
	DefaultModel string `yaml:"default_model"`
	BaseURL      string `yaml:"base_url"`
}

// Load resolves the provider configuration. Empty values count as unset at
// every level, so `KEY=` in .env does not mask providers.yaml (the first
// implementation's trap). It fails on unreadable or malformed files and on a
// default or background provider name that is not known.
func Load(opts LoadOptions) (*Config, error) {
	var y yamlFile
	if opts.YAMLPath != "" {
		data, err := os.ReadFile(opts.YAMLPath)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, fmt.Errorf("read provider config: %w", err)
		default:
			if err := yaml.Unmarshal(data, &y); err != nil {
				return nil, fmt.Errorf("parse %s: %w", opts.YAMLPath, err)
			}
		}
	}
	dotenv := map[string]string{}
	if opts.DotEnvPath != "" {
		data, err := os.ReadFile(opts.DotEnvPath)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, fmt.Errorf("read .env: %w", err)
		default:
			dotenv = ParseDotEnv(data)
		}
	}
	lookup := func(name string) string {
		if opts.Getenv != nil {
			if v := strings.TrimSpace(opts.Getenv(name)); v != "" {
				return v
			}
		}
		return dotenv[name]
	}

	cfg := &Config{Providers: map[string]ProviderConfig{}}
	for _, name := range realProviders {
		yp := y.Providers[name]
		pc := ProviderConfig{
			APIKey:       Secret(first(lookup(keyEnv[name]), yp.APIKey)),
			Disabled:     yp.Enabled != nil && !*yp.Enabled,
			DefaultModel: first(yp.DefaultModel, builtinModels[name]),
			BaseURL:      first(lookup(baseURLEnv[name]), yp.BaseURL),
		}
		switch name {
		case intelligence.ProviderOpenRouter:
			pc.BaseURL = first(pc.BaseURL, defaultOpenRouterBaseURL)
		case intelligence.ProviderGeneric:
			pc.DefaultModel = first(lookup(EnvGenericModel), yp.DefaultModel)
		}
		cfg.Providers[name] = pc
	}

	cfg.DefaultProvider = strings.ToLower(first(lookup(EnvDefaultProvider), y.Chat.DefaultProvider))
	if cfg.DefaultProvider != "" && !known(cfg.DefaultProvider) {
		return nil, unknownProvider(cfg.DefaultProvider, " in "+EnvDefaultProvider+" or chat.default_provider")
	}
	cfg.BackgroundProvider = strings.ToLower(first(lookup(EnvBackgroundProvider), y.Background.Provider))
	cfg.BackgroundModel = first(lookup(EnvBackgroundModel), y.Background.Model)
	if cfg.BackgroundProvider != "" && !known(cfg.BackgroundProvider) {
		return nil, unknownProvider(cfg.BackgroundProvider, " in "+EnvBackgroundProvider+" or background_intelligence.provider")
	}
	return cfg, nil
}

// ParseDotEnv parses a .env file: KEY=VALUE lines, optional `export `,
// blank lines and `#` comments, single-quoted values taken literally,
// double-quoted values with \n, \t, \" and \\ escapes, and ` #` comments
// after unquoted values. Malformed lines are skipped. It never touches the
// process environment.
func ParseDotEnv(data []byte) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		key, val, ok := strings.Cut(line, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" || strings.ContainsAny(key, " \t") {
			continue
		}
		out[key] = dotEnvValue(strings.TrimSpace(val))
	}
	return out
}

func dotEnvValue(v string) string {
	if len(v) >= 2 && v[0] == '\'' {
		if end := strings.IndexByte(v[1:], '\''); end >= 0 {
			return v[1 : 1+end]
		}
	}
	if len(v) >= 2 && v[0] == '"' {
		var b strings.Builder
		for i := 1; i < len(v); i++ {
			c := v[i]
			if c == '"' {
				return b.String()
			}
			if c == '\\' && i+1 < len(v) {
				i++
				switch v[i] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				default:
					b.WriteByte(v[i])
				}
				continue
			}
			b.WriteByte(c)
		}
		// Unterminated quote: keep the text as written.
		return v
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = v[:i]
	}
	return strings.TrimSpace(v)
}

func first(vals ...string) string {
	for _, v := range vals {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

func known(name string) bool {
	for _, k := range knownProviders {
		if k == name {
			return true
		}
	}
	return false
}

// unknownProvider is the EINVALID error for a name that is not a provider;
// where says where the name came from ("" for a request).
func unknownProvider(name, where string) error {
	return smriti.Errorf(smriti.EINVALID, "Unknown provider %q%s; known providers: %s",
		name, where, strings.Join(knownProviders, ", "))
}
