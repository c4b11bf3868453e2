package provider

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"smriti/intelligence"
	"strings"
	"sync"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/shared"

	"smriti"
)

const defaultOpenAIBaseURL = "https://api.openai.com/v1/"

// schemaMode is how an OpenAI-compatible server is asked for JSON.
type schemaMode int

const (
	// jsonSchema sends response_format json_schema (OpenAI, OpenRouter).
	jsonSchema schemaMode = iota
	// jsonObject sends response_format json_object and puts the schema in a
	// system message: Ollama, vLLM and LM Studio do not all accept
	// json_schema, but they accept this.
	jsonObject
)

// openAICompat speaks the Chat Completions API through the official SDK. It
// serves openai, openrouter and generic, which differ only in base URL, how
// they cap tokens and how they are asked for JSON.
type openAICompat struct {
	name string
	chat openai.ChatCompletionService
	call *caller
	mode schemaMode
	// maxCompletionTokens: OpenAI's newer models reject max_tokens;
	// other servers mostly know only max_tokens.
	maxCompletionTokens bool
}

func newOpenAICompat(name, baseURL, key string, mode schemaMode, hc *http.Client, call *caller) *openAICompat {
	if baseURL == "" {
		baseURL = defaultOpenAIBaseURL
	}
	// The service is built directly rather than through openai.NewClient,
	// which would also read OPENAI_* variables from the process environment
	// (and send, say, an OpenAI organization header to OpenRouter).
	chat := openai.NewChatCompletionService(
		option.WithBaseURL(baseURL),
		option.WithAPIKey(key),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0), // retryTransport retries
	)
	return &openAICompat{
		name:                name,
		chat:                chat,
		call:                call,
		mode:                mode,
		maxCompletionTokens: name == intelligence.ProviderOpenAI,
	}
}

func (p *openAICompat) Name() string { return p.name }

func (p *openAICompat) params(req intelligence.CompletionRequest) openai.ChatCompletionNewParams {
	params := openai.ChatCompletionNewParams{Model: req.Model}
	if req.Schema != nil && p.mode == jsonObject {
		params.Messages = append(params.Messages, openai.SystemMessage(schemaInstruction(req.Schema)))
	}
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			params.Messages = append(params.Messages, openai.SystemMessage(m.Content))
		case "assistant":
			params.Messages = append(params.Messages, openai.AssistantMessage(m.Content))
		default:
			params.Messages = append(params.Messages, openai.UserMessage(m.Content))
		}
	}
	if req.MaxTokens > 0 {
		if p.maxCompletionTokens {
			params.MaxCompletionTokens = openai.Int(int64(req.MaxTokens))
		} else {
			params.MaxTokens = openai.Int(int64(req.MaxTokens))
		}
	}
	if req.Schema != nil {
		switch p.mode {
		case jsonSchema:
			params.ResponseFormat.OfJSONSchema = &shared.ResponseFormatJSONSchemaParam{
				JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
					Name:   schemaName(req.Schema),
					Schema: req.Schema.Schema,
					// Strict mode demands every property be required and
					// additionalProperties false; Smriti's schemas need not.
					Strict: openai.Bool(false),
				},
			}
		case jsonObject:
			params.ResponseFormat.OfJSONObject = &shared.ResponseFormatJSONObjectParam{}
		}
	}
	return params
}

func (p *openAICompat) Complete(ctx context.Context, req intelligence.CompletionRequest) (*intelligence.Completion, error) {
	var out *intelligence.Completion
	err := p.call.run(ctx, func(ctx context.Context) error {
		res, err := p.chat.New(ctx, p.params(req))
		if err != nil {
			return err
		}
		if len(res.Choices) == 0 {
			return smriti.Errorf(smriti.EUPSTREAM, "%s returned no choices", p.name)
		}
		out = &intelligence.Completion{
			Text:  res.Choices[0].Message.Content,
			Model: first(res.Model, req.Model),
			Usage: intelligence.Usage{
				InputTokens:  int(res.Usage.PromptTokens),
				OutputTokens: int(res.Usage.CompletionTokens),
			},
		}
		return nil
	})
	return out, err
}

func (p *openAICompat) Stream(ctx context.Context, req intelligence.CompletionRequest, onDelta func(string) error) (*intelligence.Completion, error) {
	var out *intelligence.Completion
	err := p.call.stream(ctx, func(ctx context.Context, alive func()) error {
		params := p.params(req)
		params.StreamOptions.IncludeUsage = openai.Bool(true)
		stream := p.chat.NewStreaming(ctx, params)
		defer stream.Close()
		var text strings.Builder
		c := &intelligence.Completion{Model: req.Model}
		for stream.Next() {
			chunk := stream.Current()
			alive()
			if chunk.Model != "" {
				c.Model = chunk.Model
			}
			if chunk.JSON.Usage.Valid() {
				c.Usage.InputTokens = int(chunk.Usage.PromptTokens)
				c.Usage.OutputTokens = int(chunk.Usage.CompletionTokens)
			}
			for _, choice := range chunk.Choices {
				if choice.Index != 0 || choice.Delta.Content == "" {
					continue
				}
				text.WriteString(choice.Delta.Content)
				if err := onDelta(choice.Delta.Content); err != nil {
					return &deltaError{err}
				}
			}
		}
		if err := stream.Err(); err != nil {
			// An error event after the stream began: the status was 200.
			var se *ssestream.StreamError
			if errors.As(err, &se) {
				return smriti.Errorf(smriti.EUPSTREAM, "%s failed mid-stream: %s", p.name, upstreamMessage(se.Event.Data))
			}
			return err
		}
		c.Text = text.String()
		out = c
		return nil
	})
	return out, err
}

// nonNameChars is compiled on the first structured call, not at every start.
var nonNameChars = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9_-]+`) })

// schemaName makes the schema's name acceptable as an OpenAI response format
// name or an Anthropic tool name (^[A-Za-z0-9_-]{1,64}$).
func schemaName(s *intelligence.JSONSchema) string {
	name := nonNameChars().ReplaceAllString(s.Name, "_")
	if len(name) > 64 {
		name = name[:64]
	}
	if strings.Trim(name, "_") == "" {
		return "structured_output"
	}
	return name
}

// schemaInstruction carries the schema to servers that are asked only for
// "a JSON object".
func schemaInstruction(s *intelligence.JSONSchema) string {
	schema, err := json.Marshal(s.Schema)
	if err != nil {
		schema = []byte("{}")
	}
	return "Reply with a single JSON object, and nothing else, that matches this JSON Schema:\n" + string(schema)
}
