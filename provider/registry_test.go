package provider

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"smriti"
	"smriti/intelligence"
	"smriti/provider/mockderive"
)

func registry(t *testing.T, yamlText string, env map[string]string) *Registry {
	t.Helper()
	return New(load(t, yamlText, "", env))
}

func TestProviderLookup(t *testing.T) {
	r := registry(t, "", map[string]string{EnvAnthropicKey: "sk-ant-0123456789"})
	cases := []struct {
		name     string
		code     string
		contains []string
	}{
		{"mock", "", nil},
		{"MOCK", "", nil},
		{"anthropic", "", nil},
		{"openai", smriti.EUNAVAILABLE, []string{"Provider 'openai' is not configured", "OPENAI_API_KEY", "providers.openai.api_key"}},
		{"openrouter", smriti.EUNAVAILABLE, []string{"OPENROUTER_API_KEY"}},
		{"generic", smriti.EUNAVAILABLE, []string{"SMRITI_GENERIC_API_URL"}},
		{"gemini", smriti.EINVALID, []string{`"gemini"`, "openai, anthropic, openrouter, generic, mock"}},
		{"", smriti.EINVALID, []string{"known providers"}},
	}
	for _, tc := range cases {
		p, err := r.Provider(tc.name)
		if code := smriti.ErrorCode(err); code != tc.code {
			t.Errorf("Provider(%q): code %q, want %q (%v)", tc.name, code, tc.code, err)
			continue
		}
		if err == nil && p.Name() != strings.ToLower(tc.name) {
			t.Errorf("Provider(%q).Name() = %q", tc.name, p.Name())
		}
		for _, c := range tc.contains {
			if !strings.Contains(err.Error(), c) {
				t.Errorf("Provider(%q): %q does not contain %q", tc.name, err, c)
			}
		}
	}
}

// Like the first implementation, enabled: false changes the status, not
// whether the key can be used.
func TestDisabledProviderStillCallable(t *testing.T) {
	r := registry(t, "providers:\n  openai:\n    enabled: false\n    api_key: sk-yaml-0123456789\n", nil)
	if _, err := r.Provider("openai"); err != nil {
		t.Fatal(err)
	}
	st, _ := r.Status()
	if s := st["openai"]; s.Enabled || s.Configured || !s.HasKey || !strings.HasPrefix(s.StatusLabel, "Disabled") {
		t.Errorf("status = %+v", s)
	}
}

func TestDefaultProvider(t *testing.T) {
	cases := []struct {
		name string
		yaml string
		env  map[string]string
		want string
	}{
		{"NothingConfiguredIsMock", "", nil, "mock"},
		{"FirstWithKey", "", map[string]string{EnvOpenRouterKey: "k", EnvAnthropicKey: "k"}, "anthropic"},
		{"GenericByURL", "", map[string]string{EnvGenericURL: "http://localhost:11434/v1"}, "generic"},
		{"YAMLChoice", "chat:\n  default_provider: openrouter\n", map[string]string{EnvOpenAIKey: "k"}, "openrouter"},
		{"EnvBeatsYAML", "chat:\n  default_provider: openrouter\n", map[string]string{EnvDefaultProvider: "openai"}, "openai"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := registry(t, tc.yaml, tc.env).DefaultProvider(); got != tc.want {
				t.Errorf("DefaultProvider() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestDefaultModel(t *testing.T) {
	r := registry(t, fullYAML, nil)
	for name, want := range map[string]string{
		"openai": "gpt-4.1-mini", "anthropic": "claude-opus-4-1", "generic": "llama3.1:8b", "mock": "mock", "nope": "",
	} {
		if got := r.DefaultModel(name); got != want {
			t.Errorf("DefaultModel(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestBackgroundDefaultsToMockWhenNothingConfigured(t *testing.T) {
	r := registry(t, "", nil)
	p, model, err := r.Background()
	if err != nil {
		t.Fatal(err)
	}
	if p.Name() != "mock" || model != "mock" {
		t.Errorf("background = %s/%s", p.Name(), model)
	}
	_, bs := r.Status()
	if !bs.UsingMock || bs.Provider != "mock" || bs.Configured || !strings.Contains(bs.StatusLabel, "Mock") || !strings.Contains(bs.StatusLabel, "OPENAI_API_KEY") {
		t.Errorf("background status = %+v", bs)
	}
	c, err := p.Complete(context.Background(), intelligence.CompletionRequest{Model: model, Schema: draftSchema})
	if err != nil || c.Text != mockderive.Reply(intelligence.CompletionRequest{Model: model, Schema: draftSchema}) {
		t.Errorf("mock background reply = %v, %v", c, err)
	}
}

func TestBackgroundFollowsConfiguredProviders(t *testing.T) {
	cases := []struct {
		name          string
		yaml          string
		env           map[string]string
		wantProvider  string
		wantModel     string
		wantMockLabel bool
	}{
		{"FirstWithKey", "", map[string]string{EnvAnthropicKey: "sk-ant-0123456789"}, "anthropic", "claude-sonnet-4-5", false},
		{"ChatDefault", "", map[string]string{EnvAnthropicKey: "k", EnvOpenAIKey: "k", EnvDefaultProvider: "anthropic"}, "anthropic", "claude-sonnet-4-5", false},
		{"ChatDefaultWithoutKeySkipped", "", map[string]string{EnvAnthropicKey: "k", EnvDefaultProvider: "openai"}, "anthropic", "claude-sonnet-4-5", false},
		{"YAML", fullYAML, nil, "openai", "gpt-4o-mini", false},
		{"Env", fullYAML, map[string]string{EnvBackgroundProvider: "generic", EnvBackgroundModel: "qwen2.5:7b"}, "generic", "qwen2.5:7b", false},
		{"ExplicitMock", "", map[string]string{EnvOpenAIKey: "k", EnvBackgroundProvider: "mock"}, "mock", "mock", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := registry(t, tc.yaml, tc.env)
			p, model, err := r.Background()
			if err != nil {
				t.Fatal(err)
			}
			if p.Name() != tc.wantProvider || model != tc.wantModel {
				t.Errorf("background = %s/%s, want %s/%s", p.Name(), model, tc.wantProvider, tc.wantModel)
			}
			_, bs := r.Status()
			if bs.Provider != tc.wantProvider || bs.Model != tc.wantModel || !bs.Configured || bs.UsingMock != tc.wantMockLabel {
				t.Errorf("background status = %+v", bs)
			}
		})
	}
}

func TestBackgroundNamedWithoutKeyIsUnavailable(t *testing.T) {
	r := registry(t, "background_intelligence:\n  provider: anthropic\n", map[string]string{EnvOpenAIKey: "k"})
	_, _, err := r.Background()
	if smriti.ErrorCode(err) != smriti.EUNAVAILABLE || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Errorf("err = %v, want EUNAVAILABLE naming ANTHROPIC_API_KEY", err)
	}
	_, bs := r.Status()
	if bs.Configured || bs.UsingMock || bs.Provider != "anthropic" || !strings.Contains(bs.StatusLabel, "ANTHROPIC_API_KEY") {
		t.Errorf("background status = %+v", bs)
	}
}

func TestBackgroundGenericWithoutModelIsUnavailable(t *testing.T) {
	r := registry(t, "", map[string]string{EnvGenericURL: "http://localhost:11434/v1", EnvBackgroundProvider: "generic"})
	_, _, err := r.Background()
	if smriti.ErrorCode(err) != smriti.EUNAVAILABLE || !strings.Contains(err.Error(), EnvBackgroundModel) {
		t.Errorf("err = %v", err)
	}
}

func TestStatusReportsEveryProvider(t *testing.T) {
	r := registry(t, fullYAML, map[string]string{EnvGenericURL: "https://user:pw@llm.internal/v1?token=abc"})
	st, bs := r.Status()
	if len(st) != 4 {
		t.Fatalf("status has %d providers: %v", len(st), st)
	}
	want := map[string]intelligence.ProviderStatus{
		"openai":     {Enabled: true, HasKey: true, Configured: true, StatusLabel: "Ready", DefaultModel: "gpt-4.1-mini"},
		"anthropic":  {Enabled: true, HasKey: true, Configured: true, StatusLabel: "Ready", DefaultModel: "claude-opus-4-1"},
		"openrouter": {HasKey: true, StatusLabel: "Disabled (enabled: false in providers.yaml)", DefaultModel: "meta-llama/llama-3.1-70b-instruct", BaseURL: "https://openrouter.example/api/v1"},
		"generic":    {Enabled: true, HasKey: true, Configured: true, StatusLabel: "Ready", DefaultModel: "llama3.1:8b", BaseURL: "https://llm.internal/v1"},
	}
	for name, w := range want {
		if st[name] != w {
			t.Errorf("%s status = %+v\nwant %+v", name, st[name], w)
		}
	}
	if bs.Provider != "openai" || !bs.Configured || bs.StatusLabel != "Ready" {
		t.Errorf("background = %+v", bs)
	}

	empty, _ := registry(t, "", nil).Status()
	if s := empty["openai"]; s.Enabled || s.HasKey || s.Configured || !strings.Contains(s.StatusLabel, "OPENAI_API_KEY") {
		t.Errorf("unconfigured openai status = %+v", s)
	}
}

// The providers endpoint serialises Status; no key may be in it.
func TestStatusNeverContainsAKey(t *testing.T) {
	env := map[string]string{
		EnvOpenAIKey: testKeys["openai"], EnvAnthropicKey: testKeys["anthropic"],
		EnvOpenRouterKey: testKeys["openrouter"], EnvGenericKey: testKeys["generic"],
		EnvGenericURL: "http://localhost:11434/v1", EnvBackgroundProvider: "anthropic",
	}
	st, bs := registry(t, "", env).Status()
	out, err := json.Marshal(map[string]any{"providers": st, "background_intelligence": bs})
	if err != nil {
		t.Fatal(err)
	}
	assertNoKey(t, string(out))
	if !strings.Contains(string(out), `"has_key":true`) {
		t.Errorf("status does not say keys are present: %s", out)
	}
}

func TestContextWindow(t *testing.T) {
	r := New(nil)
	cases := []struct {
		provider, model string
		want            int
	}{
		{"mock", "mock", 8192},
		{"mock", "gpt-4o", 8192},
		{"openai", "gpt-4o-mini", 128_000},
		{"openai", "gpt-4.1-nano", 1_047_576},
		{"openai", "gpt-5-mini", 400_000},
		{"openai", "gpt-4", 8192},
		{"openai", "o3-mini", 200_000},
		{"anthropic", "claude-sonnet-4-5", 200_000},
		{"openrouter", "anthropic/claude-3.5-sonnet", 200_000},
		{"openrouter", "google/gemini-2.5-pro", 1_048_576},
		{"generic", "llama3.1:8b", 128_000},
		{"generic", "some-local-model", 8192},
		{"openai", "", 8192},
	}
	for _, tc := range cases {
		if got := r.ContextWindow(tc.provider, tc.model); got != tc.want {
			t.Errorf("ContextWindow(%q, %q) = %d, want %d", tc.provider, tc.model, got, tc.want)
		}
	}
}

type observation struct {
	provider, model, outcome string
	usage                    intelligence.Usage
}

func TestObserverSeesEveryCall(t *testing.T) {
	srv := newFake(t, func(w http.ResponseWriter, r *http.Request, attempt int) {
		if attempt == 1 {
			writeJSON(w, 401, `{"error":{"message":"no","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`)
			return
		}
		writeJSON(w, 200, openAICompletion)
	})
	var mu sync.Mutex
	var seen []observation
	obs := func(provider, model, outcome string, usage intelligence.Usage, elapsed time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		if elapsed < 0 {
			t.Errorf("negative duration")
		}
		seen = append(seen, observation{provider, model, outcome, usage})
	}
	cfg := &Config{Providers: map[string]ProviderConfig{"openai": {APIKey: "sk-obs-0123456789", BaseURL: srv.URL, DefaultModel: "gpt-4o-mini"}}}
	r := New(cfg, WithObserver(obs))
	p, _ := r.Provider("openai")
	m, _ := r.Provider("mock")
	ctx := context.Background()
	_, _ = p.Complete(ctx, intelligence.CompletionRequest{Messages: []intelligence.Message{{Role: "user", Content: "hi"}}})
	_, _ = p.Complete(ctx, intelligence.CompletionRequest{Model: "gpt-4o", Messages: []intelligence.Message{{Role: "user", Content: "hi"}}})
	_, _ = m.Stream(ctx, intelligence.CompletionRequest{Messages: []intelligence.Message{{Role: "user", Content: "12345678"}}}, func(string) error { return nil })

	want := []observation{
		{"openai", "gpt-4o-mini", "ok", intelligence.Usage{InputTokens: 19, OutputTokens: 5}},
		{"openai", "gpt-4o", "error", intelligence.Usage{}},
		{"mock", "mock", "ok", intelligence.Usage{InputTokens: 2, OutputTokens: estimateTokens(`[mock:mock] You said: "12345678".`)}},
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != len(want) {
		t.Fatalf("observed %v", seen)
	}
	for i := range want {
		if seen[i] != want[i] {
			t.Errorf("observation %d = %+v, want %+v", i, seen[i], want[i])
		}
	}
}

func TestGenericWithoutModelNeedsOne(t *testing.T) {
	r := registry(t, "", map[string]string{EnvGenericURL: "http://127.0.0.1:1/v1"})
	p, err := r.Provider("generic")
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Complete(context.Background(), intelligence.CompletionRequest{Messages: []intelligence.Message{{Role: "user", Content: "hi"}}})
	if smriti.ErrorCode(err) != smriti.EINVALID || !strings.Contains(err.Error(), "model is required") {
		t.Errorf("err = %v", err)
	}
}

func TestRegistryIsSafeForConcurrentUse(t *testing.T) {
	r := registry(t, "", map[string]string{EnvOpenAIKey: "sk-conc-0123456789"})
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, _ := r.Provider("mock")
			_, _ = p.Complete(context.Background(), intelligence.CompletionRequest{Messages: []intelligence.Message{{Role: "user", Content: "x"}}})
			_, _ = r.Status()
			_, _, _ = r.Background()
			_ = r.DefaultProvider()
		}()
	}
	wg.Wait()
}
