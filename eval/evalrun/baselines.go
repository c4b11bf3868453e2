package evalrun

import (
	"context"
	"fmt"
	"time"

	"smriti"
	"smriti/eval"
	"smriti/intelligence"
)

// The baselines ask the same model, directly, with the same change-list
// prompt Smriti's drafts use — but without checkpoints:
//
//   - full context: one request at the end with no base and the whole
//     transcript of the turns that reached main, the newest kept when it
//     does not fit the model's window (the oldest dropped, as a chat does);
//   - notes file: at every save of the script, a request with no base and
//     the turns since that session's previous note; the final state is
//     every item every note listed, appended and never rewritten.
//
// Turns are given with their scenario turn numbers as sequence numbers, so
// provenance is scored as for Smriti. Only user turns are given (Smriti's
// drafts also read the chat replies): the baselines are not charged for
// the mock's echoes.

// Baselines scores both baselines on one scenario.
func Baselines(ctx context.Context, o Options, sc *eval.Scenario, tr *eval.Truth) (full, notes eval.Score) {
	text := map[int]string{}
	onMain := map[int]bool{}
	for _, t := range tr.Lines {
		onMain[t] = true
	}
	for _, st := range sc.Steps {
		if st.Verb == "say" {
			text[st.Turn] = st.Text
		}
	}
	turn := func(n int) *smriti.Turn {
		return &smriti.Turn{Seq: int64(n), Role: smriti.RoleUser, Content: text[n]}
	}

	// Full context.
	var all []*smriti.Turn
	for _, n := range tr.Lines {
		all = append(all, turn(n))
	}
	ob := &eval.Observation{Conflicts: map[int][]string{}}
	items, cost, err := o.ask(ctx, fitWindow(all, o.Window))
	ob.Final, ob.Drafts = items, []eval.DraftCost{cost}
	full = eval.ScoreRun(sc, tr, ob)
	if err != nil {
		full.Err = err.Error()
	}

	// Notes file.
	nob := &eval.Observation{Conflicts: map[int][]string{}}
	pending := map[string][]*smriti.Turn{}
	var nerr error
	for _, st := range sc.Steps {
		switch st.Verb {
		case "say":
			if onMain[st.Turn] {
				pending[st.Session] = append(pending[st.Session], turn(st.Turn))
			}
		case "save", "draft":
			if len(pending[st.Session]) == 0 {
				continue
			}
			items, cost, err := o.ask(ctx, fitWindow(pending[st.Session], o.Window))
			pending[st.Session] = nil
			nob.Final = append(nob.Final, items...)
			nob.Drafts = append(nob.Drafts, cost)
			if err != nil && nerr == nil {
				nerr = err
			}
		}
	}
	notes = eval.ScoreRun(sc, tr, nob)
	if nerr != nil {
		notes.Err = nerr.Error()
	}
	return full, notes
}

// fitWindow keeps the newest turns whose prompt fits the window with its
// reply reserve.
func fitWindow(turns []*smriti.Turn, window int) []*smriti.Turn {
	if window <= 0 {
		return turns
	}
	budget := window - intelligence.ReplyTokens(window)
	for len(turns) > 0 && intelligence.EstimateMessages(intelligence.DraftChangesPrompt(nil, nil, turns)) > budget {
		turns = turns[1:]
	}
	return turns
}

// ask drafts from turns onto an empty base and returns the live items of
// the result.
func (o Options) ask(ctx context.Context, turns []*smriti.Turn) ([]eval.ObservedItem, eval.DraftCost, error) {
	msgs := intelligence.DraftChangesPrompt(nil, nil, turns)
	start := time.Now()
	var cost eval.DraftCost
	var reply *intelligence.ChangeReply
	for attempt := 0; attempt < 2; attempt++ {
		c, err := o.Model.Complete(ctx, intelligence.CompletionRequest{Model: o.ModelName, Messages: msgs,
			Schema: intelligence.DraftChangesSchema(), MaxTokens: intelligence.ReplyTokens(max(o.Window, 1))})
		if err != nil {
			return nil, cost, err
		}
		cost.InputTokens += c.Usage.InputTokens
		cost.OutputTokens += c.Usage.OutputTokens
		cost.Chunks++
		if reply, err = intelligence.ParseChangeReply(c.Text, false); err == nil {
			break
		}
		if attempt == 1 {
			return nil, cost, fmt.Errorf("the model's answer could not be used: %w", err)
		}
		msgs = intelligence.RetryPrompt(msgs, c.Text, err)
	}
	cost.Wall = time.Since(start)
	composed := smriti.ComposeDraft(nil, nil, reply.Ops, nil, nil, nil, nil)
	var out []eval.ObservedItem
	for _, it := range composed.Items {
		if !it.Live() {
			continue
		}
		turn := 0
		if it.Origin.FromSeq != nil {
			turn = int(*it.Origin.FromSeq)
		}
		out = append(out, eval.ObservedItem{ID: it.ID, Kind: string(it.Kind), Text: it.Text, Status: it.StatusOrOpen(), Turn: turn})
	}
	return out, cost, nil
}
