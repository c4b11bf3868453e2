package app

import (
	"context"

	"smriti"
	"smriti/contract"
	"smriti/intelligence"
)

// ContextTurns tells, for a prepared send, which of the session's turns the
// model is given and why the others are not, so a thread can draw where the
// model's context starts.
type ContextTurns struct {
	// AllowedFromSeq is the first turn the context mode allows: turns
	// before it are outside the boundary (before the mounted, fork or head
	// checkpoint). The turns from it up to the first one sent were dropped
	// to fit the token budget. When the mode allows no turn it is the
	// session's next sequence number.
	AllowedFromSeq int64
	// StoppedSeqs are the stopped replies among the turns sent: they are
	// given to the model as far as they got.
	StoppedSeqs []int64
}

// contextTurns reads the boundary of p's allowed turns and the stopped
// replies it sends. A session that is not stored (a new session's preview)
// has no turns: AllowedFromSeq is 0.
func (a *App) contextTurns(ctx context.Context, p *Prepared) (ContextTurns, error) {
	out := ContextTurns{StoppedSeqs: []int64{}}
	if p.Session.ID == smriti.NilID {
		return out, nil
	}
	q := p.Allowed
	q.Newest, q.Limit, q.PromptOnly = false, 1, true
	first, err := a.store.Turns(ctx, p.Session.ID, q)
	if err != nil {
		return out, err
	}
	out.AllowedFromSeq = p.Session.LastSeq + 1
	if len(first) == 1 {
		out.AllowedFromSeq = first[0].Seq
	}
	from, to := p.Context.SeqRange()
	if from == nil {
		return out, nil
	}
	// The history turns were read without their metadata; the stopped mark
	// is read for the range sent.
	after := *from - 1
	sent, err := a.store.Turns(ctx, p.Session.ID, contract.TurnQuery{AfterSeq: &after, Limit: int(*to - *from + 1), ExcludeSystem: true})
	if err != nil {
		return out, err
	}
	for _, t := range sent {
		if t.Role == smriti.RoleAssistant && intelligence.ReplyMetaOf(t).Stopped {
			out.StoppedSeqs = append(out.StoppedSeqs, t.Seq)
		}
	}
	return out, nil
}
