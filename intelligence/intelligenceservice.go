package intelligence

import (
	"context"
	"fmt"
	"slices"
	"smriti"
	"smriti/contract"
	"smriti/internal/textutil"
	"strings"
	"unicode/utf8"
)

// Background intelligence orchestration: which turns a draft reads, which
// provider answers, one retry when the answer is unusable, and the
// poisoning defences applied to whatever comes back. The prompts, schemas
// and parsers it uses are in intelligenceprompt.go, draftparse.go and poison.go.

// Draft and extract limits.
const (
	MaxDraftTurns = 100
	// MaxExtractChars bounds the trimmed markdown an extract reads.
	MaxExtractChars = 200000
	// titleTurns is how many of a session's first turns name it.
	titleTurns = 4
	// maxRetryEcho bounds how much of an unusable reply is sent back to the
	// model with the retry prompt, so a runaway reply is not paid for twice.
	maxRetryEcho = 16000
)

// Intelligence drafts, extracts and reviews checkpoints and names sessions
// with the background intelligence provider. Every method is scoped to the
// caller in ctx through the services.
type Intelligence struct {
	Sessions    contract.SessionService
	Checkpoints contract.CheckpointService
	// Items reads the base's items; nil drafts as if every base had none.
	Items     contract.ItemService
	Providers Providers
}

// DraftRequest asks for a checkpoint draft from a session's recent turns.
type DraftRequest struct {
	SessionID smriti.ID
	// NumTurns is how many of the most recent unconsumed turns to read:
	// 1..MaxDraftTurns; nil reads them all (see Draft).
	NumTurns *int
	// MountedCheckpointID and HistoryBaseSeq isolate the draft as a send
	// would (see PlanContext).
	MountedCheckpointID *smriti.ID
	HistoryBaseSeq      *int64
}

// DraftResult is a draft: the proposed full content (Draft), the base it
// changes (nil for a first checkpoint), the proposed items (tombstones
// included) and the changes, and the turns it was drafted from (nil when
// the session had no allowed turns and nothing was asked of a model).
type DraftResult struct {
	Draft       *Draft
	Base        *smriti.Checkpoint
	Items       []smriti.Item
	Changes     []smriti.ItemDelta
	SourceTurns *smriti.SourceTurns
	// Model is the model that answered ("" when none was asked).
	Model string
	// Chunks is how many model calls the draft took (0 when none).
	Chunks int
}

// ExtractRequest asks for a checkpoint from a freeform markdown document.
type ExtractRequest struct {
	Markdown string
	// UseMock answers with the deterministic offline mock whatever the
	// background slot is.
	UseMock bool
	// Onto is the checkpoint the document changes (nil: a first checkpoint,
	// every item new).
	Onto *smriti.ID
}

// emptyDraft is the draft of nothing: every field empty, lists non-nil.
func emptyDraft() *Draft {
	return &Draft{Decisions: []string{}, Assumptions: []string{}, Tasks: []smriti.Task{}, OpenQuestions: []string{},
		Entities: []string{}, Artifacts: []smriti.Artifact{}, Warnings: []string{}}
}

// Draft drafts a checkpoint from the session's turns as a change list over
// its base: the checkpoint the session's context stands on (HEAD: main's
// newest; MOUNTED: the mount; FORKED: the branch's newest, or the fork
// source before the first commit on the branch). The model gets the base's
// items and the turns and answers operations; ComposeDraft applies them, so
// everything the turns did not touch is carried into the proposal.
//
// Which turns: every turn of the session that no checkpoint has accounted
// for yet (CheckpointService.TurnsConsumed), within the isolation of a send
// (PlanContext): a mount reads only turns after history_base_seq (or,
// without one, after the session's last turn — nothing), a fork its own
// turns. Unlike a send, a draft does not cut at the newest main
// checkpoint's log position: another session saving on main does not
// account for this conversation's reasoning. A session whose turns were
// saved already proposes nothing about them again, even when the branch
// head (its base) has changed them since.
//
// When the range is larger than the background model's window, it is read
// in chunks, oldest first, each chunk's changes applied onto the result of
// the previous one (Chunks says how many). NumTurns reads only the most
// recent turns of the range, with a warning naming the turns left out.
// With no turns to read, the proposal is the base itself and no model is
// called, so drafting works even with no provider configured.
//
// Errors: EUNPROCESSABLE for NumTurns out of range or a bad
// HistoryBaseSeq; ENOTFOUND for an unknown session or mounted checkpoint;
// EINVALID for a mounted checkpoint of another space; EUNAVAILABLE when the
// background provider is not configured; EUPSTREAM when it fails or answers
// unusable JSON twice.
func (in *Intelligence) Draft(ctx context.Context, req DraftRequest) (*DraftResult, error) {
	if req.NumTurns != nil && (*req.NumTurns < 1 || *req.NumTurns > MaxDraftTurns) {
		return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "num_turns must be between 1 and %d, not %d", MaxDraftTurns, *req.NumTurns)
	}
	s, err := in.Sessions.Session(ctx, req.SessionID)
	if err != nil {
		return nil, err
	}
	plan, err := PlanContext(s, ContextRequest{MountedCheckpointID: req.MountedCheckpointID, HistoryBaseSeq: req.HistoryBaseSeq})
	if err != nil {
		return nil, err
	}
	if plan.Mode == ModeMounted {
		c, err := in.Checkpoints.Checkpoint(ctx, *plan.Anchor)
		if smriti.ErrorCode(err) == smriti.ENOTFOUND {
			return nil, smriti.Errorf(smriti.ENOTFOUND, "Mounted checkpoint not found")
		} else if err != nil {
			return nil, err
		}
		if err := CheckMount(s, c); err != nil {
			return nil, err
		}
	}
	base, baseItems, err := in.draftBase(ctx, s, plan)
	if err != nil {
		return nil, err
	}
	turns, warnings, err := in.unconsumedTurns(ctx, s, plan, req.NumTurns)
	if err != nil {
		return nil, err
	}
	if len(turns) == 0 {
		res := composedResult(base, baseItems, &ChangeReply{Warnings: warnings}, nil, "")
		return res, nil
	}
	p, model, err := in.background(false)
	if err != nil {
		return nil, err
	}
	reply, chunks, err := in.draftChunks(ctx, p, model, base, baseItems, turns, s.ID)
	if err != nil {
		return nil, err
	}
	reply.Warnings = append(warnings, reply.Warnings...)
	sid := s.ID
	res := composedResult(base, baseItems, reply, &sid, model)
	res.SourceTurns = &smriti.SourceTurns{SessionID: s.ID, FromSeq: turns[0].Seq, ToSeq: turns[len(turns)-1].Seq}
	res.Chunks = chunks
	return res, nil
}

// MaxDraftRange bounds the unconsumed turns one draft reads; older ones are
// left out with a warning (a draft of a longer range is a series of drafts).
const MaxDraftRange = 2000

// unconsumedTurns are the turns a draft reads, oldest first: the plan's
// allowed turns after the last one a checkpoint accounts for, the numTurns
// most recent of them when given, with a warning for each range left out.
func (in *Intelligence) unconsumedTurns(ctx context.Context, s *smriti.Session, plan ContextPlan, numTurns *int) ([]*smriti.Turn, []string, error) {
	consumed, err := in.Checkpoints.TurnsConsumed(ctx, s.ID)
	if err != nil {
		return nil, nil, err
	}
	// Resolving without checkpoints keeps the mount's sequence boundary and
	// turns HEAD into FRESH: the whole session (see above).
	q := plan.Resolve(nil)
	if consumed >= 0 && (q.AfterSeq == nil || *q.AfterSeq < consumed) {
		q.AfterSeq = &consumed
	}
	warnings := []string{}
	if numTurns == nil {
		// Oldest first: what is left over is the newest, which the next
		// draft after saving this one reads.
		q.Newest, q.Limit = false, MaxDraftRange+1
		turns, err := in.Sessions.Turns(ctx, s.ID, q)
		if err != nil {
			return nil, nil, err
		}
		if len(turns) > MaxDraftRange {
			turns = turns[:MaxDraftRange]
			warnings = append(warnings, fmt.Sprintf("A draft reads at most %d turns: turns after %d are in no checkpoint yet and were not read; "+
				"save this draft, then draft again to read them", MaxDraftRange, turns[len(turns)-1].Seq))
		}
		return turns, warnings, nil
	}
	q.Limit = *numTurns + 1 // one more tells whether turns were left out
	turns, err := in.Sessions.Turns(ctx, s.ID, q)
	if err != nil {
		return nil, nil, err
	}
	if len(turns) > *numTurns {
		turns = turns[:*numTurns]
		from := int64(0)
		if q.AfterSeq != nil {
			from = *q.AfterSeq + 1
		}
		warnings = append(warnings, fmt.Sprintf("num_turns is %d, so turns %d to %d, which no checkpoint accounts for yet, were not read: "+
			"draft without num_turns to read every turn not yet saved", *numTurns, from, turns[len(turns)-1].Seq-1))
	}
	slices.Reverse(turns) // newest first → oldest first
	return turns, warnings, nil
}

// draftChunks asks the model for the changes the turns make to the base,
// in as many calls as the model's window needs: each chunk of turns goes
// with the state the previous chunks left, and the replies' operations are
// concatenated (ComposeDraft applies them in order, and mints the same ids
// for the same adds, so a later chunk may change what an earlier one added).
// It returns the combined reply and the number of calls.
func (in *Intelligence) draftChunks(ctx context.Context, p Provider, model string, base *smriti.Checkpoint, baseItems []smriti.Item,
	turns []*smriti.Turn, session smriti.ID) (*ChangeReply, int, error) {
	window := in.Providers.ContextWindow(p.Name(), model)
	combined := &ChangeReply{Warnings: []string{}, Ops: []smriti.DraftOp{}, Artifacts: []smriti.Artifact{}}
	stateBase, stateItems := base, baseItems
	chunks := 0
	for len(turns) > 0 {
		fixed := EstimateMessages(DraftChangesPrompt(stateBase, stateItems, nil))
		n := chunkSize(turns, window-ReplyTokens(window)-fixed)
		var chunk []*smriti.Turn
		var reply *ChangeReply
		for {
			chunk = turns[:n]
			r, err := structuredCall(ctx, p, model, DraftChangesPrompt(stateBase, stateItems, chunk), DraftChangesSchema(), func(text string) (*ChangeReply, error) {
				return ParseChangeReply(text, false)
			})
			if err != nil {
				if chunks > 0 {
					return nil, 0, fmt.Errorf("draft turns %d to %d (chunk %d): %w", chunk[0].Seq, chunk[len(chunk)-1].Seq, chunks+1, err)
				}
				return nil, 0, err
			}
			// A reply at a cap may have left changes out: ask again about
			// half as many turns.
			if reply = r; n == 1 || !atCap(r) {
				break
			}
			n /= 2
		}
		turns = turns[n:]
		chunks++
		sources := make([]string, 0, len(chunk))
		for _, t := range chunk {
			sources = append(sources, t.Content)
		}
		dropInjectedOps(reply, "conversation", sources...)
		combined.add(reply)
		if len(turns) == 0 {
			break
		}
		// The next chunk reads the state so far.
		sid := session
		sofar := composedResult(base, baseItems, combined, &sid, model)
		content := sofar.Draft.Content()
		stateBase = &smriti.Checkpoint{Content: content}
		if base != nil {
			next := *base
			next.Content = content
			stateBase = &next
		}
		stateItems = sofar.Items
	}
	return combined, chunks, nil
}

// atCap reports whether a reply reached a cap of what one answer may hold
// (the operations, or the adds of one kind).
func atCap(r *ChangeReply) bool {
	if len(r.Ops) >= maxDraftOps {
		return true
	}
	adds := map[string]int{}
	for _, op := range r.Ops {
		if op.Op == smriti.OpAdd {
			if adds[op.Kind]++; adds[op.Kind] >= MaxDraftItems {
				return true
			}
		}
	}
	return false
}

// maxChunkTurns bounds the turns of one chunk whatever the window: a model
// asked about fewer turns at a time misses less.
const maxChunkTurns = 60

// chunkTurnOverhead is what a turn costs in the prompt beyond its content
// (its sequence number, role and the JSON around them).
const chunkTurnOverhead = 12

// chunkSize is how many of the turns (oldest first) fit in budget tokens;
// at least one, so a turn larger than the budget is read alone.
func chunkSize(turns []*smriti.Turn, budget int) int {
	used := 0
	turns = turns[:min(len(turns), maxChunkTurns)]
	for i, t := range turns {
		used += t.TokenCount() + chunkTurnOverhead
		if used > budget && i > 0 {
			return i
		}
	}
	return len(turns)
}

// draftBase is the checkpoint a session's draft changes, with its items.
func (in *Intelligence) draftBase(ctx context.Context, s *smriti.Session, plan ContextPlan) (*smriti.Checkpoint, []smriti.Item, error) {
	plan.Depth = 1
	chain, err := PlanCheckpoints(ctx, in.Checkpoints, s, &plan)
	if err != nil || len(chain) == 0 {
		return nil, nil, err
	}
	base := chain[len(chain)-1]
	items, err := in.itemsOf(ctx, base)
	return base, items, err
}

func (in *Intelligence) itemsOf(ctx context.Context, c *smriti.Checkpoint) ([]smriti.Item, error) {
	if c == nil || in.Items == nil {
		return nil, nil
	}
	return in.Items.CheckpointItems(ctx, c.ID)
}

// composedResult applies a reply to the base.
func composedResult(base *smriti.Checkpoint, baseItems []smriti.Item, r *ChangeReply, session *smriti.ID, model string) *DraftResult {
	var content *smriti.Content
	if base != nil {
		content = &base.Content
	}
	var title *string
	if r.Title != "" {
		title = &r.Title
	}
	comp := smriti.ComposeDraft(content, baseItems, r.Ops, title, r.Objective, r.Summary, session)
	comp.Content.Artifacts = mergeArtifacts(comp.Content.Artifacts, r.Artifacts)
	if model != "" {
		for i := range comp.Items {
			if comp.Items[i].Change != nil && comp.Items[i].Change.Op != "" && comp.Items[i].Origin.CheckpointID == nil {
				m := model
				comp.Items[i].Origin.Model = &m
			}
		}
	}
	d := draftOfContent(&comp.Content)
	d.Warnings = append(append([]string{}, r.Warnings...), comp.Warnings...)
	res := &DraftResult{Draft: d, Base: base, Items: comp.Items, Changes: comp.Changes, Model: model}
	if res.Items == nil {
		res.Items = []smriti.Item{}
	}
	return res
}

// draftOfContent is content as a draft (message as title).
func draftOfContent(c *smriti.Content) *Draft {
	d := emptyDraft()
	d.Title, d.Objective, d.Summary = c.Message, c.Objective, c.Summary
	d.Decisions, d.Assumptions, d.Tasks = slices.Clone(c.Decisions), slices.Clone(c.Assumptions), slices.Clone(c.Tasks)
	d.OpenQuestions, d.Entities, d.Artifacts = slices.Clone(c.OpenQuestions), slices.Clone(c.Entities), slices.Clone(c.Artifacts)
	for _, l := range []*[]string{&d.Decisions, &d.Assumptions, &d.OpenQuestions, &d.Entities} {
		if *l == nil {
			*l = []string{}
		}
	}
	if d.Tasks == nil {
		d.Tasks = []smriti.Task{}
	}
	if d.Artifacts == nil {
		d.Artifacts = []smriti.Artifact{}
	}
	return d
}

// mergeArtifacts adds the new artifacts to the carried ones; one with the
// id (else label) of a carried artifact replaces it.
func mergeArtifacts(carried, added []smriti.Artifact) []smriti.Artifact {
	out := slices.Clone(carried)
	for _, a := range added {
		replaced := false
		for i := range out {
			if out[i].Key() == a.Key() {
				out[i], replaced = a, true
				break
			}
		}
		if !replaced {
			out = append(out, a)
		}
	}
	if out == nil {
		out = []smriti.Artifact{}
	}
	return out
}

// Extract drafts a checkpoint, artifacts included, from a markdown document
// as a change list onto req.Onto (nil: every item is new).
// EUNPROCESSABLE for a document that is blank or longer than MaxExtractChars
// once trimmed; ENOTFOUND for an unknown Onto; otherwise errors as Draft.
func (in *Intelligence) Extract(ctx context.Context, req ExtractRequest) (*DraftResult, error) {
	text := strings.TrimSpace(req.Markdown)
	if text == "" {
		return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "content must not be empty")
	}
	if utf8.RuneCountInString(text) > MaxExtractChars {
		return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "content exceeds %d character limit", MaxExtractChars)
	}
	var base *smriti.Checkpoint
	var baseItems []smriti.Item
	if req.Onto != nil {
		var err error
		if base, err = in.Checkpoints.Checkpoint(ctx, *req.Onto); err != nil {
			return nil, err
		}
		if baseItems, err = in.itemsOf(ctx, base); err != nil {
			return nil, err
		}
	}
	p, model, err := in.background(req.UseMock)
	if err != nil {
		return nil, err
	}
	reply, err := structuredCall(ctx, p, model, ExtractChangesPrompt(base, baseItems, text), ExtractChangesSchema(), func(s string) (*ChangeReply, error) {
		return ParseChangeReply(s, true)
	})
	if err != nil {
		return nil, err
	}
	dropInjectedOps(reply, "document", text)
	res := composedResult(base, baseItems, reply, nil, model)
	// The document's checkboxes are the truth about its tasks' state.
	tasks := keepCheckboxState(slices.Clone(res.Draft.Tasks), text)
	if !slices.EqualFunc(tasks, res.Draft.Tasks, smriti.Task.Equal) {
		content := res.Draft.Content()
		content.Tasks = tasks
		res.Items = smriti.AssignItems(&content, baseItems, res.Items, smriti.ItemOrigin{})
		res.Draft.Tasks = tasks
	}
	return res, nil
}

// Review checks a checkpoint for consistency. The deterministic checks
// (ReviewChecks: instruction-like content) come first and hold even when the
// model was fooled; the model's issues follow, without repeats, within the
// caps. ENOTFOUND for an unknown checkpoint; otherwise errors as Draft.
func (in *Intelligence) Review(ctx context.Context, checkpointID smriti.ID) (*Review, error) {
	c, err := in.Checkpoints.Checkpoint(ctx, checkpointID)
	if err != nil {
		return nil, err
	}
	items, err := in.itemsOf(ctx, c)
	if err != nil {
		return nil, err
	}
	var parent *smriti.Checkpoint
	var parentItems []smriti.Item
	if c.ParentID != nil {
		if parent, err = in.Checkpoints.Checkpoint(ctx, *c.ParentID); err != nil && smriti.ErrorCode(err) != smriti.ENOTFOUND {
			return nil, err
		}
		if parentItems, err = in.itemsOf(ctx, parent); err != nil {
			return nil, err
		}
	}
	p, model, err := in.background(false)
	if err != nil {
		return nil, err
	}
	r, err := structuredCall(ctx, p, model, ReviewPrompt(c, items, parent, parentItems), ReviewSchema(), ParseReview)
	if err != nil {
		return nil, err
	}
	return CombineReview(ReviewChecks(c), r), nil
}

// Title names a session after its first turns (at most
// MaxSessionTitleChars) and returns it. Naming is best effort: when the
// session has no turns, or the background provider is missing, fails or
// answers nothing usable, the session is returned unchanged without an
// error. ENOTFOUND for an unknown session.
func (in *Intelligence) Title(ctx context.Context, sessionID smriti.ID) (*smriti.Session, error) {
	s, err := in.Sessions.Session(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	turns, err := in.Sessions.Turns(ctx, sessionID, contract.TurnQuery{ExcludeSystem: true, Limit: titleTurns})
	if err != nil {
		return nil, err
	}
	if len(turns) == 0 {
		return s, nil
	}
	p, model, err := in.background(false)
	if err != nil {
		return s, nil
	}
	c, err := p.Complete(ctx, CompletionRequest{Model: model, Messages: titlePrompt(turns), Schema: TitleSchema()})
	if err != nil {
		return s, nil
	}
	title := parseTitle(c.Text)
	if title == "" || title == s.Title {
		return s, nil
	}
	return in.Sessions.SetSessionTitle(ctx, sessionID, title)
}

// background returns the background provider and model, or the mock.
func (in *Intelligence) background(mock bool) (Provider, string, error) {
	if in.Providers == nil {
		return nil, "", smriti.Errorf(smriti.EUNAVAILABLE, "No providers are configured")
	}
	if mock {
		p, err := in.Providers.Provider(ProviderMock)
		return p, ProviderMock, err
	}
	return in.Providers.Background()
}

// structuredCall asks p for JSON matching schema and parses the reply. A
// reply that parse rejects is answered once with RetryPrompt, which tells
// the model what was wrong; a second unusable reply is EUPSTREAM. Provider
// errors are returned as they are (already EUPSTREAM or EUNAVAILABLE with a
// message naming the provider).
func structuredCall[T any](ctx context.Context, p Provider, model string, msgs []Message, schema *JSONSchema, parse func(string) (T, error)) (T, error) {
	var zero T
	req := CompletionRequest{Model: model, Messages: msgs, Schema: schema}
	c, err := p.Complete(ctx, req)
	if err != nil {
		return zero, err
	}
	v, problem := parse(c.Text)
	if problem == nil {
		return v, nil
	}
	req.Messages = RetryPrompt(msgs, textutil.Truncate(c.Text, maxRetryEcho), problem)
	if c, err = p.Complete(ctx, req); err != nil {
		return zero, err
	}
	if v, problem = parse(c.Text); problem == nil {
		return v, nil
	}
	return zero, smriti.Errorf(smriti.EUPSTREAM, "The background model returned invalid JSON twice: %v. "+
		"Try again, or switch the background model (providers.yaml background_intelligence)", problem)
}
