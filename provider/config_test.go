package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"smriti/intelligence"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"smriti"
)

// files writes providers.yaml and .env into a temp dir and returns
// LoadOptions for them and env.
func files(t *testing.T, yamlText, dotenv string, env map[string]string) LoadOptions {
	t.Helper()
	dir := t.TempDir()
	opts := LoadOptions{
		YAMLPath:   filepath.Join(dir, "providers.yaml"),
		DotEnvPath: filepath.Join(dir, ".env"),
		Getenv:     func(k string) string { return env[k] },
	}
	if yamlText != "" {
		if err := os.WriteFile(opts.YAMLPath, []byte(yamlText), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if dotenv != "" {
		if err := os.WriteFile(opts.DotEnvPath, []byte(dotenv), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return opts
}

func load(t *testing.T, yamlText, dotenv string, env map[string]string) *Config {
	t.Helper()
	cfg, err := Load(files(t, yamlText, dotenv, env))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

const fullYAML = `
providers:
  openai:
    enabled: true
    api_key: sk-yaml-openai-key
    default_model: gpt-4.1-mini
  anthropic:
    enabled: true
    api_key: sk-ant-yaml-key
    default_model: claude-opus-4-1
  openrouter:
    enabled: false
    api_key: sk-or-yaml-key
    base_url: https://openrouter.example/api/v1
    default_model: meta-llama/llama-3.1-70b-instruct
  generic:
    base_url: http://localhost:11434/v1
    default_model: llama3.1:8b
chat:
  default_provider: anthropic
  autosave_turns: 50
  auto_commit: false
background_intelligence:
  provider: openai
  model: gpt-4o-mini
`

func TestLoadPrecedence(t *testing.T) {
	yamlText := "providers:\n  openai:\n    api_key: sk-from-yaml-0001\n"
	dotenv := "OPENAI_API_KEY=sk-from-dotenv-0002\n"
	env := map[string]string{"OPENAI_API_KEY": "sk-from-env-0003"}
	cases := []struct {
		name             string
		yamlText, dotenv string
		env              map[string]string
		want             string
	}{
		{"EnvBeatsDotEnvAndYAML", yamlText, dotenv, env, "sk-from-env-0003"},
		{"DotEnvBeatsYAML", yamlText, dotenv, nil, "sk-from-dotenv-0002"},
		{"YAMLAlone", yamlText, "", nil, "sk-from-yaml-0001"},
		{"EmptyDotEnvDoesNotMaskYAML", yamlText, "OPENAI_API_KEY=\n", nil, "sk-from-yaml-0001"},
		{"EmptyEnvDoesNotMaskDotEnv", yamlText, dotenv, map[string]string{"OPENAI_API_KEY": " "}, "sk-from-dotenv-0002"},
		{"Nothing", "", "", nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := load(t, tc.yamlText, tc.dotenv, tc.env)
			if got := cfg.Providers[intelligence.ProviderOpenAI].APIKey.Reveal(); got != tc.want {
				t.Errorf("key = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestLoadReadsEveryYAMLField(t *testing.T) {
	cfg := load(t, fullYAML, "", nil)
	or := cfg.Providers[intelligence.ProviderOpenRouter]
	if !or.Disabled || or.BaseURL != "https://openrouter.example/api/v1" || or.DefaultModel != "meta-llama/llama-3.1-70b-instruct" || or.APIKey.Reveal() != "sk-or-yaml-key" {
		t.Errorf("openrouter = %+v", or)
	}
	if g := cfg.Providers[intelligence.ProviderGeneric]; g.BaseURL != "http://localhost:11434/v1" || g.DefaultModel != "llama3.1:8b" {
		t.Errorf("generic = %+v", g)
	}
	if cfg.Providers[intelligence.ProviderAnthropic].DefaultModel != "claude-opus-4-1" {
		t.Errorf("anthropic = %+v", cfg.Providers[intelligence.ProviderAnthropic])
	}
	if cfg.DefaultProvider != "anthropic" || cfg.BackgroundProvider != "openai" || cfg.BackgroundModel != "gpt-4o-mini" {
		t.Errorf("chat/background = %q %q %q", cfg.DefaultProvider, cfg.BackgroundProvider, cfg.BackgroundModel)
	}
}

func TestLoadEnvOverridesEverySetting(t *testing.T) {
	env := map[string]string{
		EnvAnthropicKey:       "sk-ant-env",
		EnvOpenRouterKey:      "sk-or-env",
		EnvOpenAIBaseURL:      "http://proxy.local/v1",
		EnvAnthropicBaseURL:   "http://anthropic.local",
		EnvOpenRouterBaseURL:  "http://or.local/api/v1",
		EnvGenericURL:         "http://vllm.local/v1",
		EnvGenericKey:         "generic-env-key",
		EnvGenericModel:       "qwen2.5-7b",
		EnvDefaultProvider:    "Generic",
		EnvBackgroundProvider: "anthropic",
		EnvBackgroundModel:    "claude-haiku-4-5",
	}
	cfg := load(t, fullYAML, "", env)
	checks := map[string][2]string{
		"anthropic key":   {cfg.Providers["anthropic"].APIKey.Reveal(), "sk-ant-env"},
		"openrouter key":  {cfg.Providers["openrouter"].APIKey.Reveal(), "sk-or-env"},
		"openai url":      {cfg.Providers["openai"].BaseURL, "http://proxy.local/v1"},
		"anthropic url":   {cfg.Providers["anthropic"].BaseURL, "http://anthropic.local"},
		"openrouter url":  {cfg.Providers["openrouter"].BaseURL, "http://or.local/api/v1"},
		"generic url":     {cfg.Providers["generic"].BaseURL, "http://vllm.local/v1"},
		"generic key":     {cfg.Providers["generic"].APIKey.Reveal(), "generic-env-key"},
		"generic model":   {cfg.Providers["generic"].DefaultModel, "qwen2.5-7b"},
		"default":         {cfg.DefaultProvider, "generic"},
		"background":      {cfg.BackgroundProvider, "anthropic"},
		"background mdl":  {cfg.BackgroundModel, "claude-haiku-4-5"},
		"openai yaml key": {cfg.Providers["openai"].APIKey.Reveal(), "sk-yaml-openai-key"},
	}
	for what, c := range checks {
		if c[0] != c[1] {
			t.Errorf("%s = %q, want %q", what, c[0], c[1])
		}
	}
}

func TestLoadDefaults(t *testing.T) {
	cfg := load(t, "", "", nil)
	if cfg.Providers["openrouter"].BaseURL != defaultOpenRouterBaseURL {
		t.Errorf("openrouter base URL = %q", cfg.Providers["openrouter"].BaseURL)
	}
	if cfg.Providers["openai"].DefaultModel != "gpt-4o-mini" || cfg.Providers["generic"].DefaultModel != "" {
		t.Errorf("default models: %+v", cfg.Providers)
	}
	if cfg.DefaultProvider != "" || cfg.BackgroundProvider != "" {
		t.Errorf("default %q background %q, want unset", cfg.DefaultProvider, cfg.BackgroundProvider)
	}
}

func TestLoadMissingFilesAreEmpty(t *testing.T) {
	if _, err := Load(LoadOptions{YAMLPath: "/nonexistent/providers.yaml", DotEnvPath: "/nonexistent/.env"}); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(LoadOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestLoadRejectsMalformedYAML(t *testing.T) {
	_, err := Load(files(t, "providers: [unclosed", "", nil))
	if err == nil || !strings.Contains(err.Error(), "providers.yaml") {
		t.Errorf("err = %v", err)
	}
}

func TestLoadRejectsUnknownProviderNames(t *testing.T) {
	for _, env := range []map[string]string{
		{EnvDefaultProvider: "gemini"},
		{EnvBackgroundProvider: "gemini"},
	} {
		_, err := Load(files(t, "", "", env))
		if smriti.ErrorCode(err) != smriti.EINVALID || !strings.Contains(err.Error(), "gemini") || !strings.Contains(err.Error(), "openrouter") {
			t.Errorf("env %v: err = %v", env, err)
		}
	}
}

func TestParseDotEnv(t *testing.T) {
	got := ParseDotEnv([]byte(`# comment
PLAIN=value
export EXPORTED=yes
  SPACED = padded  
DOUBLE="with \"escapes\"\nand newline"
SINGLE='literal \n # not a comment'
INLINE=value # trailing comment
HASH=abc#def
EMPTY=
URL=http://host:8080/v1?x=1
not a line
=novalue
BAD KEY=x
UNTERMINATED="open
`))
	want := map[string]string{
		"PLAIN":        "value",
		"EXPORTED":     "yes",
		"SPACED":       "padded",
		"DOUBLE":       "with \"escapes\"\nand newline",
		"SINGLE":       `literal \n # not a comment`,
		"INLINE":       "value",
		"HASH":         "abc#def",
		"EMPTY":        "",
		"URL":          "http://host:8080/v1?x=1",
		"UNTERMINATED": `"open`,
	}
	if len(got) != len(want) {
		t.Errorf("got %d keys %v, want %d", len(got), got, len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}

func TestLoadDoesNotTouchProcessEnvironment(t *testing.T) {
	const name = "SMRITI_TEST_DOTENV_ONLY"
	opts := files(t, "", name+"=1\n", nil)
	if _, err := Load(opts); err != nil {
		t.Fatal(err)
	}
	if _, ok := os.LookupEnv(name); ok {
		t.Errorf("Load set %s in the process environment", name)
	}
}

// A key must not come out of a Config however it is printed, logged or
// encoded.
func TestSecretsDoNotLeakFromConfig(t *testing.T) {
	cfg := load(t, fullYAML, "", map[string]string{EnvGenericKey: "generic-env-secret"})
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("config", "cfg", cfg, "openai", cfg.Providers["openai"].APIKey)
	js, _ := json.Marshal(cfg)
	ym, _ := yaml.Marshal(cfg)
	outputs := map[string]string{
		"%v":  fmt.Sprintf("%v", cfg),
		"%+v": fmt.Sprintf("%+v", *cfg),
		"%#v": fmt.Sprintf("%#v", *cfg),
		//lint:ignore S1025 the test is about what the %s verb prints
		"%s":   fmt.Sprintf("%s", cfg.Providers["openai"].APIKey),
		"json": string(js),
		"yaml": string(ym),
		"slog": logged.String(),
	}
	if !strings.Contains(outputs["json"], redacted) {
		t.Errorf("json output does not show the key as redacted: %s", outputs["json"])
	}
	for how, out := range outputs {
		for _, k := range []string{"sk-yaml-openai-key", "sk-ant-yaml-key", "sk-or-yaml-key", "generic-env-secret"} {
			if strings.Contains(out, k) {
				t.Errorf("%s output contains key %q: %s", how, k, out)
			}
		}
	}
}

func FuzzParseDotEnv(f *testing.F) {
	for _, seed := range []string{
		"A=1\n", "export B='x y'\n", `C="a\"b\\n"` + "\n", "# c\nD=e # f\n", "=x\n", "E=\"open\n", "F='\n", "G= \"\"\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data string) {
		for k := range ParseDotEnv([]byte(data)) {
			if k == "" || strings.ContainsAny(k, " \t=\n") {
				t.Errorf("bad key %q from %q", k, data)
			}
		}
	})
}
