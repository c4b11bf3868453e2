// Package tokenizer counts tokens with the model's real tokenizer where one
// is available offline: OpenAI's BPE encodings (cl100k_base, o200k_base)
// for OpenAI models, whether called directly, through OpenRouter
// ("openai/gpt-4o") or through a generic OpenAI-compatible server serving an
// OpenAI model name. Every other model gets estimate.Tokens.
//
// The encodings ship inside the binary (no download) and are loaded on the
// first count that needs one, so a server that never counts an OpenAI
// prompt never pays their memory.
package tokenizer

import (
	"smriti/intelligence"
	"smriti/internal/estimate"
	"strings"
	"sync"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// Encoding names.
const (
	CL100K = "cl100k_base"
	O200K  = "o200k_base"
)

// Counter implements smriti.TokenCounter. The zero value is ready to use;
// it is safe for concurrent use.
type Counter struct{}

var _ intelligence.TokenCounter = Counter{}

// CountTokens returns the exact count for OpenAI-family models and
// estimate.Tokens otherwise.
func (Counter) CountTokens(provider, model, text string) (int, bool) {
	name := EncodingFor(provider, model)
	if name == "" {
		return estimate.Tokens(text), false
	}
	enc, err := load(name)
	if err != nil {
		return estimate.Tokens(text), false
	}
	return len(enc.EncodeOrdinary(text)), true
}

// EncodingFor names the OpenAI encoding of a model, or "" when the model is
// not an OpenAI model (so no exact tokenizer is at hand). For OpenRouter
// only "openai/…" models qualify; for the other providers the model name
// itself must be an OpenAI one.
func EncodingFor(provider, model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	if vendor, rest, ok := strings.Cut(m, "/"); ok {
		if vendor != "openai" {
			return ""
		}
		m = rest
	} else if strings.EqualFold(provider, intelligence.ProviderOpenRouter) {
		return ""
	}
	switch {
	case strings.HasPrefix(m, "gpt-4o"), strings.HasPrefix(m, "gpt-4.1"), strings.HasPrefix(m, "gpt-4.5"),
		strings.HasPrefix(m, "gpt-5"), strings.HasPrefix(m, "chatgpt-4o"), strings.HasPrefix(m, "gpt-oss"),
		m == "o1" || strings.HasPrefix(m, "o1-"), m == "o3" || strings.HasPrefix(m, "o3-"),
		m == "o4-mini" || strings.HasPrefix(m, "o4-mini-"):
		return O200K
	case strings.HasPrefix(m, "gpt-4"), strings.HasPrefix(m, "gpt-3.5"), strings.HasPrefix(m, "text-embedding-"):
		return CL100K
	}
	return ""
}

var (
	loaderOnce sync.Once
	mu         sync.Mutex
	encodings  = map[string]*tiktoken.Tiktoken{}
)

// load returns the named encoding, building it on first use from the
// ranks embedded in the binary.
func load(name string) (*tiktoken.Tiktoken, error) {
	loaderOnce.Do(func() { tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader()) })
	mu.Lock()
	defer mu.Unlock()
	if enc, ok := encodings[name]; ok {
		return enc, nil
	}
	enc, err := tiktoken.GetEncoding(name)
	if err != nil {
		return nil, err
	}
	encodings[name] = enc
	return enc, nil
}

// Count encodes text with the named encoding (CL100K or O200K) and returns
// the number of tokens.
func Count(encoding, text string) (int, error) {
	enc, err := load(encoding)
	if err != nil {
		return 0, err
	}
	return len(enc.EncodeOrdinary(text)), nil
}
