package smriti

import (
	"cmp"
	"context"
	"encoding/json"
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
	// Tokens counts tokens for budgets and for the count stored with each
	// turn; nil means estimateCounter.
	Tokens TokenCounter
	// Now stamps stored replies; nil means the production clock.
	Now Clock
}

// SendRequest is one user message to send.
type SendRequest struct {
	SessionID ID
	Provider  string
	Model     string
	Message   string
	// UseMock answers this send with the offline mock, recorded under the
	// provider and model the send asks for (see chooseProvider).
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
	// ReplyTokens is the reply reserve: the window share kept free for the
	// reply, and the max_tokens the provider is asked for.
	ReplyTokens int
	// Mount is the mount the send records on the session (a request naming
	// a new mounted checkpoint); nil when the session's mount stays.
	Mount *Mount
	// Unmount says the send ends the session's mount (an explicit
	// "mounted_checkpoint_id": null).
	Unmount bool
}

// SendResult is a completed (or replayed) send.
type SendResult struct {
	Prepared   *Prepared
	Exchange   *ExchangeResult
	Completion *Completion
	// Reply is what the assistant turn records about how it was made; for a
	// replayed send, what was recorded the first time.
	Reply ReplyMeta
}

// maxMessageChars bounds one user message.
const maxMessageChars = 100000

// Prepare resolves a send without calling the provider: the context preview
// endpoint shows exactly this. ENOTFOUND for an unknown session or mounted
// checkpoint; EINVALID for a mount outside the session's space;
// EUNPROCESSABLE for bad fields; EUNAVAILABLE for an unconfigured provider.
func (c *Chat) Prepare(ctx context.Context, req SendRequest) (*Prepared, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	se, err := c.Sessions.Session(ctx, req.SessionID)
	if err != nil {
		return nil, err
	}
	prov, model, err := c.chooseProvider(se, req)
	if err != nil {
		return nil, err
	}
	plan, err := planContext(se, req.Context)
	if err != nil {
		return nil, err
	}
	checkpoints, err := c.planCheckpoints(ctx, se, &plan)
	if err != nil {
		return nil, err
	}
	q := plan.resolve(checkpoints)
	window := c.Providers.ContextWindow(prov.Name(), model)
	reply := ReplyTokens(window)
	fixed := CountMessages(c.counter(), prov.Name(), model, buildPrompt(checkpoints, nil, req.Message))
	budget := req.HistoryBudget
	if budget <= 0 {
		budget = max(0, window-reply-fixed)
	}
	hist, err := c.Sessions.History(ctx, se, HistoryQuery{AfterSeq: q.AfterSeq, AfterLogPos: q.AfterLogPos, Budget: budget})
	if err != nil {
		return nil, err
	}
	// The prompt's size: the fixed messages counted now, the history turns
	// by the counts stored with them when they were written (no estimate
	// over the whole prompt).
	pc := assembleContext(plan, checkpoints, hist.Turns, req.Message, budget)
	pc.Tokens = fixed
	for _, t := range pc.Turns {
		pc.Tokens += TurnTokens(t) + MessageOverheadTokens
	}
	// Allowed turns older than the oldest one read were never read.
	pc.Dropped += hist.Unread
	return &Prepared{Session: se, Provider: prov, Model: model, Context: pc, Budget: budget, ReplyTokens: reply, Mount: plan.Mount, Unmount: plan.Unmount}, nil
}

func (c *Chat) counter() TokenCounter {
	if c.Tokens == nil {
		return estimateCounter{}
	}
	return c.Tokens
}

// chooseProvider picks the provider and model of a send: the provider
// asked for, else the session's. Without a model the session's model is
// used when the provider is the session's, else that provider's default. An
// unknown provider is refused first (EINVALID naming the known ones),
// whatever else is missing. use_mock makes the offline mock answer this one
// send in the chosen provider's name, as the first implementation does: the
// turns and the session record the provider and model asked for, configured
// or not ("mock" for what nothing names), and the next send without
// use_mock goes to that provider.
func (c *Chat) chooseProvider(se *Session, req SendRequest) (Provider, string, error) {
	name := strings.ToLower(strings.TrimSpace(req.Provider))
	model := strings.TrimSpace(req.Model)
	if name == "" {
		name = strings.ToLower(strings.TrimSpace(se.ActiveProvider))
	}
	if model == "" && name != "" && strings.EqualFold(name, se.ActiveProvider) {
		model = se.ActiveModel
	}
	name, model = ChooseModel(c.Providers, name, model)
	if req.UseMock {
		return c.mockAs(name, model)
	}
	p, err := c.Providers.Provider(name)
	if err != nil {
		return nil, "", err
	}
	if model == "" {
		return nil, "", Errorf(EINVALID, "Model must be specified (no default_model is configured for provider %q)", name)
	}
	return p, model, nil
}

// mockAs is the mock answering in the name of provider name and model.
func (c *Chat) mockAs(name, model string) (Provider, string, error) {
	mock, err := c.Providers.Provider(ProviderMock)
	if err != nil {
		return nil, "", err
	}
	if name == "" || name == ProviderMock {
		return mock, cmp.Or(model, ProviderMock), nil
	}
	if _, err := c.Providers.Provider(name); ErrorCode(err) == EINVALID {
		return nil, "", err
	}
	return namedProvider{Provider: mock, name: name}, cmp.Or(model, ProviderMock), nil
}

// namedProvider is a provider that reports another one's name.
type namedProvider struct {
	Provider
	name string
}

func (p namedProvider) Name() string { return p.name }

// planCheckpoints fetches the checkpoints a plan names, oldest first.
func (c *Chat) planCheckpoints(ctx context.Context, se *Session, plan *contextPlan) ([]*Checkpoint, error) {
	return planCheckpoints(ctx, c.Checkpoints, se, plan)
}

// planCheckpoints fetches the checkpoints a plan names, oldest first: the
// anchor (mount, or a fork's branch head) and its ancestors, or main's
// newest for HEAD, plan.Depth of them.
func planCheckpoints(ctx context.Context, cps CheckpointService, se *Session, plan *contextPlan) ([]*Checkpoint, error) {
	if plan.Mode == ModeForked && se.SpaceID != nil {
		// HEAD on the fork's branch: its newest checkpoint, once there is one.
		newest, err := cps.LatestCheckpoints(ctx, *se.SpaceID, plan.Branch, 1)
		if err != nil {
			return nil, err
		}
		if len(newest) == 1 {
			plan.Anchor = &newest[0].ID
		}
	}
	switch {
	case plan.Anchor != nil:
		chain, err := cps.Ancestors(ctx, *plan.Anchor, plan.Depth)
		if err != nil {
			if ErrorCode(err) == ENOTFOUND && plan.Mode == ModeMounted {
				return nil, Errorf(ENOTFOUND, "mounted checkpoint %s not found", *plan.Anchor)
			}
			return nil, err
		}
		if plan.Mode == ModeMounted {
			if err := checkMount(se, chain[len(chain)-1]); err != nil {
				return nil, err
			}
		}
		return chain, nil
	case plan.Mode == ModeHead && se.SpaceID != nil:
		newest, err := cps.LatestCheckpoints(ctx, *se.SpaceID, MainBranch, plan.Depth)
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
	if err := req.Validate(); err != nil {
		return nil, err
	}
	if req.IdempotencyKey != "" {
		prev, err := c.Sessions.ReplayExchange(ctx, req.SessionID, req.IdempotencyKey)
		if err != nil {
			return nil, err
		}
		if prev != nil {
			if err := checkReplay(req, prev); err != nil {
				return nil, err
			}
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
	creq := CompletionRequest{Model: p.Model, Messages: p.Context.Messages, MaxTokens: p.ReplyTokens, Annotations: p.Context.annotations()}
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
	write, meta := c.exchange(req, p, comp)
	ex, err := c.Sessions.AppendExchange(ctx, write)
	if err != nil {
		return nil, err
	}
	if ex.Replayed {
		// A concurrent send with the same key stored its exchange first.
		if err := checkReplay(req, ex); err != nil {
			return nil, err
		}
		meta = ReplyMetaOf(ex.Assistant)
	}
	return &SendResult{Prepared: p, Exchange: ex, Completion: comp, Reply: meta}, nil
}

func (c *Chat) exchange(req SendRequest, p *Prepared, comp *Completion) (Exchange, ReplyMeta) {
	now := c.Now
	if now == nil {
		now = Now
	}
	meta := ReplyMeta{Usage: comp.Usage, Context: p.Context.replyContext(), At: now().UTC().Truncate(time.Second)}
	provider := p.Provider.Name()
	userTokens, _ := c.counter().CountTokens(provider, p.Model, req.Message)
	replyTokens, _ := c.counter().CountTokens(provider, p.Model, comp.Text)
	ex := Exchange{
		SessionID:      req.SessionID,
		IdempotencyKey: req.IdempotencyKey,
		RequestHash:    requestDigest(req),
		Mount:          p.Mount,
		Unmount:        p.Unmount,
		User:           TurnWrite{Content: req.Message, Provider: provider, Model: p.Model, Tokens: userTokens},
		Assistant: TurnWrite{Content: comp.Text, Provider: provider, Model: p.Model, Tokens: replyTokens,
			Metadata: meta.metadata()},
	}
	if req.IdempotencyKey == "" {
		ex.RequestHash = ""
	}
	return ex, meta
}

// replayed answers a repeated idempotency key with the stored exchange,
// without calling the provider again.
func (c *Chat) replayed(ctx context.Context, req SendRequest, ex *ExchangeResult, onMeta func(*Prepared) error, onDelta func(string) error) (*SendResult, error) {
	se, err := c.Sessions.Session(ctx, req.SessionID)
	if err != nil {
		return nil, err
	}
	meta := ReplyMetaOf(ex.Assistant)
	p := &Prepared{Session: se, Model: ex.Assistant.Model, Context: &PromptContext{Mode: meta.Context.Mode, Checkpoints: []*Checkpoint{}}}
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
	comp := &Completion{Text: ex.Assistant.Content, Model: ex.Assistant.Model, Usage: meta.Usage}
	return &SendResult{Prepared: p, Exchange: ex, Completion: comp, Reply: meta}, nil
}

// ReplyMeta is what a send records with the assistant turn it stores — the
// provider's usage, the context the reply was built from and when — kept as
// the turn's metadata (JSON) and read back by a replayed send.
type ReplyMeta struct {
	Usage   Usage        `json:"usage"`
	Context ReplyContext `json:"context"`
	At      time.Time    `json:"at"`
}

// ReplyContext says which context a reply was built from.
type ReplyContext struct {
	Mode          ContextMode `json:"mode"`
	CheckpointIDs []ID        `json:"checkpoint_ids"`
	CommitHashes  []string    `json:"commit_hashes,omitempty"`
	DroppedTurns  int         `json:"dropped_turns"`
	// FromSeq and ToSeq are the first and last history turn sent; absent
	// when none was.
	FromSeq *int64 `json:"from_seq,omitempty"`
	ToSeq   *int64 `json:"to_seq,omitempty"`
}

// metadata returns m as a turn's metadata: the JSON object it is stored as.
func (m ReplyMeta) metadata() map[string]any {
	b, err := json.Marshal(m)
	if err != nil {
		panic(err) // a struct of plain fields always encodes
	}
	out := map[string]any{}
	_ = json.Unmarshal(b, &out)
	return out
}

// ReplyMetaOf reads back the ReplyMeta a send stored with an assistant turn;
// fields the turn does not record are left zero.
func ReplyMetaOf(t *Turn) ReplyMeta {
	var m ReplyMeta
	if b, err := json.Marshal(t.Metadata); err == nil {
		_ = json.Unmarshal(b, &m)
	}
	if m.Context.CheckpointIDs == nil {
		m.Context.CheckpointIDs = []ID{}
	}
	return m
}
