package app

import (
	"cmp"
	"context"
	"smriti"
	"smriti/contract"
	"smriti/intelligence"
	"smriti/internal/clock"
	"strings"
	"time"
)

// Chat runs sends: it resolves the context a session may see, asks the
// provider, and stores the user turn and the reply together once the
// provider has answered — so a failed call writes nothing.
type Chat struct {
	Sessions    contract.SessionService
	Checkpoints contract.CheckpointService
	Providers   intelligence.Providers
	// Tokens counts tokens for budgets and for the count stored with each
	// turn; nil means estimateCounter.
	Tokens intelligence.TokenCounter
	// Now stamps stored replies; nil means the production clock.
	Now clock.Clock
	// cache keeps rendered checkpoint state by the checkpoints' ids and
	// hashes; nil renders it on every send.
	cache *stateCache
	// epoch is the store's CacheEpoch (nil: never changes); the cache is
	// dropped when it moves.
	epoch func() int64
	// allow is the allowlist of a session's space (nil: none).
	allow func(ctx context.Context, session smriti.ID) func(rule, fingerprint string) bool
	// sessionHead reads a session with the head of main in its space (see
	// Store.SessionHead); nil reads the session, then the head.
	sessionHead func(ctx context.Context, id smriti.ID) (*smriti.Session, *smriti.Checkpoint, error)
}

// SendRequest is one user message to send.
type SendRequest struct {
	SessionID smriti.ID
	Provider  string
	Model     string
	Message   string
	// UseMock answers this send with the offline mock, recorded under the
	// provider and model the send asks for (see chooseProvider).
	UseMock bool
	Context intelligence.ContextRequest
	// IdempotencyKey makes a retried send return the stored reply.
	IdempotencyKey string
	// HistoryBudget overrides the token budget for history turns (0 = derived
	// from the model's context window).
	HistoryBudget int
}

// Prepared is a send resolved up to the provider call: what the model will
// be given and by whom.
type Prepared struct {
	Session  *smriti.Session
	Provider intelligence.Provider
	Model    string
	Context  *intelligence.PromptContext
	// Budget is the token budget the history turns were fitted to.
	Budget int
	// ReplyTokens is the reply reserve: the window share kept free for the
	// reply, and the max_tokens the provider is asked for.
	ReplyTokens int
	// Mount is the mount the send records on the session (a request naming
	// a new mounted checkpoint); nil when the session's mount stays.
	Mount *smriti.Mount
	// Unmount says the send ends the session's mount (an explicit
	// "mounted_checkpoint_id": null).
	Unmount bool
	// Allowed is the query for the turns the context mode allows, before
	// the token budget is applied.
	Allowed contract.TurnQuery
}

// SendResult is a completed (or replayed) send.
type SendResult struct {
	Prepared   *Prepared
	Exchange   *contract.ExchangeResult
	Completion *intelligence.Completion
	// Reply is what the assistant turn records about how it was made; for a
	// replayed send, what was recorded the first time.
	Reply intelligence.ReplyMeta
	// Redactions are the secrets replaced in the stored turns: field
	// "message" (the user's, replaced before the provider saw it) or
	// "reply". Each turn records its own in metadata.redactions, so a
	// replayed send answers the same.
	Redactions []smriti.Redaction
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
	if c.sessionHead != nil {
		se, head, err := c.sessionHead(ctx, req.SessionID)
		if err != nil {
			return nil, err
		}
		return c.prepare(ctx, se, req, &mainHead{head})
	}
	se, err := c.Sessions.Session(ctx, req.SessionID)
	if err != nil {
		return nil, err
	}
	return c.prepare(ctx, se, req, nil)
}

// PrepareFor is Prepare for a session that need not be stored (a new
// session's preview): se is read, never written.
func (c *Chat) PrepareFor(ctx context.Context, se *smriti.Session, req SendRequest) (*Prepared, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	return c.prepare(ctx, se, req, nil)
}

// mainHead is the head of main in a session's space, read with the session
// (nil: main has no checkpoint).
type mainHead struct{ cp *smriti.Checkpoint }

// heads are the checkpoints of a plan without their content, oldest first:
// the head read with the session for HEAD on the newest one alone,
// otherwise read now.
func (c *Chat) heads(ctx context.Context, se *smriti.Session, plan *intelligence.ContextPlan, known *mainHead) ([]*smriti.Checkpoint, error) {
	if known != nil && plan.Mode == intelligence.ModeHead && plan.Depth == 1 && se.SpaceID != nil {
		if known.cp == nil {
			return []*smriti.Checkpoint{}, nil
		}
		return []*smriti.Checkpoint{known.cp}, nil
	}
	return intelligence.PlanHeads(ctx, c.Checkpoints, se, plan)
}

// prepare resolves a send in se; head, when not nil, is the head of main
// read with se.
func (c *Chat) prepare(ctx context.Context, se *smriti.Session, req SendRequest, head *mainHead) (*Prepared, error) {
	prov, model, err := c.chooseProvider(se, req)
	if err != nil {
		return nil, err
	}
	plan, err := intelligence.PlanContext(se, req.Context)
	if err != nil {
		return nil, err
	}
	// The checkpoints' identity is read on every send, their content only
	// the first time they are seen (see stateCache).
	checkpoints, err := c.heads(ctx, se, &plan, head)
	if err != nil {
		return nil, err
	}
	state, err := c.state(ctx, checkpoints)
	if err != nil {
		return nil, err
	}
	q := plan.Resolve(checkpoints)
	window := c.Providers.ContextWindow(prov.Name(), model)
	reply := intelligence.ReplyTokens(window)
	// As CountMessages of the system message and the new message.
	msgTokens, _ := c.counter().CountTokens(prov.Name(), model, req.Message)
	fixed := intelligence.ReplyPrimingTokens + c.cache.tokens(state, c.counter(), prov.Name(), model) + msgTokens + 2*intelligence.MessageOverheadTokens
	budget := req.HistoryBudget
	if budget <= 0 {
		budget = max(0, window-reply-fixed)
	}
	hist, err := c.Sessions.History(ctx, se, contract.HistoryQuery{AfterSeq: q.AfterSeq, AfterLogPos: q.AfterLogPos, Budget: budget})
	if err != nil {
		return nil, err
	}
	// The prompt's size: the fixed messages counted now, the history turns
	// by the counts stored with them when they were written (no estimate
	// over the whole prompt).
	pc := intelligence.AssembleContext(plan, checkpoints, state.system, hist.Turns, req.Message, budget)
	pc.Tokens = fixed
	for _, t := range pc.Turns {
		pc.Tokens += t.TokenCount() + intelligence.MessageOverheadTokens
	}
	// Allowed turns older than the oldest one read were never read.
	pc.Dropped += hist.Unread
	return &Prepared{Session: se, Provider: prov, Model: model, Context: pc, Budget: budget, ReplyTokens: reply, Mount: plan.Mount, Unmount: plan.Unmount, Allowed: q}, nil
}

func (c *Chat) counter() intelligence.TokenCounter {
	if c.Tokens == nil {
		return intelligence.EstimateCounter{}
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
func (c *Chat) chooseProvider(se *smriti.Session, req SendRequest) (intelligence.Provider, string, error) {
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
		return nil, "", smriti.Errorf(smriti.EINVALID, "Model must be specified (no default_model is configured for provider %q)", name)
	}
	return p, model, nil
}

// mockAs is the mock answering in the name of provider name and model.
func (c *Chat) mockAs(name, model string) (intelligence.Provider, string, error) {
	mock, err := c.Providers.Provider(intelligence.ProviderMock)
	if err != nil {
		return nil, "", err
	}
	if name == "" || name == intelligence.ProviderMock {
		return mock, cmp.Or(model, intelligence.ProviderMock), nil
	}
	if _, err := c.Providers.Provider(name); smriti.ErrorCode(err) == smriti.EINVALID {
		return nil, "", err
	}
	return namedProvider{Provider: mock, name: name}, cmp.Or(model, intelligence.ProviderMock), nil
}

// namedProvider is a provider that reports another one's name.
type namedProvider struct {
	intelligence.Provider
	name string
}

func (p namedProvider) Name() string { return p.name }

// Send resolves the context, calls the provider and stores both turns.
func (c *Chat) Send(ctx context.Context, req SendRequest) (*SendResult, error) {
	return c.run(ctx, req, nil, nil)
}

// Stream is Send with the reply delivered piece by piece: onMeta once the
// context is resolved, onDelta per piece. If ctx ends (the client went
// away: the user stopped it) the provider call is cancelled, and the
// question is stored with the reply as far as it got, marked stopped.
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
	// A secret in the message is replaced before anything else sees it: the
	// provider, the stored turn and the idempotency digest all get the
	// redacted text, so a retry of the same send matches.
	var rs redactions
	if c.allow != nil {
		rs.allow = c.allow(ctx, req.SessionID)
	}
	rs.text("message", &req.Message)
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
	creq := intelligence.CompletionRequest{Model: p.Model, Messages: p.Context.Messages, MaxTokens: p.ReplyTokens, Annotations: p.Context.Annotations()}
	var comp *intelligence.Completion
	var partial *partialReply
	if onDelta != nil {
		partial = &partialReply{}
		comp, err = p.Provider.Stream(ctx, creq, partial.relay(onDelta))
	} else {
		comp, err = p.Provider.Complete(ctx, creq)
	}
	if err != nil {
		if partial.stopped(ctx) {
			return c.keepStopped(ctx, req, p, partial.text.String(), err, rs)
		}
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		cancelled := smriti.Errorf(smriti.EUPSTREAM, "the request was cancelled before the reply was stored")
		if partial.stopped(ctx) {
			return c.keepStopped(ctx, req, p, comp.Text, cancelled, rs)
		}
		return nil, cancelled
	}
	write, meta := c.exchange(req, p, comp, &rs)
	ex, err := c.Sessions.AppendExchange(ctx, write)
	if err != nil {
		return nil, err
	}
	if ex.Replayed {
		// A concurrent send with the same key stored its exchange first.
		if err := checkReplay(req, ex); err != nil {
			return nil, err
		}
		meta = intelligence.ReplyMetaOf(ex.Assistant)
	}
	return &SendResult{Prepared: p, Exchange: ex, Completion: comp, Reply: meta, Redactions: rs.found}, nil
}

// exchange is the write of a send's two turns; the reply is redacted here
// (the message was, before the provider saw it), its secrets added to rs.
func (c *Chat) exchange(req SendRequest, p *Prepared, comp *intelligence.Completion, rs *redactions) (contract.Exchange, intelligence.ReplyMeta) {
	reply := comp.Text
	rs.text("reply", &reply)
	now := c.Now
	if now == nil {
		now = clock.Now
	}
	meta := intelligence.ReplyMeta{Usage: comp.Usage, Context: p.Context.Reply(), At: now().UTC().Truncate(time.Second)}
	provider := p.Provider.Name()
	userTokens, _ := c.counter().CountTokens(provider, p.Model, req.Message)
	replyTokens, _ := c.counter().CountTokens(provider, p.Model, reply)
	ex := contract.Exchange{
		SessionID:      req.SessionID,
		IdempotencyKey: req.IdempotencyKey,
		RequestHash:    requestDigest(req),
		Mount:          p.Mount,
		Unmount:        p.Unmount,
		User:           contract.TurnWrite{Content: req.Message, Provider: provider, Model: p.Model, Tokens: userTokens},
		Assistant: contract.TurnWrite{Content: reply, Provider: provider, Model: p.Model, Tokens: replyTokens,
			Metadata: meta.Metadata()},
	}
	if req.IdempotencyKey == "" {
		ex.RequestHash = ""
	}
	ex.User.Metadata = withRedactions(ex.User.Metadata, rs.found, "message")
	ex.Assistant.Metadata = withRedactions(ex.Assistant.Metadata, rs.found, "reply")
	return ex, meta
}

// replayed answers a repeated idempotency key with the stored exchange,
// without calling the provider again.
func (c *Chat) replayed(ctx context.Context, req SendRequest, ex *contract.ExchangeResult, onMeta func(*Prepared) error, onDelta func(string) error) (*SendResult, error) {
	se, err := c.Sessions.Session(ctx, req.SessionID)
	if err != nil {
		return nil, err
	}
	meta := intelligence.ReplyMetaOf(ex.Assistant)
	p := &Prepared{Session: se, Model: ex.Assistant.Model, Context: &intelligence.PromptContext{Mode: meta.Context.Mode, Checkpoints: []*smriti.Checkpoint{}}}
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
	comp := &intelligence.Completion{Text: ex.Assistant.Content, Model: ex.Assistant.Model, Usage: meta.Usage}
	rs := append(turnRedactions(ex.User, "message"), turnRedactions(ex.Assistant, "reply")...)
	return &SendResult{Prepared: p, Exchange: ex, Completion: comp, Reply: meta, Redactions: rs}, nil
}
