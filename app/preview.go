package app

import (
	"context"

	"smriti"
	"smriti/contract"
	"smriti/intelligence"
)

// prepareView prepares a send without calling the model (no gate:
// nothing reaches a provider). With no session and a space it prepares
// the first send of a new session of the space; nothing is stored.
func (a *App) prepareView(ctx context.Context, space *smriti.ID, req SendRequest) (*Prepared, error) {
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

// readUsage sets what a preview reports beside the prompt: whether its
// token figures are exact for the model, and the provider's usage of the
// session's last reply (nil when it has none).
func (a *App) readUsage(ctx context.Context, p *Prepared, out *ContextPreview) error {
	if tokens := a.chat.Tokens; tokens != nil {
		_, out.ExactTokens = tokens.CountTokens(p.Provider.Name(), p.Model, "")
	}
	if p.Session.ID == smriti.NilID { // a new session's preview has no turns yet
		return nil
	}
	last, err := a.store.Turns(ctx, p.Session.ID, contract.TurnQuery{Newest: true, Limit: 2, ExcludeSystem: true})
	if err != nil {
		return err
	}
	for _, t := range last {
		if t.Role == smriti.RoleAssistant {
			u := intelligence.ReplyMetaOf(t).Usage
			out.LastUsage = &u
			break
		}
	}
	return nil
}

// ContextPreview is the whole of what a send would give the model: every
// entry point (the HTTP answer, the MCP tool in-process and over the API)
// translates this one value.
type ContextPreview struct {
	Mode     string
	Provider string
	Model    string
	// Checkpoints are those given to the model, oldest first.
	Checkpoints []PreviewCheckpoint
	// FromSeq and ToSeq bound the history turns sent (nil when none).
	FromSeq, ToSeq *int64
	TurnCount      int
	// DroppedTurns counts the allowed turns left out to fit HistoryBudget.
	DroppedTurns  int
	HistoryBudget int
	// TokenEstimate is the whole prompt's size; ExactTokens says it comes
	// from the model's own tokenizer.
	TokenEstimate int
	ExactTokens   bool
	ReplyTokens   int
	// Mount is the mount the send would run under: the one the request
	// names, else the session's (nil when none).
	Mount *smriti.Mount
	// LastUsage is the provider's usage of the session's newest reply (nil
	// before the first).
	LastUsage *intelligence.Usage
	Messages  []intelligence.Message
	ContextTurns
}

// PreviewCheckpoint names a checkpoint given to the model.
type PreviewCheckpoint struct {
	ID         smriti.ID
	Hash       string
	Message    string
	BranchName string
}

// PreviewContext is what req would give the model, without calling it;
// with no session (smriti.NilID) and a space, what a new session of the
// space would start from; nothing is stored.
func (a *App) PreviewContext(ctx context.Context, space *smriti.ID, req SendRequest) (*ContextPreview, error) {
	p, err := a.prepareView(ctx, space, req)
	if err != nil {
		return nil, err
	}
	out := &ContextPreview{Mode: string(p.Context.Mode), Provider: p.Provider.Name(), Model: p.Model,
		Checkpoints: make([]PreviewCheckpoint, 0, len(p.Context.Checkpoints)), TurnCount: len(p.Context.Turns),
		DroppedTurns: p.Context.Dropped, HistoryBudget: p.Budget, TokenEstimate: p.Context.Tokens, ReplyTokens: p.ReplyTokens,
		Mount: p.Session.Mount, Messages: p.Context.Messages}
	if p.Mount != nil {
		out.Mount = p.Mount
	}
	for _, c := range p.Context.Checkpoints {
		out.Checkpoints = append(out.Checkpoints, PreviewCheckpoint{ID: c.ID, Hash: c.Hash, Message: c.Message, BranchName: c.BranchName})
	}
	out.FromSeq, out.ToSeq = p.Context.SeqRange()
	if err := a.readUsage(ctx, p, out); err != nil {
		return nil, err
	}
	if out.ContextTurns, err = a.contextTurns(ctx, p); err != nil {
		return nil, err
	}
	return out, nil
}
