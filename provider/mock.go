package provider

import (
	"context"
	"fmt"
	"strings"

	"smriti/intelligence"
	"smriti/provider/mockderive"
)

// mockEchoLimit is how much of the user's message the mock echoes, in
// characters.
const mockEchoLimit = 200

// Mock is the deterministic offline provider. It answers text requests with
// an echo of the last user message and a digest of the request's
// annotations, and structured requests with mockderive.Reply,
// so tests and users without a key can see what a model would have been
// given.
type Mock struct{}

// Name returns "mock".
func (Mock) Name() string { return intelligence.ProviderMock }

// Complete returns the deterministic reply.
func (Mock) Complete(ctx context.Context, req intelligence.CompletionRequest) (*intelligence.Completion, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return mockCompletion(req), nil
}

// Stream sends the deterministic reply a word at a time.
func (Mock) Stream(ctx context.Context, req intelligence.CompletionRequest, onDelta func(string) error) (*intelligence.Completion, error) {
	c := mockCompletion(req)
	for _, word := range strings.SplitAfter(c.Text, " ") {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if word == "" {
			continue
		}
		if err := onDelta(word); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func mockCompletion(req intelligence.CompletionRequest) *intelligence.Completion {
	model := first(req.Model, intelligence.ProviderMock)
	var text string
	if req.Schema != nil {
		text = mockderive.Reply(req)
	} else {
		text = mockText(model, req)
	}
	in := 0
	for _, m := range req.Messages {
		in += estimateTokens(m.Content)
	}
	return &intelligence.Completion{
		Text:  text,
		Model: model,
		Usage: intelligence.Usage{InputTokens: in, OutputTokens: estimateTokens(text)},
	}
}

func mockText(model string, req intelligence.CompletionRequest) string {
	said := "Hello"
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			said = truncateRunes(req.Messages[i].Content, mockEchoLimit)
			break
		}
	}
	text := fmt.Sprintf("[mock:%s] You said: \"%s\".", model, said)
	var digest []string
	for _, k := range []string{"mode", "checkpoints", "turns"} {
		if v, ok := req.Annotations[k]; ok {
			digest = append(digest, k+"="+v)
		}
	}
	if len(digest) > 0 {
		text += " Context: " + strings.Join(digest, " ") + "."
	}
	return text
}

// estimateTokens is the usual four-bytes-a-token guess, rounded up.
func estimateTokens(s string) int { return (len(s) + 3) / 4 }

func truncateRunes(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}
