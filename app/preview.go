package app

import (
	"context"

	"smriti"
	"smriti/intelligence"
)

// Preview is what a send would give the model, without calling it (no
// gate: nothing reaches a provider). With no session and a space it is
// what a new session of the space would start from; nothing is stored.
func (a *App) Preview(ctx context.Context, space *smriti.ID, req SendRequest) (*Prepared, error) {
	if req.SessionID == smriti.NilID && space != nil {
		if _, err := a.store.Space(ctx, *space); err != nil {
			return nil, err
		}
		provider, model := ChooseModel(a.providers, req.Provider, req.Model)
		fresh := &smriti.Session{SpaceID: space, BranchName: smriti.MainBranch, ActiveProvider: provider, ActiveModel: model,
			BranchDisposition: smriti.DispositionActive, LastSeq: -1, Metadata: map[string]any{}}
		return a.chat.PrepareFor(ctx, fresh, req)
	}
	return a.chat.Prepare(ctx, req)
}

// PreviewUsage is what a preview reports beside the prompt: whether its
// token figures are exact for the model, and the provider's usage of the
// session's last reply (nil when it has none).
type PreviewUsage struct {
	ExactTokens bool
	LastUsage   *intelligence.Usage
}

// UsageOf is the PreviewUsage of a prepared send.
func (a *App) UsageOf(ctx context.Context, p *Prepared) (PreviewUsage, error) {
	var out PreviewUsage
	if tokens := a.chat.Tokens; tokens != nil {
		_, out.ExactTokens = tokens.CountTokens(p.Provider.Name(), p.Model, "")
	}
	if p.Session.ID == smriti.NilID { // a new session's preview has no turns yet
		return out, nil
	}
	last, err := a.store.Turns(ctx, p.Session.ID, smriti.TurnQuery{Newest: true, Limit: 2, ExcludeSystem: true})
	if err != nil {
		return out, err
	}
	for _, t := range last {
		if t.Role == smriti.RoleAssistant {
			u := intelligence.ReplyMetaOf(t).Usage
			out.LastUsage = &u
			break
		}
	}
	return out, nil
}

// ContextPreview is a summary of what a send would give the model.
type ContextPreview struct {
	Mode          string
	Provider      string
	Model         string
	Checkpoints   []*smriti.Checkpoint
	TurnCount     int
	DroppedTurns  int
	TokenEstimate int
	Messages      []intelligence.Message
}

// PreviewContext is what a send of message in the session would give the
// model; with no session (smriti.NilID), what a new session of space
// would (see Preview).
func (a *App) PreviewContext(ctx context.Context, space *smriti.ID, session smriti.ID, message string) (*ContextPreview, error) {
	p, err := a.Preview(ctx, space, SendRequest{SessionID: session, Message: message})
	if err != nil {
		return nil, err
	}
	return &ContextPreview{Mode: string(p.Context.Mode), Provider: p.Provider.Name(), Model: p.Model,
		Checkpoints: p.Context.Checkpoints, TurnCount: len(p.Context.Turns), DroppedTurns: p.Context.Dropped,
		TokenEstimate: p.Context.Tokens, Messages: p.Context.Messages}, nil
}
