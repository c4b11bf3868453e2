package intelligence

import (
	"smriti"
	"smriti/contract"
	"smriti/internal/textutil"
	"sort"
	"strconv"
	"strings"
)

// ContextMode says where the context of a send (or a draft) comes from.
type ContextMode string

// Context modes: which checkpoints and turns a send gives the model; each
// mode's rule is stated beside it. A checkpoint's exact "turns after it"
// is what makes a mount or a fork see nothing that came later.
const (
	// ModeFresh: no checkpoint; the session's own turns.
	ModeFresh ContextMode = "FRESH"
	// ModeHead: the newest main checkpoint(s) of the session's space and the
	// turns written after the newest of them.
	ModeHead ContextMode = "HEAD"
	// ModeMounted: a checkpoint the user mounted (kept on the session), and
	// only turns typed after the mount.
	ModeMounted ContextMode = "MOUNTED"
	// ModeForked: HEAD on the fork's own branch — the newest checkpoint of
	// the branch (the fork source until the first commit on it) and the
	// fork's turns written after it.
	ModeForked ContextMode = "FORKED"
)

// Memory scopes: how many checkpoints enter the context.
const (
	ScopeLatest1 = "latest_1"
	ScopeLatest3 = "latest_3"
)

// ContextRequest is the part of a send or draft request that decides the
// context. The request's space id is deliberately absent: the session's own
// space is authoritative.
type ContextRequest struct {
	// MemoryScope is "latest_1" (also when empty) or "latest_3".
	MemoryScope string
	// MountedCheckpointID, when set, anchors the context to that checkpoint.
	MountedCheckpointID *smriti.ID
	// HistoryBaseSeq is the last sequence number typed before the mount;
	// only turns after it are given to the model. -1 means "all turns". Nil
	// with a mount means the session's current last sequence number.
	// Ignored without a mount.
	HistoryBaseSeq *int64
	// Unmount says the request named "mounted_checkpoint_id": null
	// explicitly (as the first implementation's UI does once the user clears
	// a restored checkpoint): the session's mount ends with this send, which
	// is planned as if nothing were mounted. Leaving the field out keeps the
	// mount.
	Unmount bool
}

// scopeDepth returns how many checkpoints a memory scope asks for: 1 for ""
// or "latest_1", 3 for "latest_3". Anything else is EUNPROCESSABLE.
func scopeDepth(memoryScope string) (int, error) {
	switch memoryScope {
	case "", ScopeLatest1:
		return 1, nil
	case ScopeLatest3:
		return 3, nil
	}
	return 0, smriti.Errorf(smriti.EUNPROCESSABLE, "memory_scope must be %q or %q, not %q",
		ScopeLatest1, ScopeLatest3, textutil.Truncate(memoryScope, 40))
}

// contextPlan is the decision of which checkpoints and turns a send may use,
// made from the session and the request before anything is fetched.
//
// How to fetch the checkpoints for a plan:
//   - MOUNTED: Anchor plus up to Depth-1 ancestors along the parent chain
//     (CheckpointService.Ancestors(Anchor, Depth)).
//   - FORKED: the same from the newest checkpoint of Branch when it has one,
//     else from Anchor (the fork source).
//   - HEAD: the Depth newest main checkpoints of the session's space,
//     reversed to oldest first.
//   - FRESH: none.
//
// Then call Resolve with them to get the turn query.
type ContextPlan struct {
	Mode ContextMode
	// Anchor is the mounted checkpoint or the fork source; nil for HEAD and
	// FRESH.
	Anchor *smriti.ID
	// Branch is the fork's branch (FORKED only).
	Branch string
	// Mount is the mount a send in this plan records on the session: set
	// when the request names a checkpoint (or a base) other than the
	// session's current mount; nil otherwise.
	Mount *smriti.Mount
	// Unmount is set when a send in this plan ends the session's mount.
	Unmount bool
	// Depth is how many checkpoints to fetch (1 or 3).
	Depth int
	// AfterSeq bounds the turns for MOUNTED (exclusive); nil otherwise.
	AfterSeq *int64
	// AfterLogPos bounds the turns for HEAD (exclusive); set by Resolve.
	AfterLogPos *int64
}

// PlanContext decides the context mode for a send or draft in session s.
//
// A mount wins — the request's, else the one kept on the session; then a
// fork; then the session's space (HEAD, which Resolve turns into FRESH when
// the space has no main checkpoint); else FRESH.
//
// A request naming a checkpoint that is not the session's mount starts a new
// mount at the session's current last turn, so nothing typed before it
// reaches the model, and the plan carries it (Mount) for the send to record.
// Naming the session's own mount, or naming none while the session has one,
// keeps the stored base, so every stateless send after a mount sees the
// turns since the mount. An explicit HistoryBaseSeq wins over both (the
// first implementation's UI sends it every time). A fork is HEAD on its own
// branch: its own turns after the branch's newest checkpoint, all of them
// (its first message included) before the first commit on it.
//
// Errors: EUNPROCESSABLE for an unknown memory scope or a HistoryBaseSeq
// below -1 or beyond the session's last turn. That the mounted checkpoint exists and belongs to the session's
// space is checked by the caller once it is fetched (see CheckMount).
func PlanContext(s *smriti.Session, req ContextRequest) (ContextPlan, error) {
	depth, err := scopeDepth(req.MemoryScope)
	if err != nil {
		return ContextPlan{}, err
	}
	if req.HistoryBaseSeq != nil && *req.HistoryBaseSeq < -1 {
		return ContextPlan{}, smriti.Errorf(smriti.EUNPROCESSABLE, "history_base_seq must be -1 or more, not %d", *req.HistoryBaseSeq)
	}
	if req.HistoryBaseSeq != nil && *req.HistoryBaseSeq > s.LastSeq {
		return ContextPlan{}, smriti.Errorf(smriti.EUNPROCESSABLE, "history_base_seq %d is beyond the session's last turn (%d)", *req.HistoryBaseSeq, s.LastSeq)
	}
	p := ContextPlan{Depth: depth}
	mounted := s.Mount
	if req.Unmount && req.MountedCheckpointID == nil {
		p.Unmount, mounted = mounted != nil, nil
	}
	switch {
	case req.MountedCheckpointID != nil:
		m := s.MountAt(*req.MountedCheckpointID, req.HistoryBaseSeq)
		if s.Mount != nil && s.Mount.CheckpointID == m.CheckpointID && req.HistoryBaseSeq == nil {
			m.BaseSeq = s.Mount.BaseSeq
		}
		if s.Mount == nil || *s.Mount != m {
			p.Mount = &m
		}
		p.Mode, p.Anchor, p.AfterSeq = ModeMounted, &m.CheckpointID, &m.BaseSeq
	case mounted != nil:
		m := s.MountAt(mounted.CheckpointID, req.HistoryBaseSeq)
		if req.HistoryBaseSeq == nil {
			m.BaseSeq = mounted.BaseSeq
		}
		p.Mode, p.Anchor, p.AfterSeq = ModeMounted, &m.CheckpointID, &m.BaseSeq
	case s.ForkedFromCheckpointID != nil:
		anchor := *s.ForkedFromCheckpointID
		p.Mode, p.Anchor, p.Branch = ModeForked, &anchor, s.BranchName
	case s.SpaceID != nil:
		p.Mode = ModeHead
	default:
		p.Mode = ModeFresh
	}
	return p, nil
}

// CheckMount verifies that a mounted checkpoint may be used by session s: it
// must belong to the session's space. EINVALID (400) otherwise, including
// for a session without a space.
func CheckMount(s *smriti.Session, mounted *smriti.Checkpoint) error {
	if mounted == nil || !s.InSpace(mounted.SpaceID) {
		return smriti.Errorf(smriti.EINVALID, "mounted_checkpoint_id must be a checkpoint of the session's space")
	}
	return nil
}

// Resolve fixes the plan once its checkpoints (oldest first) are fetched —
// HEAD without checkpoints becomes FRESH — and returns the query for the
// history turns: after the mount for MOUNTED, every turn for FRESH, after
// the newest checkpoint's log position for HEAD and FORKED (an exact
// comparison; timestamps are never compared). A fork's turns all come after
// its fork source, so before the first commit on the branch that is every
// turn of the fork. The query always excludes
// system turns and asks for the newest first, so the caller can page back
// until the token budget is used (see fitTurns).
//
// A mounted checkpoint or fork source that cannot be found is the caller's
// error to report; unlike the first implementation, nothing silently falls
// back to HEAD.
func (p *ContextPlan) Resolve(checkpoints []*smriti.Checkpoint) contract.TurnQuery {
	q := contract.TurnQuery{ExcludeSystem: true, Newest: true}
	switch p.Mode {
	case ModeMounted:
		q.AfterSeq = p.AfterSeq
	case ModeHead, ModeForked:
		if len(checkpoints) == 0 {
			if p.Mode == ModeHead {
				p.Mode = ModeFresh
			}
			break
		}
		newest := checkpoints[0].LogPos
		for _, c := range checkpoints[1:] {
			newest = max(newest, c.LogPos)
		}
		p.AfterLogPos = &newest
		q.AfterLogPos = p.AfterLogPos
	}
	return q
}

// selectTurns applies q to the turns of one session in memory: it is the
// reference behaviour of SessionService.Turns, which the store's
// conformance tests compare against. The input is not modified; the result
// is never nil. A Limit of 0 or less means no limit.
func selectTurns(turns []*smriti.Turn, q contract.TurnQuery) []*smriti.Turn {
	out := []*smriti.Turn{}
	for _, t := range turns {
		switch {
		case q.ExcludeSystem && t.Role == smriti.RoleSystem,
			q.AfterSeq != nil && t.Seq <= *q.AfterSeq,
			q.AfterLogPos != nil && t.LogPos <= *q.AfterLogPos,
			q.BeforeSeq != nil && t.Seq >= *q.BeforeSeq:
			continue
		}
		out = append(out, t)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if q.Newest {
			return out[i].Seq > out[j].Seq
		}
		return out[i].Seq < out[j].Seq
	})
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out
}

// fitTurns keeps the most recent turns whose token counts (TurnTokens) sum
// to at most budget and returns them oldest first, with how many were
// dropped. It takes turns newest first (as Resolve's query returns them) and
// stops at the first turn that does not fit: older turns are dropped first,
// a turn is never split, and no older turn is kept past a gap. A budget of
// 0 or less keeps nothing.
func fitTurns(newestFirst []*smriti.Turn, budget int) (kept []*smriti.Turn, dropped int) {
	used, n := 0, 0
	for _, t := range newestFirst {
		tok := t.TokenCount()
		if used+tok > budget {
			break
		}
		used += tok
		n++
	}
	kept = make([]*smriti.Turn, n)
	for i := range n {
		kept[i] = newestFirst[n-1-i]
	}
	return kept, len(newestFirst) - n
}

// historyBudget is the default token budget for history turns: the model's
// context window minus the reply reserve and the messages that are always
// sent — the checkpoint block and the new message, e.g.
// buildPrompt(checkpoints, nil, message). Never negative; the checkpoint
// block and the new message are never what gets cut.
func historyBudget(contextWindow, reservedForReply int, fixed ...Message) int {
	return max(0, contextWindow-max(0, reservedForReply)-EstimateMessages(fixed))
}

// PromptContext is everything a send gives the model, and what the context
// endpoint shows: the mode, the checkpoints and turns used, what was dropped
// and the provider messages.
type PromptContext struct {
	Mode ContextMode
	// Checkpoints are the checkpoints given, oldest first. A send reads
	// their identity only (CheckpointService.CheckpointHeads): their
	// content is in the system message.
	Checkpoints []*smriti.Checkpoint
	// Turns are the history turns sent, oldest first.
	Turns []*smriti.Turn
	// Dropped counts the allowed turns left out to fit the budget.
	Dropped  int
	Messages []Message
	// Tokens is the whole prompt's size: the fixed messages counted, the
	// history turns by the counts stored with them (set by Chat.Prepare;
	// no estimate runs over the whole prompt).
	Tokens int
}

// AssembleContext builds the prompt of a send from a resolved plan, its
// checkpoints (oldest first) and their system message (SystemPrompt of
// them), the allowed turns newest first (the result of the plan's query),
// the new message and the history budget.
func AssembleContext(p ContextPlan, checkpoints []*smriti.Checkpoint, system string, newestFirst []*smriti.Turn, message string, budget int) *PromptContext {
	kept, dropped := fitTurns(newestFirst, budget)
	msgs := promptMessages(system, kept, message)
	if checkpoints == nil {
		checkpoints = []*smriti.Checkpoint{}
	}
	return &PromptContext{
		Mode:        p.Mode,
		Checkpoints: checkpoints,
		Turns:       kept,
		Dropped:     dropped,
		Messages:    msgs,
	}
}

// SeqRange returns the sequence numbers of the first and last history turn
// sent, or nil, nil when none was.
func (pc *PromptContext) SeqRange() (from, to *int64) {
	if len(pc.Turns) == 0 {
		return nil, nil
	}
	f, t := pc.Turns[0].Seq, pc.Turns[len(pc.Turns)-1].Seq
	return &f, &t
}

// Reply is what a reply records about this context.
func (pc *PromptContext) Reply() ReplyContext {
	ids := make([]smriti.ID, len(pc.Checkpoints))
	for i, cp := range pc.Checkpoints {
		ids[i] = cp.ID
	}
	hashes := make([]string, len(pc.Checkpoints))
	for i, cp := range pc.Checkpoints {
		hashes[i] = cp.Hash
	}
	rc := ReplyContext{Mode: pc.Mode, CheckpointIDs: ids, CommitHashes: hashes, DroppedTurns: pc.Dropped}
	rc.FromSeq, rc.ToSeq = pc.SeqRange()
	return rc
}

// Annotation keys describing how a prompt was built; the offline mock echoes
// them (CompletionRequest.Annotations).
const (
	annotationMode        = "mode"
	annotationCheckpoints = "checkpoints" // comma-separated short hashes, oldest first
	annotationTurns       = "turns"       // number of history turns sent
	annotationDropped     = "dropped"     // number of allowed turns dropped
)

// Annotations describes the prompt for CompletionRequest.Annotations.
func (pc *PromptContext) Annotations() map[string]string {
	hashes := make([]string, 0, len(pc.Checkpoints))
	for _, c := range pc.Checkpoints {
		hashes = append(hashes, textutil.ShortHash(c.Hash))
	}
	return map[string]string{
		annotationMode:        string(pc.Mode),
		annotationCheckpoints: strings.Join(hashes, ","),
		annotationTurns:       strconv.Itoa(len(pc.Turns)),
		annotationDropped:     strconv.Itoa(pc.Dropped),
	}
}
