package wire

import (
	"smriti/receipt"
	"time"

	"smriti"
)

// ReceiptRequest is what an agent hook reports after re-injecting the state
// into a host that compacted its context.
type ReceiptRequest struct {
	AgentSession *string `json:"agent_session" required:"true" doc:"The host's own session id (its hook input's session_id), at most 200 characters"`
	Host         *string `json:"host" required:"true" enum:"claude-code,codex" doc:"The agent host that compacted"`
	Event        *string `json:"event" required:"true" enum:"SessionStart,PostCompact" doc:"The hook event that re-injected the state"`
	Trigger      *string `json:"trigger" doc:"The host's compaction trigger: manual or auto (empty or null when the host did not say)"`
	Injected     *string `json:"injected" required:"true" doc:"The text the hook gave the agent, exactly (at most 1 MiB); each live item is checked against it"`
	Tokens       *int    `json:"tokens" doc:"What the injected text cost in o200k tokens (default: the server counts them)"`
}

// ReceiptOut is a compaction receipt on the wire.
type ReceiptOut struct {
	ID              smriti.ID  `json:"id" doc:"The receipt"`
	SpaceID         smriti.ID  `json:"space_id" doc:"Its space"`
	AgentSession    string     `json:"agent_session" doc:"The host's session id"`
	Host            string     `json:"host" enum:"claude-code,codex" doc:"The agent host that compacted"`
	Event           string     `json:"event" doc:"The hook event that re-injected the state"`
	Trigger         string     `json:"trigger" doc:"manual, auto, or empty when the host did not say"`
	CheckpointID    *smriti.ID `json:"checkpoint_id" doc:"Main's head the live items were read from (null for a space without checkpoints)"`
	LiveItemIDs     []string   `json:"live_item_ids" doc:"The items live at that moment, in checkpoint order"`
	InjectedItemIDs []string   `json:"injected_item_ids" doc:"The live items the agent was given in full"`
	OmittedItemIDs  []string   `json:"omitted_item_ids" doc:"The live items the agent was only told about (counted, with list_command)"`
	MissingItemIDs  []string   `json:"missing_item_ids" doc:"The omitted decisions and open tasks: any makes the receipt incomplete"`
	ListCommand     string     `json:"list_command" doc:"The command that lists every live item"`
	Tokens          int        `json:"tokens" doc:"What the injected text cost in tokens"`
	Status          string     `json:"status" enum:"complete,incomplete" doc:"complete when every live decision and open task was injected in full"`
	CreatedAt       time.Time  `json:"created_at" doc:"When it was recorded (RFC 3339, UTC)"`
}

// ReceiptOf is a receipt's wire form.
func ReceiptOf(r *receipt.Receipt) ReceiptOut {
	return ReceiptOut{ID: r.ID, SpaceID: r.SpaceID, AgentSession: r.AgentSession, Host: r.Host, Event: r.Event, Trigger: r.Trigger,
		CheckpointID: r.CheckpointID, LiveItemIDs: r.LiveIDs, InjectedItemIDs: r.InjectedIDs, OmittedItemIDs: r.OmittedIDs,
		MissingItemIDs: r.MissingIDs, ListCommand: r.ListCommand, Tokens: r.Tokens, Status: r.Status, CreatedAt: r.CreatedAt}
}

// Receipt is a wire receipt back in the domain's form (the CLI renders it).
func (o ReceiptOut) Receipt() *receipt.Receipt {
	return &receipt.Receipt{ID: o.ID, SpaceID: o.SpaceID, AgentSession: o.AgentSession, Host: o.Host, Event: o.Event,
		Trigger: o.Trigger, CheckpointID: o.CheckpointID, LiveIDs: o.LiveItemIDs, InjectedIDs: o.InjectedItemIDs, OmittedIDs: o.OmittedItemIDs,
		MissingIDs: o.MissingItemIDs, ListCommand: o.ListCommand, Tokens: o.Tokens, Status: o.Status, CreatedAt: o.CreatedAt}
}
