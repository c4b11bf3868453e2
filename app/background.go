package app

import (
	"context"

	"smriti/intelligence"
	"smriti/secrets"
)

// secretFreeProviders are the providers as the background model's use cases
// (draft, extract, review, title) see them: every message the model is given
// and every reply it returns passes the secret detector. Turns stored before
// redaction existed may still hold a secret; a draft must neither send it to
// the model nor carry it into the items it derives. (Chat sends redact the
// message itself, and a reply before storing it: see Chat.run.)
type secretFreeProviders struct{ intelligence.Providers }

func (ps secretFreeProviders) Provider(name string) (intelligence.Provider, error) {
	p, err := ps.Providers.Provider(name)
	if err != nil {
		return nil, err
	}
	return secretFreeProvider{p}, nil
}

func (ps secretFreeProviders) Background() (intelligence.Provider, string, error) {
	p, model, err := ps.Providers.Background()
	if err != nil {
		return nil, "", err
	}
	return secretFreeProvider{p}, model, nil
}

type secretFreeProvider struct{ intelligence.Provider }

func (p secretFreeProvider) Complete(ctx context.Context, req intelligence.CompletionRequest) (*intelligence.Completion, error) {
	c, err := p.Provider.Complete(ctx, redactedRequest(req))
	return redactedCompletion(c), err
}

func (p secretFreeProvider) Stream(ctx context.Context, req intelligence.CompletionRequest, onDelta func(string) error) (*intelligence.Completion, error) {
	c, err := p.Provider.Stream(ctx, redactedRequest(req), onDelta)
	return redactedCompletion(c), err
}

func redactedRequest(req intelligence.CompletionRequest) intelligence.CompletionRequest {
	msgs := make([]intelligence.Message, len(req.Messages))
	for i, m := range req.Messages {
		m.Content, _ = secrets.Redact(m.Content)
		msgs[i] = m
	}
	req.Messages = msgs
	return req
}

func redactedCompletion(c *intelligence.Completion) *intelligence.Completion {
	if c == nil {
		return nil
	}
	out := *c
	out.Text, _ = secrets.Redact(c.Text)
	return &out
}
