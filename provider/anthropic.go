package provider

import (
	"context"
	"errors"
	"net/http"
	"smriti/intelligence"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"smriti"
)

// anthropicDefaultMaxTokens is sent when a request sets no cap; the
// Messages API requires one.
const anthropicDefaultMaxTokens = 4096

// anthropicAdapter speaks the Messages API through the official SDK.
// Structured output goes through tool use: one tool whose input schema is
// the requested schema, forced with tool_choice, and the tool call's input
// is the reply. (The first implementation passed OpenAI's response_format,
// which the Messages API rejects.)
type anthropicAdapter struct {
	msgs anthropic.MessageService
	call *caller
}

func newAnthropic(baseURL, key string, hc *http.Client, call *caller) *anthropicAdapter {
	opts := []option.RequestOption{
		// Without this the SDK would also read ANTHROPIC_AUTH_TOKEN,
		// profiles and the like from the process environment.
		option.WithoutEnvironmentDefaults(),
		option.WithAPIKey(key),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0), // retryTransport retries
	}
	if baseURL != "" {
		opts = append(opts, option.WithBaseURL(baseURL))
	}
	return &anthropicAdapter{msgs: anthropic.NewClient(opts...).Messages, call: call}
}

func (p *anthropicAdapter) Name() string { return intelligence.ProviderAnthropic }

func (p *anthropicAdapter) params(req intelligence.CompletionRequest) anthropic.MessageNewParams {
	params := anthropic.MessageNewParams{
		Model:     req.Model,
		MaxTokens: anthropicDefaultMaxTokens,
	}
	if req.MaxTokens > 0 {
		params.MaxTokens = int64(req.MaxTokens)
	}
	var system []string
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			system = append(system, m.Content)
		case "assistant":
			params.Messages = append(params.Messages, anthropic.NewAssistantMessage(anthropic.NewTextBlock(m.Content)))
		default:
			params.Messages = append(params.Messages, anthropic.NewUserMessage(anthropic.NewTextBlock(m.Content)))
		}
	}
	if len(system) > 0 {
		params.System = []anthropic.TextBlockParam{{Text: strings.Join(system, "\n")}}
	}
	if req.Schema != nil {
		name := schemaName(req.Schema)
		params.Tools = []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{
			Name:        name,
			Description: anthropic.String("Record the answer as structured data matching the schema."),
			InputSchema: toolInputSchema(req.Schema.Schema),
		}}}
		params.ToolChoice = anthropic.ToolChoiceParamOfTool(name)
	}
	return params
}

// toolInputSchema carries a JSON Schema object into the SDK's input schema,
// whose properties and required have fields of their own.
func toolInputSchema(schema map[string]any) anthropic.ToolInputSchemaParam {
	in := anthropic.ToolInputSchemaParam{Properties: schema["properties"], ExtraFields: map[string]any{}}
	switch req := schema["required"].(type) {
	case []string:
		in.Required = req
	case []any:
		for _, r := range req {
			if s, ok := r.(string); ok {
				in.Required = append(in.Required, s)
			}
		}
	}
	for k, v := range schema {
		switch k {
		case "type", "properties", "required":
		default:
			in.ExtraFields[k] = v
		}
	}
	return in
}

// reply is a message's answer: the forced tool call's input in structured
// mode, else the text blocks.
func reply(msg *anthropic.Message, structured bool) string {
	var text strings.Builder
	for _, block := range msg.Content {
		switch block.Type {
		case "tool_use":
			if structured {
				return string(block.Input)
			}
		case "text":
			text.WriteString(block.Text)
		}
	}
	return text.String()
}

func usage(u anthropic.Usage) intelligence.Usage {
	return intelligence.Usage{
		InputTokens:  int(u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens),
		OutputTokens: int(u.OutputTokens),
	}
}

func (p *anthropicAdapter) Complete(ctx context.Context, req intelligence.CompletionRequest) (*intelligence.Completion, error) {
	var out *intelligence.Completion
	err := p.call.run(ctx, func(ctx context.Context) error {
		msg, err := p.msgs.New(ctx, p.params(req))
		if err != nil {
			return err
		}
		out = &intelligence.Completion{
			Text:  reply(msg, req.Schema != nil),
			Model: first(msg.Model, req.Model),
			Usage: usage(msg.Usage),
		}
		return nil
	})
	return out, err
}

func (p *anthropicAdapter) Stream(ctx context.Context, req intelligence.CompletionRequest, onDelta func(string) error) (*intelligence.Completion, error) {
	var out *intelligence.Completion
	err := p.call.stream(ctx, func(ctx context.Context, alive func()) error {
		stream := p.msgs.NewStreaming(ctx, p.params(req))
		defer stream.Close()
		var msg anthropic.Message
		for stream.Next() {
			event := stream.Current()
			alive()
			if err := msg.Accumulate(event); err != nil {
				return err
			}
			if event.Type != "content_block_delta" {
				continue
			}
			// Only the part that becomes the reply is streamed.
			var delta string
			switch {
			case event.Delta.Type == "text_delta" && req.Schema == nil:
				delta = event.Delta.Text
			case event.Delta.Type == "input_json_delta" && req.Schema != nil:
				delta = event.Delta.PartialJSON
			}
			if delta == "" {
				continue
			}
			if err := onDelta(delta); err != nil {
				return &deltaError{err}
			}
		}
		if err := stream.Err(); err != nil {
			// An error event after the stream began: the status was 200.
			var ae *anthropic.Error
			if errors.As(err, &ae) && ae.StatusCode < 400 {
				return smriti.Errorf(smriti.EUPSTREAM, "anthropic failed mid-stream: %s", upstreamMessage([]byte(ae.RawJSON())))
			}
			return err
		}
		out = &intelligence.Completion{
			Text:  reply(&msg, req.Schema != nil),
			Model: first(msg.Model, req.Model),
			Usage: usage(msg.Usage),
		}
		return nil
	})
	return out, err
}
