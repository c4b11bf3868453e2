// Package provider adapts Smriti's smriti.Provider to the LLM services it
// can talk to: OpenAI, Anthropic, OpenRouter and any OpenAI-compatible
// server (generic) through the official SDKs, plus a deterministic offline
// mock. It also loads their configuration (environment over .env over
// providers.yaml) into a Registry, which implements smriti.Providers.
//
// Every call gets a timeout, retries with backoff on 429, 5xx and connection
// errors (honouring retry-after), and fails with an EUPSTREAM error that
// names the provider and the upstream status and never contains a key.
//
// This package depends on the domain and intelligence (the provider
// contract) only; it must not import store, httpapi, any other adapter or
// the eval harness (whose oracle is handed in with WithOracle). Metrics are reported through an
// Observer so that it need not import Prometheus either.
package provider

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"smriti/intelligence"
	"strings"
	"time"

	"smriti"
)

// Observer is told about every provider call when it ends. outcome is "ok",
// "error", "timeout" or "canceled"; usage is zero unless the call succeeded.
type Observer func(provider, model, outcome string, usage intelligence.Usage, elapsed time.Duration)

// DefaultTimeout bounds one provider call, retries included; for a stream it
// bounds the silence between two events instead, so a long reply is not cut.
const DefaultTimeout = 120 * time.Second

type options struct {
	timeout   time.Duration
	retry     RetryPolicy
	observer  Observer
	logger    *slog.Logger
	transport http.RoundTripper
	oracle    intelligence.Provider
}

// Option configures a Registry.
type Option func(*options)

// WithTimeout bounds each provider call, retries included, and the silence
// between two events of a stream
// (default DefaultTimeout; 0 means no bound beyond the caller's context).
func WithTimeout(d time.Duration) Option { return func(o *options) { o.timeout = d } }

// WithRetryPolicy replaces DefaultRetryPolicy. Zero durations keep the
// default; MaxRetries is taken as given, so 0 turns retries off.
func WithRetryPolicy(p RetryPolicy) Option {
	return func(o *options) {
		if p.BaseDelay > 0 {
			o.retry.BaseDelay = p.BaseDelay
		}
		if p.MaxDelay > 0 {
			o.retry.MaxDelay = p.MaxDelay
		}
		if p.MaxRetryAfter > 0 {
			o.retry.MaxRetryAfter = p.MaxRetryAfter
		}
		o.retry.MaxRetries = max(p.MaxRetries, 0)
	}
}

// WithObserver reports every call, for metrics.
func WithObserver(obs Observer) Option { return func(o *options) { o.observer = obs } }

// WithLogger logs retries (never a key or a message body). The default
// discards.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithTransport replaces http.DefaultTransport under the retry layer, for a
// proxy or custom TLS.
func WithTransport(rt http.RoundTripper) Option { return func(o *options) { o.transport = rt } }

// WithOracle sets the eval harness's oracle (package eval/oracle), offered
// as "oracle"; without one, "oracle" answers as the mock.
func WithOracle(or intelligence.Provider) Option { return func(o *options) { o.oracle = or } }

// Registry holds the configured providers. It implements smriti.Providers
// and is safe for concurrent use; it does not change after New.
type Registry struct {
	cfg        Config
	providers  map[string]intelligence.Provider
	background backgroundSlot
}

var _ intelligence.Providers = (*Registry)(nil)

// backgroundSlot is the resolved background intelligence provider.
type backgroundSlot struct {
	provider  string
	model     string
	explicit  bool // named in the environment or providers.yaml
	usingMock bool
	err       error
}

// New builds the providers cfg configures. A nil cfg configures only the
// mock.
func New(cfg *Config, opts ...Option) *Registry {
	o := options{
		timeout:   DefaultTimeout,
		retry:     DefaultRetryPolicy,
		logger:    slog.New(slog.DiscardHandler),
		transport: http.DefaultTransport,
	}
	for _, opt := range opts {
		opt(&o)
	}
	r := &Registry{providers: map[string]intelligence.Provider{}}
	if cfg != nil {
		r.cfg = *cfg
	}
	// A copy, so the caller changing its Config later cannot race with us.
	r.cfg.Providers = maps.Clone(r.cfg.Providers)
	if r.cfg.Providers == nil {
		r.cfg.Providers = map[string]ProviderConfig{}
	}

	var secrets []string
	for _, pc := range r.cfg.Providers {
		if k := pc.APIKey.Reveal(); k != "" {
			secrets = append(secrets, k)
		}
	}
	for _, name := range realProviders {
		if !r.usable(name) {
			continue
		}
		pc := r.cfg.Providers[name]
		hc := &http.Client{Transport: &retryTransport{
			base: o.transport, policy: o.retry, log: o.logger, provider: name,
		}}
		call := &caller{provider: name, timeout: o.timeout, secrets: secrets}
		key := pc.APIKey.Reveal()
		var p intelligence.Provider
		switch name {
		case intelligence.ProviderAnthropic:
			p = newAnthropic(pc.BaseURL, key, hc, call)
		case intelligence.ProviderGeneric:
			p = newOpenAICompat(name, pc.BaseURL, first(key, "not-required"), jsonObject, hc, call)
		default:
			p = newOpenAICompat(name, pc.BaseURL, key, jsonSchema, hc, call)
		}
		r.providers[name] = &observed{Provider: p, model: pc.DefaultModel, obs: o.observer}
	}
	r.providers[intelligence.ProviderMock] = &observed{Provider: Mock{}, model: intelligence.ProviderMock, obs: o.observer}
	oracle := o.oracle
	if oracle == nil {
		oracle = Mock{}
	}
	r.providers[ProviderOracle] = &observed{Provider: oracle, model: ProviderOracle, obs: o.observer}
	r.background = r.resolveBackground()
	return r
}

// usable reports whether the named real provider has what it needs to be
// called: a key, or for generic a base URL.
func (r *Registry) usable(name string) bool {
	pc := r.cfg.Providers[name]
	if name == intelligence.ProviderGeneric {
		return pc.BaseURL != ""
	}
	return pc.APIKey != ""
}

// Provider returns the named provider (case-insensitive).
func (r *Registry) Provider(name string) (intelligence.Provider, error) {
	name = strings.ToLower(strings.TrimSpace(name))
	if p, ok := r.providers[name]; ok {
		return p, nil
	}
	if !known(name) {
		return nil, unknownProvider(name, "")
	}
	return nil, smriti.Errorf(smriti.EUNAVAILABLE, "Provider '%s' is not configured: %s", name, setHint(name))
}

// setHint says what to set to configure the named provider.
func setHint(name string) string {
	if name == intelligence.ProviderGeneric {
		return "set " + EnvGenericURL + " (or providers.generic.base_url in providers.yaml)"
	}
	return "set " + keyEnv[name] + " (or providers." + name + ".api_key in providers.yaml)"
}

// DefaultProvider is the configured chat provider, else the first provider
// that can be called, else the mock.
func (r *Registry) DefaultProvider() string {
	if r.cfg.DefaultProvider != "" {
		return r.cfg.DefaultProvider
	}
	return r.firstUsable()
}

// firstUsable is the first real provider that can be called, else the mock.
func (r *Registry) firstUsable() string {
	for _, name := range realProviders {
		if r.usable(name) {
			return name
		}
	}
	return intelligence.ProviderMock
}

// DefaultModel is the named provider's default model ("" if none).
func (r *Registry) DefaultModel(name string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	if name == intelligence.ProviderMock || name == ProviderOracle {
		return builtinModels[name]
	}
	return r.cfg.Providers[name].DefaultModel
}

func (r *Registry) resolveBackground() backgroundSlot {
	b := backgroundSlot{provider: r.cfg.BackgroundProvider, explicit: r.cfg.BackgroundProvider != ""}
	if !b.explicit {
		b.provider = r.DefaultProvider()
		if r.providers[b.provider] == nil { // a chat default that lacks a key
			b.provider = r.firstUsable()
		}
	}
	b.usingMock = b.provider == intelligence.ProviderMock
	if b.usingMock && !b.explicit {
		b.model = builtinModels[intelligence.ProviderMock]
	} else {
		b.model = first(r.cfg.BackgroundModel, r.DefaultModel(b.provider))
	}
	switch {
	case r.providers[b.provider] == nil:
		b.err = smriti.Errorf(smriti.EUNAVAILABLE,
			"Background provider '%s' is not configured: %s", b.provider, setHint(b.provider))
	case b.model == "":
		b.err = smriti.Errorf(smriti.EUNAVAILABLE,
			"Background provider '%s' has no model: set %s (or background_intelligence.model in providers.yaml)",
			b.provider, EnvBackgroundModel)
	}
	return b
}

// Background returns the background intelligence provider and model: the
// configured ones, or with nothing configured the first provider that can
// be called, or the mock. A background provider named in the configuration
// but lacking a key is EUNAVAILABLE rather than silently mocked.
func (r *Registry) Background() (intelligence.Provider, string, error) {
	if r.background.err != nil {
		return nil, "", r.background.err
	}
	return r.providers[r.background.provider], r.background.model, nil
}

// Status reports each real provider and the background slot. It never
// carries a key, and base URLs lose any credentials or query they carry.
func (r *Registry) Status() (map[string]intelligence.ProviderStatus, intelligence.BackgroundStatus) {
	out := make(map[string]intelligence.ProviderStatus, len(realProviders))
	for _, name := range realProviders {
		out[name] = r.providerStatus(name)
	}
	b := r.background
	bs := intelligence.BackgroundStatus{Provider: b.provider, Model: b.model, UsingMock: b.usingMock}
	switch {
	case b.usingMock && !b.explicit:
		bs.StatusLabel = "Mock (no provider configured — set " + EnvOpenAIKey + " or " + EnvAnthropicKey +
			" to use a live model for drafts, reviews and extracts)"
	case b.usingMock:
		bs.Enabled, bs.Configured = true, true
		bs.StatusLabel = "Mock (configured as the background provider)"
	default:
		ps := r.providerStatus(b.provider)
		bs.Enabled, bs.HasKey, bs.Configured = ps.Enabled, ps.HasKey, ps.Configured && b.err == nil
		bs.StatusLabel = ps.StatusLabel
		if b.err != nil {
			bs.StatusLabel = smriti.ErrorMessage(b.err)
		}
	}
	return out, bs
}

func (r *Registry) providerStatus(name string) intelligence.ProviderStatus {
	pc := r.cfg.Providers[name]
	// generic needs no key; its base URL is what configures it.
	hasKey := r.usable(name)
	st := intelligence.ProviderStatus{
		Enabled:      hasKey && !pc.Disabled,
		HasKey:       hasKey,
		DefaultModel: pc.DefaultModel,
		BaseURL:      displayURL(pc.BaseURL),
	}
	st.Configured = st.Enabled
	switch {
	case st.Configured:
		st.StatusLabel = "Ready"
	case hasKey:
		st.StatusLabel = "Disabled (enabled: false in providers.yaml)"
	default:
		st.StatusLabel = "Not configured — " + setHint(name)
	}
	return st
}

// displayURL drops user info, query and fragment, which may hold
// credentials, from a base URL shown to users.
func displayURL(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "[unparseable URL]"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// observed fills in a provider's default model and reports each call to
// the Observer.
type observed struct {
	intelligence.Provider
	model string
	obs   Observer
}

func (p *observed) prepare(req *intelligence.CompletionRequest) error {
	if req.Model = strings.TrimSpace(req.Model); req.Model == "" {
		req.Model = p.model
	}
	if req.Model == "" {
		return smriti.Errorf(smriti.EINVALID, "A model is required for provider '%s' (it has no default model)", p.Name())
	}
	return nil
}

func (p *observed) Complete(ctx context.Context, req intelligence.CompletionRequest) (*intelligence.Completion, error) {
	if err := p.prepare(&req); err != nil {
		return nil, err
	}
	start := time.Now()
	c, err := p.Provider.Complete(ctx, req)
	p.report(req.Model, c, err, start)
	return c, err
}

func (p *observed) Stream(ctx context.Context, req intelligence.CompletionRequest, onDelta func(string) error) (*intelligence.Completion, error) {
	if err := p.prepare(&req); err != nil {
		return nil, err
	}
	start := time.Now()
	c, err := p.Provider.Stream(ctx, req, onDelta)
	p.report(req.Model, c, err, start)
	return c, err
}

func (p *observed) report(model string, c *intelligence.Completion, err error, start time.Time) {
	if p.obs == nil {
		return
	}
	var usage intelligence.Usage
	if c != nil {
		usage = c.Usage
	}
	p.obs(p.Name(), model, outcome(err), usage, time.Since(start))
}

func outcome(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, errCallTimeout), errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	default:
		return "error"
	}
}
