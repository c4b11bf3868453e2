// Package oracle is the eval harness's deterministic provider: it drafts
// from the scenario markers of the turns it is sent (see package eval), so
// `smriti eval` can score Smriti in CI with no model. It belongs to the
// harness: the provider adapters do not import it; the eval command hands
// it to the provider registry (provider.WithOracle).
package oracle

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"smriti"
	"smriti/eval"
	"smriti/intelligence"
	"smriti/internal/textutil"
	"smriti/provider"
	"smriti/provider/mockderive"
)

// Blinding makes the oracle ignore part of what it is sent, to prove that
// the eval fails when a draft is not given its base or its turns.
type Blinding string

// Blindings.
const (
	BlindNone  Blinding = ""
	BlindBase  Blinding = "base"  // the base's items are ignored
	BlindTurns Blinding = "turns" // every other user turn is ignored
)

// Oracle is the deterministic provider `smriti eval` scores Smriti with in
// CI. It answers a draft_changes request from nothing but the request's data
// block — the base items with their ids and the turns — by replaying the
// scenario markers of the user turns (eval.ParseMarkers): an item it adds
// carries its key as a tag in its text (eval.Tagged), and a later marker
// finds the item's id by that tag in the base it is sent. A draft that is
// not given its base, or not every unconsumed turn, therefore answers
// wrongly, and the eval's score falls. Every other request is the mock's
// answer, so the mock's behaviour is unchanged.
type Oracle struct {
	Blind Blinding
}

// Name returns "oracle".
func (Oracle) Name() string { return provider.ProviderOracle }

// Complete answers draft_changes by the markers and anything else as the
// mock.
func (o Oracle) Complete(ctx context.Context, req intelligence.CompletionRequest) (*intelligence.Completion, error) {
	if req.Schema == nil || req.Schema.Name != intelligence.SchemaDraftChanges {
		return provider.Mock{}.Complete(ctx, req)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	data, _ := intelligence.PromptData(req.Messages)
	text := o.draft(data)
	in := 0
	for _, m := range req.Messages {
		in += estimateTokens(m.Content)
	}
	return &intelligence.Completion{Text: text, Model: firstOf(req.Model, provider.ProviderOracle),
		Usage: intelligence.Usage{InputTokens: in, OutputTokens: estimateTokens(text)}}, nil
}

// Stream sends the whole answer as one piece.
func (o Oracle) Stream(ctx context.Context, req intelligence.CompletionRequest, onDelta func(string) error) (*intelligence.Completion, error) {
	if req.Schema == nil || req.Schema.Name != intelligence.SchemaDraftChanges {
		return provider.Mock{}.Stream(ctx, req, onDelta)
	}
	c, err := o.Complete(ctx, req)
	if err != nil {
		return nil, err
	}
	return c, onDelta(c.Text)
}

// oracleOp is an operation of the answer (the mock's wire shape), and
// whether a later operation of the same answer dropped it.
type oracleOp struct {
	mockderive.ChangeOp
	dropped bool
}

func (o Oracle) draft(data string) string {
	var cd intelligence.ChangeData
	_ = json.Unmarshal([]byte(data), &cd) // foreign data drafts nothing
	items := cd.Base.Items
	if o.Blind == BlindBase {
		items = nil
	}
	turns := cd.Turns
	if o.Blind == BlindTurns {
		// By sequence number, not position, so that the same turns are
		// lost however the server chunks a draft (chunk sizes follow
		// token counts, which the random item ids sway).
		turns = nil
		for _, t := range cd.Turns {
			if t.Seq%4 != 2 {
				turns = append(turns, t)
			}
		}
	}
	ids := map[string]string{} // key → base id, from the tags of the base's texts
	for _, it := range items {
		if _, key := eval.SplitTag(it.Text); key != "" {
			ids[key] = it.ID
		}
	}
	var ops []*oracleOp
	pending := map[string]*oracleOp{} // key → the add this answer makes
	for _, t := range turns {
		if t.Role != smriti.RoleUser {
			continue
		}
		seq := t.Seq
		for _, m := range eval.ParseMarkers(t.Content) {
			kind := string(m.Kind)
			quote := textutil.Truncate(m.Text, 180)
			at := &oracleOp{ChangeOp: mockderive.ChangeOp{FromSeq: &seq, ToSeq: &seq, Quote: &quote}}
			add, isAdd := pending[m.Key]
			id, inBase := ids[m.Key]
			switch {
			case m.Op == eval.MarkAdd || (m.Op == eval.MarkChange && !isAdd && !inBase):
				// A change to an item it was not shown is all it can
				// know of the item: an add.
				text := eval.Tagged(m.Text, m.Key)
				at.Op, at.Kind, at.Text = smriti.OpAdd, &kind, &text
				pending[m.Key] = at
				ops = append(ops, at)
			case m.Op == eval.MarkChange && isAdd:
				text := eval.Tagged(m.Text, m.Key)
				add.Text = &text
			case m.Op == eval.MarkChange:
				text := eval.Tagged(m.Text, m.Key)
				at.Op, at.ID, at.Text = smriti.OpUpdate, &id, &text
				ops = append(ops, at)
			case m.Op == eval.MarkResolve && isAdd:
				// Resolved in the turns that added it: a resolve by text
				// adds the task done (a question is then not added at all).
				if m.Kind == smriti.KindTask {
					by := firstOf(m.Text, fmt.Sprintf("turn %d", seq))
					add.Op, add.By = smriti.OpResolve, &by
				} else {
					add.dropped = true
				}
				delete(pending, m.Key)
			case m.Op == eval.MarkResolve && inBase:
				by := firstOf(m.Text, fmt.Sprintf("turn %d", seq))
				at.Op, at.ID, at.By = smriti.OpResolve, &id, &by
				ops = append(ops, at)
			case m.Op == eval.MarkRetract && isAdd:
				add.dropped = true
				delete(pending, m.Key)
			case m.Op == eval.MarkRetract && inBase:
				reason := firstOf(m.Text, "retracted")
				at.Op, at.ID, at.Reason = smriti.OpRetract, &id, &reason
				ops = append(ops, at)
				delete(ids, m.Key)
			}
		}
	}
	kept := []*oracleOp{}
	for _, op := range ops {
		if !op.dropped {
			kept = append(kept, op)
		}
	}
	summary := fmt.Sprintf("Eval oracle draft: %d operations from %d turns.", len(kept), len(turns))
	answer := struct {
		Title      string      `json:"title"`
		Objective  *string     `json:"objective"`
		Summary    *string     `json:"summary"`
		Operations []*oracleOp `json:"operations"`
	}{Title: "Eval oracle draft", Summary: &summary, Operations: kept}
	b, _ := json.Marshal(answer)
	return strings.TrimSpace(string(b))
}

// estimateTokens is the mock's estimate: a token per four bytes.
func estimateTokens(s string) int { return (len(s) + 3) / 4 }

func firstOf(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return strings.TrimSpace(a)
	}
	return b
}
