package smriti

import (
	"context"
	"strings"
	"time"
)

// Chat runs sends: it resolves the context a session may see, asks the
// provider, and stores the user turn and the reply together once the
// provider has answered — so a failed call writes nothing.
type Chat struct {
	Sessions    SessionService
	Checkpoints CheckpointService
	Providers   Providers
}

// SendRequest is one user message to send.
type SendRequest struct {
	SessionID ID
	Provider  string
	Model     string
	Message   string
	// UseMock answers with the offline mock whatever Provider says.
	UseMock bool
	Context ContextRequest
	// IdempotencyKey makes a retried send return the stored reply.
	IdempotencyKey string
	// HistoryBudget overrides the token budget for history turns (0 = derived
	// from the model's context window).
	HistoryBudget int
}

// Prepared is a send resolved up to the provider call: what the model will
// be given and by whom.
type Prepared struct {
	Session  *Session
	Provider Provider
	Model    string
	Context  *PromptContext
	// Budget is the token budget the history turns were fitted to.
	Budget int
}

// SendResult is a completed (or replayed) send.
type SendResult struct {
	Prepared   *Prepared
	Exchange   *ExchangeResult
	Completion *Completion
}

// maxMessageChars bounds one user message.
const maxMessageChars = 100000

// History is read newest first in pages: the first page is small, later
// ones are sized from the budget left and the turns' average size so far,
// so a typical send reads about what fits in one or two round trips.
const (
	firstHistoryPage = 128
	maxHistoryPage   = 2048
)

// Prepare resolves a send without calling the provider: the context preview
// endpoint shows exactly this. ENOTFOUND for an unknown session or mounted
// checkpoint; EINVALID for a mount outside the session's space;
// EUNPROCESSABLE for bad fields; EUNAVAILABLE for an unconfigured provider.
func (c *Chat) Prepare(ctx context.Context, req SendRequest) (*Prepared, error) {
	if strings.TrimSpace(req.Message) == "" {
		return nil, Errorf(EUNPROCESSABLE, "message is required")
	}
	if len([]rune(req.Message)) > maxMessageChars {
		return nil, Errorf(EUNPROCESSABLE, "message must be at most %d characters", maxMessageChars)
	}
	se, err := c.Sessions.Session(ctx, req.SessionID)
	if err != nil {
		return nil, err
	}
	prov, model, err := c.chooseProvider(se, req)
	if err != nil {
		return nil, err
	}
	plan, err := PlanContext(se, req.Context)
	if err != nil {
		return nil, err
	}
	checkpoints, err := c.planCheckpoints(ctx, se, &plan)
	if err != nil {
		return nil, err
	}
	q, firstAllowed, err := c.seqBounded(ctx, se, plan.Resolve(checkpoints))
	if err != nil {
		return nil, err
	}
	budget := req.HistoryBudget
	if budget <= 0 {
		budget = HistoryBudget(c.Providers.ContextWindow(prov.Name(), model), DefaultReplyReserve,
			BuildPrompt(checkpoints, nil, req.Message)...)
	}
	turns, more, err := c.historyWithin(ctx, se.ID, q, budget)
	if err != nil {
		return nil, err
	}
	pc := AssembleContext(plan, checkpoints, turns, req.Message, budget)
	if more {
		// Allowed turns older than the oldest one read were never read;
		// sequence numbers are gapless, so count them.
		pc.Dropped += int(max(0, turns[len(turns)-1].Seq-firstAllowed))
	}
	return &Prepared{Session: se, Provider: prov, Model: model, Context: pc, Budget: budget}, nil
}

func (c *Chat) chooseProvider(se *Session, req SendRequest) (Provider, string, error) {
	name := strings.ToLower(strings.TrimSpace(req.Provider))
	if req.UseMock {
		name = ProviderMock
	}
	if name == "" {
		name = se.ActiveProvider
	}
	if name == "" {
		name = c.Providers.DefaultProvider()
	}
	model := strings.TrimSpace(req.Model)
	if model == "" {
		model = c.Providers.DefaultModel(name)
	}
	if model == "" && name == ProviderMock {
		model = "mock"
	}
	if model == "" {
		return nil, "", Errorf(EINVALID, "Model must be specified (no default_model is configured for provider %q)", name)
	}
	p, err := c.Providers.Provider(name)
	if err != nil {
		return nil, "", err
	}
	return p, model, nil
}

// planCheckpoints fetches the checkpoints a plan names, oldest first.
func (c *Chat) planCheckpoints(ctx context.Context, se *Session, plan *ContextPlan) ([]*Checkpoint, error) {
	switch {
	case plan.Anchor != nil:
		chain, err := c.Checkpoints.Ancestors(ctx, *plan.Anchor, plan.Depth)
		if err != nil {
			if ErrorCode(err) == ENOTFOUND && plan.Mode == ModeMounted {
				return nil, Errorf(ENOTFOUND, "mounted checkpoint %s not found", *plan.Anchor)
			}
			return nil, err
		}
		if plan.Mode == ModeMounted {
			if err := CheckMount(se, chain[len(chain)-1]); err != nil {
				return nil, err
			}
		}
		return chain, nil
	case plan.Mode == ModeHead && se.SpaceID != nil:
		newest, err := c.Checkpoints.LatestCheckpoints(ctx, *se.SpaceID, MainBranch, plan.Depth)
		if err != nil {
			return nil, err
		}
		out := make([]*Checkpoint, len(newest))
		for i, cp := range newest {
			out[len(newest)-1-i] = cp
		}
		return out, nil
	}
	return nil, nil
}

// historyWithin reads allowed turns newest first, a page at a time, until
// the budget is spent: a long session costs what fits, not its length.
// more reports that allowed turns remain unread.
func (c *Chat) historyWithin(ctx context.Context, sessionID ID, q TurnQuery, budget int) (turns []*Turn, more bool, err error) {
	used := 0
	q.Limit, q.PromptOnly = firstHistoryPage, true
	for {
		page, err := c.Sessions.Turns(ctx, sessionID, q)
		if err != nil {
			return nil, false, err
		}
		for i, t := range page {
			used += TurnTokens(t)
			if used > budget {
				return append(turns, page[:i+1]...), true, nil
			}
		}
		turns = append(turns, page...)
		if len(page) < q.Limit {
			return turns, false, nil
		}
		before := page[len(page)-1].Seq
		q.BeforeSeq = &before
		avg := max(1, used/len(turns))
		q.Limit = min(maxHistoryPage, max(firstHistoryPage, (budget-used)/avg+16))
	}
}

// seqBounded turns the history query into a pure sequence-number bound and
// returns the first allowed sequence number. The allowed turns of a session
// are always a gapless suffix of it (no mode skips turns in the middle), so
// a HEAD log-position bound is resolved once, up front, to the first turn
// after it; every page then walks the sequence index.
func (c *Chat) seqBounded(ctx context.Context, se *Session, q TurnQuery) (TurnQuery, int64, error) {
	switch {
	case q.AfterLogPos != nil:
		first := q
		first.Newest, first.Limit, first.PromptOnly = false, 1, true
		oldest, err := c.Sessions.Turns(ctx, se.ID, first)
		if err != nil {
			return q, 0, err
		}
		bound := se.LastSeq
		if len(oldest) == 1 {
			bound = oldest[0].Seq - 1
		}
		q.AfterLogPos, q.AfterSeq = nil, &bound
		return q, bound + 1, nil
	case q.AfterSeq != nil:
		return q, *q.AfterSeq + 1, nil
	}
	return q, 0, nil
}

// Send resolves the context, calls the provider and stores both turns.
func (c *Chat) Send(ctx context.Context, req SendRequest) (*SendResult, error) {
	return c.run(ctx, req, nil, nil)
}

// Stream is Send with the reply delivered piece by piece: onMeta once the
// context is resolved, onDelta per piece. If ctx ends (the client went
// away) the provider call is cancelled and nothing is stored.
func (c *Chat) Stream(ctx context.Context, req SendRequest, onMeta func(*Prepared) error, onDelta func(string) error) (*SendResult, error) {
	if onDelta == nil {
		onDelta = func(string) error { return nil }
	}
	return c.run(ctx, req, onMeta, onDelta)
}

func (c *Chat) run(ctx context.Context, req SendRequest, onMeta func(*Prepared) error, onDelta func(string) error) (*SendResult, error) {
	if req.IdempotencyKey != "" {
		prev, err := c.Sessions.ReplayExchange(ctx, req.SessionID, req.IdempotencyKey)
		if err != nil {
			return nil, err
		}
		if prev != nil {
			return c.replayed(ctx, req, prev, onMeta, onDelta)
		}
	}
	p, err := c.Prepare(ctx, req)
	if err != nil {
		return nil, err
	}
	if onMeta != nil {
		if err := onMeta(p); err != nil {
			return nil, err
		}
	}
	creq := CompletionRequest{Model: p.Model, Messages: p.Context.Messages, Annotations: p.Context.Annotations()}
	var comp *Completion
	if onDelta != nil {
		comp, err = p.Provider.Stream(ctx, creq, onDelta)
	} else {
		comp, err = p.Provider.Complete(ctx, creq)
	}
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, Errorf(EUPSTREAM, "the request was cancelled before the reply was stored")
	}
	ex, err := c.Sessions.AppendExchange(ctx, c.exchange(req, p, comp))
	if err != nil {
		return nil, err
	}
	return &SendResult{Prepared: p, Exchange: ex, Completion: comp}, nil
}

func (c *Chat) exchange(req SendRequest, p *Prepared, comp *Completion) Exchange {
	ids := make([]string, len(p.Context.Checkpoints))
	for i, cp := range p.Context.Checkpoints {
		ids[i] = cp.ID.String()
	}
	ctxMeta := map[string]any{"mode": string(p.Context.Mode), "checkpoint_ids": ids, "dropped_turns": p.Context.Dropped}
	if from, to := p.Context.SeqRange(); from != nil {
		ctxMeta["from_seq"], ctxMeta["to_seq"] = *from, *to
	}
	provider := p.Provider.Name()
	return Exchange{
		SessionID:      req.SessionID,
		IdempotencyKey: req.IdempotencyKey,
		User:           TurnWrite{Content: req.Message, Provider: provider, Model: p.Model, Tokens: EstimateTokens(req.Message)},
		Assistant: TurnWrite{Content: comp.Text, Provider: provider, Model: p.Model, Tokens: EstimateTokens(comp.Text),
			Metadata: map[string]any{
				"usage":   map[string]any{"input_tokens": comp.Usage.InputTokens, "output_tokens": comp.Usage.OutputTokens},
				"context": ctxMeta,
				"at":      time.Now().UTC().Format(time.RFC3339),
			}},
	}
}

// replayed answers a repeated idempotency key with the stored exchange,
// without calling the provider again.
func (c *Chat) replayed(ctx context.Context, req SendRequest, ex *ExchangeResult, onMeta func(*Prepared) error, onDelta func(string) error) (*SendResult, error) {
	se, err := c.Sessions.Session(ctx, req.SessionID)
	if err != nil {
		return nil, err
	}
	p := &Prepared{Session: se, Model: ex.Assistant.Model, Context: &PromptContext{Checkpoints: []*Checkpoint{}}}
	if m, ok := ex.Assistant.Metadata["context"].(map[string]any); ok {
		if mode, ok := m["mode"].(string); ok {
			p.Context.Mode = ContextMode(mode)
		}
	}
	if onMeta != nil {
		if err := onMeta(p); err != nil {
			return nil, err
		}
	}
	if onDelta != nil {
		if err := onDelta(ex.Assistant.Content); err != nil {
			return nil, err
		}
	}
	comp := &Completion{Text: ex.Assistant.Content, Model: ex.Assistant.Model}
	if u, ok := ex.Assistant.Metadata["usage"].(map[string]any); ok {
		comp.Usage.InputTokens = toInt(u["input_tokens"])
		comp.Usage.OutputTokens = toInt(u["output_tokens"])
	}
	return &SendResult{Prepared: p, Exchange: ex, Completion: comp}, nil
}

func toInt(v any) int {
	switch n := v.(type) {
	case float64:
		return int(n)
	case int:
		return n
	case int64:
		return int(n)
	}
	return 0
}
