package tokenizer

import (
	"encoding/json"
	"maps"
	"os"
	"slices"
	"smriti/intelligence"
	"smriti/internal/estimate"
	"testing"
)

func corpus(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile("testdata/corpus.json")
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]string
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"english", "go", "json", "uuids", "chinese", "hindi", "emoji"} {
		if c[kind] == "" {
			t.Fatalf("corpus lacks %q", kind)
		}
	}
	return c
}

// Known counts pin the embedded encodings: a changed asset or a broken
// loader shows up here rather than as a silently different budget.
func TestKnownCounts(t *testing.T) {
	for _, tt := range []struct {
		enc, text string
		want      int
	}{
		{CL100K, "hello world", 2},
		{O200K, "hello world", 2},
		{CL100K, "", 0},
		{CL100K, "tiktoken is great!", 6},
	} {
		got, err := Count(tt.enc, tt.text)
		if err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("Count(%s, %q) = %d, want %d", tt.enc, tt.text, got, tt.want)
		}
	}
}

func TestEncodingFor(t *testing.T) {
	for _, tt := range []struct{ provider, model, want string }{
		{"openai", "gpt-4o-mini", O200K},
		{"openai", "gpt-4.1", O200K},
		{"openai", "gpt-5", O200K},
		{"openai", "o3-mini", O200K},
		{"openai", "o1", O200K},
		{"openai", "gpt-4-turbo", CL100K},
		{"openai", "gpt-3.5-turbo", CL100K},
		{"openrouter", "openai/gpt-4o", O200K},
		{"openrouter", "OpenAI/GPT-4", CL100K},
		{"openrouter", "anthropic/claude-3.5-sonnet", ""},
		{"openrouter", "gpt-4o", ""},
		{"generic", "gpt-4o", O200K},
		{"generic", "llama3.1:8b", ""},
		{"anthropic", "claude-sonnet-4", ""},
		{"mock", "mock", ""},
		{"openai", "o10-preview", ""},
	} {
		if got := EncodingFor(tt.provider, tt.model); got != tt.want {
			t.Errorf("EncodingFor(%q, %q) = %q, want %q", tt.provider, tt.model, got, tt.want)
		}
	}
}

// For OpenAI models the counter's answer is tiktoken's count, exactly.
func TestCorpusOpenAIExact(t *testing.T) {
	c := corpus(t)
	var counter Counter
	for _, model := range []struct{ provider, model, enc string }{
		{"openai", "gpt-4o", O200K}, {"openai", "gpt-4", CL100K}, {"openrouter", "openai/gpt-4.1-mini", O200K},
	} {
		for _, kind := range slices.Sorted(maps.Keys(c)) {
			want, err := Count(model.enc, c[kind])
			if err != nil {
				t.Fatal(err)
			}
			got, exact := counter.CountTokens(model.provider, model.model, c[kind])
			if got != want || !exact {
				t.Errorf("%s/%s %s: CountTokens = %d (exact %v), tiktoken %s = %d", model.provider, model.model, kind, got, exact, model.enc, want)
			}
		}
	}
}

// For other models the estimate is used. Measured against both BPE
// encodings at hand, the estimate (which includes its margin) never
// undercounts, and it is not so high as to waste most of a window.
func TestCorpusEstimateMargin(t *testing.T) {
	c := corpus(t)
	var counter Counter
	for _, kind := range slices.Sorted(maps.Keys(c)) {
		got, exact := counter.CountTokens("anthropic", "claude-sonnet-4", c[kind])
		if exact {
			t.Fatalf("anthropic count claims to be exact")
		}
		if got != estimate.Tokens(c[kind]) {
			t.Fatalf("%s: counter %d != EstimateTokens %d", kind, got, estimate.Tokens(c[kind]))
		}
		highest := 0
		for _, enc := range []string{CL100K, O200K} {
			ref, err := Count(enc, c[kind])
			if err != nil {
				t.Fatal(err)
			}
			if got < ref {
				t.Errorf("%s: estimate %d undercounts %s's %d by more than the %d%% margin", kind, got, enc, ref, estimate.MarginPercent)
			}
			highest = max(highest, ref)
		}
		if got > 3*highest {
			t.Errorf("%s: estimate %d is over three times the highest BPE count %d", kind, got, highest)
		}
	}
}

func TestCountMessagesExact(t *testing.T) {
	msgs := []intelligence.Message{{Role: "system", Content: "You are continuing a conversation."}, {Role: "user", Content: "hello world"}}
	sys, _ := Count(O200K, msgs[0].Content)
	want := intelligence.ReplyPrimingTokens + sys + 2 + 2*intelligence.MessageOverheadTokens
	if got := intelligence.CountMessages(Counter{}, "openai", "gpt-4o", msgs); got != want {
		t.Fatalf("CountMessages = %d, want %d", got, want)
	}
}

func BenchmarkCountO200K(b *testing.B) {
	text := "Smriti keeps the reasoning state of a long conversation as checkpoints. "
	var c Counter
	c.CountTokens("openai", "gpt-4o", text)
	b.ResetTimer()
	for range b.N {
		c.CountTokens("openai", "gpt-4o", text)
	}
}
