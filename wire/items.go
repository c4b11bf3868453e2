package wire

import (
	"time"

	"smriti"
	"smriti/intelligence"
	"smriti/internal/nonnil"
)

// ItemOut is an item with identity: the v5 view of a checkpoint's
// decisions, assumptions, tasks, open questions and entities.
type ItemOut struct {
	ID         string             `json:"id" doc:"Stable item id (kind letter, \"-\", 6 hex digits, e.g. d-7f3a9c); the same item keeps it across checkpoints"`
	Kind       string             `json:"kind" enum:"decision,assumption,task,open_question,entity" doc:"What the item is"`
	Text       string             `json:"text" doc:"The item's text as this checkpoint holds it"`
	Key        string             `json:"key" doc:"What the server matches the item by when a save, a draft or a merge compares items: its text lower-cased, with punctuation and symbols deleted and spacing collapsed (an item with no letters or digits keys by its exact text after a NUL). Compare keys, not texts"`
	Status     string             `json:"status" enum:"open,done,answered,retracted,superseded" doc:"open and done items are part of the state (in the classic lists); answered, retracted and superseded ones are recorded only in the checkpoint that ended them"`
	Origin     smriti.ItemOrigin  `json:"origin" doc:"Where the item was introduced"`
	Supersedes []string           `json:"supersedes" doc:"Ids of the items this one replaced ([] when none)"`
	Change     *smriti.ItemChange `json:"change" doc:"What this checkpoint (or draft) did to the item; null when it was carried unchanged"`
	Refs       []smriti.ItemRef   `json:"refs" doc:"The code the item cites, each with the commit and span hash it was written against ([] when none); checked against a work tree by smriti check"`
	Version    *string            `json:"version" doc:"The version's stable name, item@version: the item id and the hash of the checkpoint that introduced this version (the newest checkpoint on the first-parent chain that changed the item); it resolves the same on every copy of the space. Null for a draft, and in views that do not look it up (state as of)"`
}

// ItemIn proposes an item when saving a checkpoint: its id (to keep an
// item's identity through an edit), supersedes and origin. The classic
// content fields stay authoritative for the texts.
type ItemIn struct {
	ID         string             `json:"id" required:"false" doc:"The item's id; empty for a new item"`
	Kind       string             `json:"kind" required:"true" enum:"decision,assumption,task,open_question,entity" doc:"What the item is"`
	Text       string             `json:"text" required:"true" doc:"The item's text; matched to the content's items by normalised text"`
	Status     string             `json:"status" required:"false" enum:"open,done,answered,retracted,superseded" doc:"Default open; answered, retracted or superseded ends a parent item the content no longer has"`
	Supersedes []string           `json:"supersedes" required:"false" doc:"Ids of parent items this one replaces"`
	Origin     *smriti.ItemOrigin `json:"origin" required:"false" doc:"For a new item: the turns, quote and model it came from (checkpoint_id is set by the server)"`
	Change     *smriti.ItemChange `json:"change" required:"false" doc:"The change as a draft described it (kept with the item's history); change.merge is ignored: only a merge records one"`
	Refs       []smriti.ItemRef   `json:"refs,omitempty" required:"false" doc:"The code the item cites (at most 20); replaces the item's refs, which are otherwise carried from the parent"`
}

// ItemHistoryOut is an item's provenance along a space's lineage.
type ItemHistoryOut struct {
	Item ItemOut `json:"item" doc:"The version asked for (an item@version name), else the item as the newest checkpoint that records it holds it"`
	// Version names the version Item holds.
	Version string         `json:"version" doc:"The full item@version name of the version item holds"`
	Latest  bool           `json:"latest" doc:"True when that version is the item's newest"`
	History []ItemEventOut `json:"history" doc:"Every change to the item, oldest first"`
	// Validity is History read as the versions the item went through.
	Validity []ItemValidityOut `json:"validity" doc:"The item's versions, oldest first, each with the checkpoints that began and ended it on its branch"`
}

// ItemValidityOut is one version of an item and when its branch held it.
type ItemValidityOut struct {
	Text       string     `json:"text" doc:"The version's text"`
	Status     string     `json:"status" doc:"Its status"`
	BranchName string     `json:"branch_name" doc:"The branch that held it"`
	ValidFrom  EventMark  `json:"valid_from" doc:"The checkpoint that introduced or changed the item to this version"`
	ValidTo    *EventMark `json:"valid_to" doc:"The next checkpoint on the branch that changed, resolved, retracted or superseded it; null while the branch still holds it"`
}

// EventMark names the checkpoint of an item event.
type EventMark struct {
	CheckpointID smriti.ID `json:"checkpoint_id" doc:"The checkpoint"`
	CommitHash   string    `json:"commit_hash" doc:"Its hash"`
	CreatedAt    time.Time `json:"created_at" doc:"When it was saved"`
}

// ValidityOut is the versions of itemID in its history evs.
func ValidityOut(evs []smriti.ItemEvent, itemID string) []ItemValidityOut {
	mark := func(ev *smriti.ItemEvent) EventMark {
		return EventMark{CheckpointID: ev.CheckpointID, CommitHash: ev.CommitHash, CreatedAt: ev.CreatedAt}
	}
	out := []ItemValidityOut{}
	for _, v := range smriti.ItemHistory(evs).Validity(itemID) {
		o := ItemValidityOut{Text: v.Text, Status: v.Status, BranchName: v.Branch, ValidFrom: mark(v.From)}
		if v.To != nil {
			m := mark(v.To)
			o.ValidTo = &m
		}
		out = append(out, o)
	}
	return out
}

// ItemEventOut is one change to an item.
type ItemEventOut struct {
	CheckpointID smriti.ID         `json:"checkpoint_id" doc:"The checkpoint that made the change"`
	CommitHash   string            `json:"commit_hash" doc:"Its hash"`
	BranchName   string            `json:"branch_name" doc:"Its branch"`
	CreatedAt    time.Time         `json:"created_at" doc:"When it was saved"`
	Merge        bool              `json:"merge" doc:"True when the checkpoint is a merge"`
	Event        string            `json:"event" enum:"introduced,changed,resolved,retracted,superseded,superseded_by,rejected" doc:"What happened to the item; rejected is a version the merge checkpoint_id turned down (text and change.source are that version's), always listed before the merge's own entry"`
	ItemID       string            `json:"item_id" doc:"The item the row is about: the item itself, or for superseded_by the item that replaced it"`
	Text         string            `json:"text" doc:"The item's text after the change (for superseded_by, the replacing item's)"`
	Status       string            `json:"status" doc:"The item's status after the change"`
	Change       smriti.ItemChange `json:"change" doc:"The change: before-text, by, reason and the turns it came from"`
	Origin       smriti.ItemOrigin `json:"origin" doc:"Where the item (for superseded_by: the replacing item) was introduced"`
	Version      *string           `json:"version" doc:"The full item@version name of the version this change made (for superseded_by, of the replacing item); null for a version a merge turned down"`
}

// DomainItems turns an items view back into domain items (the client's
// side of ItemOut).
func DomainItems(in []ItemOut) []smriti.Item {
	out := make([]smriti.Item, 0, len(in))
	for _, it := range in {
		d := smriti.Item{ID: it.ID, Kind: smriti.ItemKind(it.Kind), Text: it.Text, Status: it.Status,
			Supersedes: it.Supersedes, Origin: it.Origin, Change: it.Change, Refs: it.Refs}
		if it.Version != nil {
			if v, err := smriti.ParseItemVersion(*it.Version); err == nil {
				d.Version = v.Hash
			}
		}
		out = append(out, d)
	}
	return out
}

// VersionOut is the item@version name of the version item holds, nil
// when it is not known (see ItemOut.Version).
func VersionOut(it *smriti.Item) *string {
	if it.Version == "" {
		return nil
	}
	name := smriti.ItemVersion{ItemID: it.ID, Hash: it.Version}.String()
	return &name
}

// ItemsInOf is the items view as a checkpoint write's proposal.
func ItemsInOf(items []smriti.Item) []ItemIn {
	out := make([]ItemIn, 0, len(items))
	for _, it := range items {
		o := it.Origin
		out = append(out, ItemIn{ID: it.ID, Kind: string(it.Kind), Text: it.Text, Status: ItemStatus(it.Status),
			Supersedes: nonnil.Slice(it.Supersedes), Origin: &o, Change: it.Change, Refs: it.Refs})
	}
	return out
}

// DraftResultOf turns a draft or extract answer back into a domain result.
func DraftResultOf(f *DraftFields, artifacts []smriti.Artifact, warnings []string, v *ChangeView) *intelligence.DraftResult {
	d := &intelligence.Draft{Title: f.Title, Objective: f.Objective, Summary: f.Summary, Decisions: f.Decisions, Assumptions: f.Assumptions,
		Tasks: f.Tasks, OpenQuestions: f.OpenQuestions, Entities: f.Entities, Artifacts: nonnil.Slice(artifacts), Warnings: warnings}
	res := &intelligence.DraftResult{Draft: d, Items: DomainItems(v.Items)}
	for _, c := range v.Changes {
		res.Changes = append(res.Changes, smriti.ItemDelta{Op: c.Op, Kind: smriti.ItemKind(c.Kind), ID: c.ID, Before: c.Before, After: c.After,
			By: c.By, Reason: c.Reason, Source: c.Source})
	}
	if v.Model != nil {
		res.Model = *v.Model
	}
	if v.BaseCheckpointID != nil {
		res.Base = &smriti.Checkpoint{ID: *v.BaseCheckpointID}
	}
	return res
}

// DomainItemAt turns an item's history back into the domain's item with
// the version the answer picked.
func DomainItemAt(h *ItemHistoryOut) *smriti.ItemAt {
	at := &smriti.ItemAt{ItemID: h.Item.ID, History: DomainItemEvents(h)}
	for i := range at.History {
		if ev := &at.History[i]; ev.IsVersion(at.ItemID) && ev.VersionName() == h.Version {
			at.Version = ev
		}
	}
	return at
}

// DomainItemEvents turns an item's history back into domain events.
func DomainItemEvents(h *ItemHistoryOut) []smriti.ItemEvent {
	out := make([]smriti.ItemEvent, 0, len(h.History))
	for _, e := range h.History {
		ch := e.Change
		out = append(out, smriti.ItemEvent{CheckpointID: e.CheckpointID, CommitHash: e.CommitHash, BranchName: e.BranchName,
			CreatedAt: e.CreatedAt, Merge: e.Merge, Rejected: e.Event == smriti.EventRejected, Item: smriti.Item{ID: e.ItemID, Kind: smriti.ItemKind(h.Item.Kind), Text: e.Text,
				Status: e.Status, Origin: e.Origin, Change: &ch}})
	}
	return out
}

// TurnContextOut is what the model was given for an assistant turn, as the
// send recorded it with the turn.
type TurnContextOut struct {
	TurnID           smriti.ID                `json:"turn_id" doc:"The assistant turn"`
	SessionID        smriti.ID                `json:"session_id" doc:"Its session"`
	Seq              int64                    `json:"seq" doc:"Its sequence number"`
	Provider         string                   `json:"provider" doc:"The provider that answered"`
	Model            string                   `json:"model" doc:"The model that answered"`
	Mode             intelligence.ContextMode `json:"mode" enum:"FRESH,HEAD,MOUNTED,FORKED" doc:"The context mode of the send"`
	CheckpointIDs    []smriti.ID              `json:"checkpoint_ids" doc:"The checkpoints in the prompt, oldest first ([] for none)"`
	CheckpointHashes []string                 `json:"checkpoint_hashes" doc:"Their hashes, in the same order ([] when not recorded)"`
	FromSeq          *int64                   `json:"from_seq" doc:"First history turn sent; null when none was"`
	ToSeq            *int64                   `json:"to_seq" doc:"Last history turn sent; null when none was"`
	DroppedTurns     int                      `json:"dropped_turns" doc:"Allowed turns left out to fit the token budget (oldest first)"`
	InputTokens      int                      `json:"input_tokens" doc:"Prompt tokens the provider reported"`
	OutputTokens     int                      `json:"output_tokens" doc:"Reply tokens the provider reported"`
}

// CheckpointMark names a checkpoint where a span of state begins or ends.
type CheckpointMark struct {
	CheckpointID smriti.ID `json:"checkpoint_id" doc:"The checkpoint"`
	CommitHash   string    `json:"commit_hash" doc:"Its hash"`
	Message      string    `json:"message" doc:"Its title"`
	CreatedAt    time.Time `json:"created_at" doc:"When it was saved"`
}

// CheckpointMarkOf is c as a CheckpointMark (nil for nil).
func CheckpointMarkOf(c *smriti.Checkpoint) *CheckpointMark {
	if c == nil {
		return nil
	}
	return &CheckpointMark{CheckpointID: c.ID, CommitHash: c.Hash, Message: c.Message, CreatedAt: c.CreatedAt}
}

// ItemAsOfOut is an item of a state as of a checkpoint, with its span.
type ItemAsOfOut struct {
	ItemOut
	ValidFrom CheckpointMark  `json:"valid_from" doc:"The first checkpoint of the unbroken run, on this line of work and ending at the one asked for, that holds the item"`
	ValidTo   *CheckpointMark `json:"valid_to" doc:"The first later checkpoint on the line that no longer holds it (changed away, resolved or retracted); null while the line's head still holds it"`
}

// StateAsOfOut is the state of a line of work as of one of its checkpoints.
type StateAsOfOut struct {
	SpaceID    smriti.ID      `json:"space_id" doc:"The space"`
	Branch     string         `json:"branch" doc:"The line of work: the branch whose first-parent chain was read"`
	AsOf       string         `json:"as_of" doc:"The reference asked for: a checkpoint id or hash prefix, or a time"`
	Checkpoint CheckpointMark `json:"checkpoint" doc:"The checkpoint the reference names (for a time: the newest written by then)"`
	Head       CheckpointMark `json:"head" doc:"The line's newest checkpoint"`
	Items      []ItemAsOfOut  `json:"items" doc:"The live items of that checkpoint, in its order, each with its span"`
}

// DomainSpans turns a state as of back into domain spans (the client's
// side of StateAsOfOut).
func DomainSpans(st *StateAsOfOut) []smriti.ItemSpan {
	mark := (*CheckpointMark).Checkpoint
	out := make([]smriti.ItemSpan, 0, len(st.Items))
	for i := range st.Items {
		it := &st.Items[i]
		out = append(out, smriti.ItemSpan{Item: DomainItems([]ItemOut{it.ItemOut})[0], ValidFrom: mark(&it.ValidFrom), ValidTo: mark(it.ValidTo)})
	}
	return out
}

// Checkpoint is the mark as a checkpoint holding its id, hash, title and
// time (nil for nil).
func (m *CheckpointMark) Checkpoint() *smriti.Checkpoint {
	if m == nil {
		return nil
	}
	return &smriti.Checkpoint{ID: m.CheckpointID, Hash: m.CommitHash, CreatedAt: m.CreatedAt, Content: smriti.Content{Message: m.Message}}
}
