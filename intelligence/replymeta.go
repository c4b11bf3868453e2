package intelligence

import (
	"context"
	"encoding/json"
	"smriti"
	"smriti/contract"
	"time"
)

// CheckpointReader is the part of contract.CheckpointService that fetches the
// checkpoints of a context plan.
type CheckpointReader interface {
	LatestCheckpoints(ctx context.Context, spaceID smriti.ID, branch string, n int) ([]*smriti.Checkpoint, error)
	Ancestors(ctx context.Context, id smriti.ID, n int) ([]*smriti.Checkpoint, error)
}

// PlanCheckpoints fetches the checkpoints a plan names, oldest first: the
// anchor (mount, or a fork's branch head) and its ancestors, or main's
// newest for HEAD, plan.Depth of them.
func PlanCheckpoints(ctx context.Context, cps CheckpointReader, se *smriti.Session, plan *ContextPlan) ([]*smriti.Checkpoint, error) {
	if plan.Mode == ModeForked && se.SpaceID != nil {
		// HEAD on the fork's branch: its newest checkpoint, once there is one.
		newest, err := cps.LatestCheckpoints(ctx, *se.SpaceID, plan.Branch, 1)
		if err != nil {
			return nil, err
		}
		if len(newest) == 1 {
			plan.Anchor = &newest[0].ID
			if plan.Depth <= 1 {
				return newest, nil // the chain of one is the head itself
			}
		}
	}
	switch {
	case plan.Anchor != nil:
		chain, err := cps.Ancestors(ctx, *plan.Anchor, plan.Depth)
		if err != nil {
			if smriti.ErrorCode(err) == smriti.ENOTFOUND && plan.Mode == ModeMounted {
				return nil, smriti.Errorf(smriti.ENOTFOUND, "mounted checkpoint %s not found", *plan.Anchor)
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
		newest, err := cps.LatestCheckpoints(ctx, *se.SpaceID, smriti.MainBranch, plan.Depth)
		if err != nil {
			return nil, err
		}
		out := make([]*smriti.Checkpoint, len(newest))
		for i, cp := range newest {
			out[len(newest)-1-i] = cp
		}
		return out, nil
	}
	return nil, nil
}

// PlanHeads is PlanCheckpoints reading only the checkpoints' identity
// (CheckpointService.CheckpointHeads and AncestorHeads): what a send needs
// on every call, its content being rendered once per checkpoint.
func PlanHeads(ctx context.Context, cps contract.CheckpointService, se *smriti.Session, plan *ContextPlan) ([]*smriti.Checkpoint, error) {
	return PlanCheckpoints(ctx, headReader{cps}, se, plan)
}

// headReader reads heads where PlanCheckpoints reads checkpoints.
type headReader struct{ cps contract.CheckpointService }

func (h headReader) LatestCheckpoints(ctx context.Context, spaceID smriti.ID, branch string, n int) ([]*smriti.Checkpoint, error) {
	return h.cps.CheckpointHeads(ctx, spaceID, branch, n)
}

func (h headReader) Ancestors(ctx context.Context, id smriti.ID, n int) ([]*smriti.Checkpoint, error) {
	return h.cps.AncestorHeads(ctx, id, n)
}

// ReplyMeta is what a send records with the assistant turn it stores — the
// provider's usage, the context the reply was built from and when — kept as
// the turn's metadata (JSON) and read back by a replayed send.
type ReplyMeta struct {
	Usage   Usage        `json:"usage"`
	Context ReplyContext `json:"context"`
	At      time.Time    `json:"at"`
	// Stopped marks a reply its user stopped while it streamed: the text is
	// what had arrived by then.
	Stopped bool `json:"stopped,omitempty"`
}

// ReplyContext says which context a reply was built from.
type ReplyContext struct {
	Mode          ContextMode `json:"mode"`
	CheckpointIDs []smriti.ID `json:"checkpoint_ids"`
	CommitHashes  []string    `json:"commit_hashes,omitempty"`
	DroppedTurns  int         `json:"dropped_turns"`
	// FromSeq and ToSeq are the first and last history turn sent; absent
	// when none was.
	FromSeq *int64 `json:"from_seq,omitempty"`
	ToSeq   *int64 `json:"to_seq,omitempty"`
}

// Metadata returns m as a turn's metadata: the JSON object it is stored as.
func (m ReplyMeta) Metadata() map[string]any {
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
func ReplyMetaOf(t *smriti.Turn) ReplyMeta {
	var m ReplyMeta
	if b, err := json.Marshal(t.Metadata); err == nil {
		_ = json.Unmarshal(b, &m)
	}
	if m.Context.CheckpointIDs == nil {
		m.Context.CheckpointIDs = []smriti.ID{}
	}
	return m
}
