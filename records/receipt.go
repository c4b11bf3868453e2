package records

import (
	"smriti/receipt"
	"time"

	"smriti"
)

// RecordReceipt is a compaction receipt of the space.
const RecordReceipt = "receipt"

// BundleReceipt is a compaction receipt record: what a hook re-injected
// after an agent host compacted (see receipt.Receipt).
type BundleReceipt struct {
	ID           smriti.ID  `json:"id"`
	AgentSession string     `json:"agent_session"`
	Host         string     `json:"host"`
	Event        string     `json:"event"`
	Trigger      string     `json:"trigger"`
	CheckpointID *smriti.ID `json:"checkpoint_id"`
	LiveIDs      []string   `json:"live_item_ids"`
	InjectedIDs  []string   `json:"injected_item_ids"`
	OmittedIDs   []string   `json:"omitted_item_ids"`
	MissingIDs   []string   `json:"missing_item_ids"`
	ListCommand  string     `json:"list_command"`
	Tokens       int        `json:"tokens"`
	Status       string     `json:"status"`
	CreatedAt    time.Time  `json:"created_at"`
}

// BundleReceiptOf is a receipt's bundle record.
func BundleReceiptOf(r *receipt.Receipt) *BundleReceipt {
	return &BundleReceipt{ID: r.ID, AgentSession: r.AgentSession, Host: r.Host, Event: r.Event, Trigger: r.Trigger,
		CheckpointID: r.CheckpointID, LiveIDs: r.LiveIDs, InjectedIDs: r.InjectedIDs, OmittedIDs: r.OmittedIDs,
		MissingIDs: r.MissingIDs, ListCommand: r.ListCommand, Tokens: r.Tokens, Status: r.Status, CreatedAt: r.CreatedAt.UTC()}
}

// Receipt is the record as a receipt of space.
func (b *BundleReceipt) Receipt(space smriti.ID) *receipt.Receipt {
	return &receipt.Receipt{ID: b.ID, SpaceID: space, AgentSession: b.AgentSession, Host: b.Host, Event: b.Event,
		Trigger: b.Trigger, CheckpointID: b.CheckpointID, LiveIDs: b.LiveIDs, InjectedIDs: b.InjectedIDs, OmittedIDs: b.OmittedIDs,
		MissingIDs: b.MissingIDs, ListCommand: b.ListCommand, Tokens: b.Tokens, Status: b.Status, CreatedAt: b.CreatedAt.UTC()}
}
