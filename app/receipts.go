package app

import (
	"context"
	"strings"

	"smriti"
	"smriti/coord"
	"smriti/internal/textutil"
	"smriti/receipt"
	"smriti/tokenizer"
)

// CompactionIn is what an agent hook reports after it re-injected the state
// into a host that compacted its context: the text it injected, exactly.
type CompactionIn struct {
	AgentSession string
	Host         string
	Event        string
	Trigger      string
	Injected     string
	Tokens       int
}

// Events that re-inject the state after a compaction.
var receiptEvents = map[string]bool{"SessionStart": true, "PostCompact": true}

func (in *CompactionIn) validate() error {
	in.AgentSession, in.Event, in.Trigger = strings.TrimSpace(in.AgentSession), strings.TrimSpace(in.Event), strings.TrimSpace(in.Trigger)
	switch {
	case in.AgentSession == "":
		return smriti.Errorf(smriti.EINVALID, "agent_session is required: the host's session_id")
	case textutil.RuneLen(in.AgentSession) > smriti.MaxAgentSessionChars:
		return smriti.TooLong("agent_session", smriti.MaxAgentSessionChars)
	case !receipt.ValidHost(in.Host):
		return smriti.Errorf(smriti.EINVALID, "host must be %s or %s, not %q", receipt.HostClaudeCode, receipt.HostCodex, textutil.Truncate(in.Host, 32))
	case !receiptEvents[in.Event]:
		return smriti.Errorf(smriti.EINVALID, "event must be SessionStart or PostCompact, not %q", textutil.Truncate(in.Event, 32))
	case in.Trigger != "" && in.Trigger != "manual" && in.Trigger != "auto":
		return smriti.Errorf(smriti.EINVALID, "trigger must be manual, auto or empty, not %q", textutil.Truncate(in.Trigger, 32))
	case strings.TrimSpace(in.Injected) == "":
		return smriti.Errorf(smriti.EINVALID, "injected is required: the text the hook gave the agent")
	case len(in.Injected) > smriti.MaxInjectedBytes:
		return smriti.Errorf(smriti.EUNPROCESSABLE, "injected must be at most %d bytes", smriti.MaxInjectedBytes)
	case in.Tokens < 0:
		return smriti.Errorf(smriti.EINVALID, "tokens must not be negative")
	}
	return nil
}

// RecordCompaction checks what a hook injected after a compaction against
// the items live on main's head at this moment and stores the receipt:
// every live decision and open task given in full makes it complete, any
// of them only counted or left out makes it incomplete. EINVALID for a
// malformed report, ENOTFOUND for a space the caller cannot see,
// EFORBIDDEN without write access.
func (a *App) RecordCompaction(ctx context.Context, spaceID smriti.ID, in CompactionIn) (*receipt.Receipt, error) {
	// The space first: a space the caller cannot see is ENOTFOUND whatever
	// the report holds.
	sp, err := a.store.Space(ctx, spaceID)
	if err != nil {
		return nil, err
	}
	if err := in.validate(); err != nil {
		return nil, err
	}
	if in.Tokens == 0 {
		// The server counts what the hook injected: its tokenizer is warm,
		// a hook's would be loaded afresh on each run (seconds).
		in.Tokens = tokenizer.CountO200K(in.Injected)
	}
	r := &receipt.Receipt{ID: smriti.NewID(), SpaceID: sp.ID, AgentSession: in.AgentSession, Host: in.Host, Event: in.Event,
		Trigger: in.Trigger, ListCommand: sp.AllItemsCommand(), Tokens: in.Tokens, CreatedAt: a.now()}
	var items []smriti.Item
	heads, err := a.store.LatestCheckpoints(ctx, spaceID, smriti.MainBranch, 1)
	if err != nil {
		return nil, err
	}
	if len(heads) > 0 {
		r.CheckpointID = &heads[0].ID
		if items, err = a.store.CheckpointItems(ctx, heads[0].ID); err != nil {
			return nil, err
		}
	}
	r.LiveIDs, r.InjectedIDs, r.OmittedIDs, r.MissingIDs, r.Status = receipt.Coverage(items, in.Injected)
	if err := a.store.AddReceipt(ctx, r); err != nil {
		return nil, err
	}
	return r, nil
}

// CompactionReceipts lists a space's receipts, newest first, at most limit
// (every one up to smriti.ListCap when limit <= 0); ENOTFOUND for a space
// the caller cannot see.
func (a *App) CompactionReceipts(ctx context.Context, spaceID smriti.ID, limit int) ([]*receipt.Receipt, error) {
	return a.store.Receipts(ctx, spaceID, limit)
}

// lastCompaction gives the brief the space's newest compaction receipt.
func (c *Coordinator) lastCompaction(ctx context.Context, b *coord.StateBrief) error {
	if c.Receipts == nil || b.Space == nil {
		return nil
	}
	rs, err := c.Receipts.Receipts(ctx, b.Space.ID, 1)
	if err != nil {
		return err
	}
	if len(rs) > 0 {
		b.Compaction = rs[0]
	}
	return nil
}
