package smriti

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"smriti/internal/textutil"
	"strconv"
	"strings"
	"time"
)

// State accumulates: every decision, assumption, task, open question and
// entity of a checkpoint is an Item with an id that lives across checkpoints
// while the item lives, so a new checkpoint is its parent plus what changed.
// The classic content lists (Content.Decisions, …) stay the wire's plain
// strings; a checkpoint's Items are the same lists with identity, plus a
// tombstone for every item the checkpoint retracted, superseded or answered.

// ItemKind is what an item is.
type ItemKind string

// Item kinds, in the order checkpoints list them.
const (
	KindDecision   ItemKind = "decision"
	KindAssumption ItemKind = "assumption"
	KindTask       ItemKind = "task"
	KindQuestion   ItemKind = "open_question"
	KindEntity     ItemKind = "entity"
)

// itemKinds lists every kind in checkpoint order.
var itemKinds = []ItemKind{KindDecision, KindAssumption, KindTask, KindQuestion, KindEntity}

// Item statuses. Open and done items are live: they are in the classic
// lists (a done task as a task object with "status": "done"). Answered,
// retracted and superseded items are tombstones, recorded only in the
// checkpoint that made the change and never carried further.
const (
	ItemOpen       = "open"
	ItemDone       = "done"
	ItemAnswered   = "answered"
	ItemRetracted  = "retracted"
	ItemSuperseded = "superseded"
)

// Change operations: what a checkpoint did to an item. "" means the item was
// carried unchanged from the parent.
const (
	OpAdd       = "add"
	OpUpdate    = "update"
	OpResolve   = "resolve"
	OpRetract   = "retract"
	OpSupersede = "supersede"
)

// Item is one piece of state with identity.
type Item struct {
	ID     string
	Kind   ItemKind
	Text   string
	Status string
	// Task holds a task's annotations (kind task only); its Text and Status
	// follow the item's.
	Task *Task
	// Supersedes names the items this one replaced.
	Supersedes []string
	// Origin is where the item was introduced; it never changes.
	Origin ItemOrigin
	// Change is what the checkpoint holding this item did to it; nil when
	// it was carried unchanged.
	Change *ItemChange
	// Refs are the code the item cites (see ItemRef); they travel with the
	// item from checkpoint to checkpoint until a write replaces them.
	Refs []ItemRef
	// Version is the hash of the checkpoint that introduced the version of
	// the item this row holds (see ItemVersion): the newest checkpoint on
	// the first-parent chain, this one included, that changed the item.
	// Only reads that say so set it; "" elsewhere.
	Version string
}

// ItemOrigin is where an item was introduced: the checkpoint, and the turns,
// author and model it came from (nil where unknown).
type ItemOrigin struct {
	CheckpointID *ID     `json:"checkpoint_id" doc:"The checkpoint that introduced the item (null in a draft: not saved yet)"`
	SessionID    *ID     `json:"session_id" doc:"The session whose turns the item came from; null when it came from a document or is unknown"`
	FromSeq      *int64  `json:"from_seq" doc:"First turn (sequence number) the item came from; null when unknown"`
	ToSeq        *int64  `json:"to_seq" doc:"Last turn (sequence number) the item came from; null when unknown"`
	Quote        *string `json:"quote" doc:"The words that support the item (at most 300 characters); null when none was recorded"`
	AuthorAgent  *string `json:"author_agent" doc:"The author_agent of the checkpoint that introduced it"`
	Model        *string `json:"model" doc:"The model that drafted it; null for hand-written items"`
}

// ItemChange is a change a checkpoint made to an item.
type ItemChange struct {
	Op string `json:"op" enum:"add,update,resolve,retract,supersede" doc:"What the checkpoint did to the item"`
	// Before is the item's text in the parent (update, supersede).
	Before *string `json:"before" doc:"The item's text before the change (update, resolve, retract, supersede); null for an add"`
	// By says how a task or question was resolved; Reason why an item was
	// retracted.
	By     *string    `json:"by" doc:"How a task was done or a question answered (resolve); null otherwise"`
	Reason *string    `json:"reason" doc:"Why the item was retracted; null otherwise"`
	Source ItemSource `json:"source" doc:"The turns or document line the change came from"`
	// Merge is set on the row a merge wrote for an item whose conflict a
	// resolution settled.
	Merge *ItemMerge `json:"merge" doc:"How a merge settled a conflict on the item: the side it chose and the versions it turned down; null unless this checkpoint is a merge that resolved a conflict on the item"`
}

// ItemMerge is how a merge settled a conflict on an item. The merged
// item's Change.Source is the chosen side's (the turns its version came
// from); the versions turned down are kept here, so the item's history can
// show them as rejected by the merge and never as its latest word.
type ItemMerge struct {
	Choice   string            `json:"choice" enum:"ours,theirs,base,custom" doc:"The resolution's choice"`
	Rejected []RejectedVersion `json:"rejected" doc:"The sides' versions the merge turned down ([] when none)"`
}

// RejectedVersion is one side's version of an item that a merge turned
// down. Text nil means that side had removed the item.
type RejectedVersion struct {
	Side   string     `json:"side" enum:"ours,theirs" doc:"ours (the merge target) or theirs (the merged source)"`
	Text   *string    `json:"text" doc:"The text that side held; null when that side had removed the item"`
	Source ItemSource `json:"source" doc:"The turns that side's version came from"`
}

// ItemSource is the turns (or the document line) a change came from.
type ItemSource struct {
	SessionID *ID     `json:"session_id" doc:"The session whose turns the change came from; null for a document or a hand-written change"`
	FromSeq   *int64  `json:"from_seq" doc:"First turn (sequence number); null when unknown"`
	ToSeq     *int64  `json:"to_seq" doc:"Last turn (sequence number); null when unknown"`
	Quote     *string `json:"quote" doc:"The supporting words (at most 300 characters); null when none"`
}

// Live reports whether the item is part of the state (not a tombstone).
func (it *Item) Live() bool {
	return it.Status == ItemOpen || it.Status == ItemDone || it.Status == ""
}

// idPrefix is the one-letter prefix of a kind's item ids.
func (k ItemKind) idPrefix() string {
	switch k {
	case KindDecision:
		return "d"
	case KindAssumption:
		return "a"
	case KindTask:
		return "t"
	case KindQuestion:
		return "q"
	case KindEntity:
		return "e"
	}
	return "x"
}

// Valid reports whether k is one of ItemKinds.
func (k ItemKind) Valid() bool { return k.idPrefix() != "x" }

// ParseItemKind accepts a kind's name, its plural as a content field
// ("decisions", "open_questions") or "question". EUNPROCESSABLE otherwise.
func ParseItemKind(s string) (ItemKind, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "decision", "decisions":
		return KindDecision, nil
	case "assumption", "assumptions":
		return KindAssumption, nil
	case "task", "tasks":
		return KindTask, nil
	case "open_question", "open_questions", "question", "questions":
		return KindQuestion, nil
	case "entity", "entities":
		return KindEntity, nil
	}
	return "", Errorf(EUNPROCESSABLE, "kind must be decision, assumption, task, open_question or entity, not %q", textutil.Truncate(s, 30))
}

// Field is the content field holding items of kind k.
func (k ItemKind) Field() string {
	switch k {
	case KindDecision:
		return "decisions"
	case KindAssumption:
		return "assumptions"
	case KindTask:
		return "tasks"
	case KindQuestion:
		return "open_questions"
	case KindEntity:
		return "entities"
	}
	return string(k)
}

// ValidItemID reports whether id has the shape of an item id: a kind prefix,
// "-" and 6 to 16 lowercase hex digits.
func ValidItemID(id string) bool {
	p, hexPart, ok := strings.Cut(id, "-")
	if !ok || len(p) != 1 || !strings.Contains("datqe", p) || len(hexPart) < 6 || len(hexPart) > 16 {
		return false
	}
	for _, r := range hexPart {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}

// itemIDs mints item ids that are unique among the ids it has seen. An id is
// derived from the kind and the normalised text it was first written with,
// so the same item written independently on two branches (or backfilled
// twice) gets the same id; a clash with an id in use takes the next salt.
type itemIDs struct{ used map[string]bool }

func newItemIDs() *itemIDs { return &itemIDs{used: map[string]bool{}} }

func (m *itemIDs) take(id string) bool {
	if id == "" || m.used[id] {
		return false
	}
	m.used[id] = true
	return true
}

func (m *itemIDs) mint(kind ItemKind, text string) string {
	key := ItemKey(text)
	for salt := 0; ; salt++ {
		sum := sha256.Sum256([]byte(string(kind) + "\x00" + key + "\x00" + strconv.Itoa(salt)))
		id := kind.idPrefix() + "-" + hex.EncodeToString(sum[:3])
		if m.take(id) {
			return id
		}
	}
}

// itemsOfContent lists the content's items in checkpoint order, without ids:
// the classic lists read as items.
func itemsOfContent(c *Content) []Item {
	var out []Item
	add := func(kind ItemKind, list []string) {
		for _, s := range list {
			out = append(out, Item{Kind: kind, Text: s, Status: ItemOpen})
		}
	}
	add(KindDecision, c.Decisions)
	add(KindAssumption, c.Assumptions)
	for i := range c.Tasks {
		t := c.Tasks[i]
		st := ItemOpen
		if taskDone(t.Status) {
			st = ItemDone
		}
		out = append(out, Item{Kind: KindTask, Text: t.Text, Status: st, Task: &t})
	}
	add(KindQuestion, c.OpenQuestions)
	add(KindEntity, c.Entities)
	return out
}

// taskDone reports whether a task status means finished.
func taskDone(status string) bool {
	switch strings.ToLower(strings.TrimSpace(status)) {
	case "done", "completed", "complete", "closed", "resolved":
		return true
	}
	return false
}

// setContentLists replaces the content's item lists with the live items, in
// order. A task keeps its annotations; a done task becomes a task object
// with "status": "done".
func setContentLists(c *Content, items []Item) {
	c.Decisions, c.Assumptions, c.Tasks, c.OpenQuestions, c.Entities = []string{}, []string{}, []Task{}, []string{}, []string{}
	for i := range items {
		it := &items[i]
		if !it.Live() {
			continue
		}
		switch it.Kind {
		case KindDecision:
			c.Decisions = append(c.Decisions, it.Text)
		case KindAssumption:
			c.Assumptions = append(c.Assumptions, it.Text)
		case KindTask:
			t := Task{Text: it.Text}
			if it.Task != nil {
				t = *it.Task
				t.Text = it.Text
			}
			if it.Status == ItemDone && !taskDone(t.Status) {
				t.Status, t.Structured = ItemDone, true
			}
			c.Tasks = append(c.Tasks, t)
		case KindQuestion:
			c.OpenQuestions = append(c.OpenQuestions, it.Text)
		case KindEntity:
			c.Entities = append(c.Entities, it.Text)
		}
	}
}

// sameItemValue reports whether two versions of an item say the same thing:
// text, status and (for tasks) annotations.
func sameItemValue(a, b *Item) bool {
	if strings.TrimSpace(a.Text) != strings.TrimSpace(b.Text) || a.StatusOrOpen() != b.StatusOrOpen() {
		return false
	}
	if a.Kind != KindTask {
		return true
	}
	ta, tb := Task{}, Task{}
	if a.Task != nil {
		ta = *a.Task
	}
	if b.Task != nil {
		tb = *b.Task
	}
	return ta.IntentHint == tb.IntentHint && slices.Equal(ta.BlockedBy, tb.BlockedBy) && ta.ID == tb.ID
}

// StatusOrOpen is the item's status, open when none was recorded.
func (it *Item) StatusOrOpen() string {
	if it.Status == "" {
		return ItemOpen
	}
	return it.Status
}

// ItemEvent is one change to an item along a space's lineage: the
// checkpoint that made it and the item as that checkpoint holds it (its
// Change says what happened; a supersede row of another item means this
// one was superseded by it).
type ItemEvent struct {
	SpaceID      ID
	CheckpointID ID
	CommitHash   string
	BranchName   string
	CreatedAt    time.Time
	LogPos       int64
	// Merge is true when the checkpoint is a merge.
	Merge bool
	// Rejected marks a version the merge CheckpointID turned down: Item
	// holds that version's text (and the source it came from), not the
	// item's state. It always comes before the merge's own row.
	Rejected bool
	Item     Item
}

// LinkTasks gives the live task items their annotations from c's tasks
// (stored items keep only text and status): the n-th live task item is the
// n-th task.
func (c *Content) LinkTasks(items []Item) {
	n := 0
	for i := range items {
		it := &items[i]
		if it.Kind != KindTask || !it.Live() {
			continue
		}
		if n < len(c.Tasks) {
			t := c.Tasks[n]
			it.Task = &t
		}
		n++
	}
}

// ItemHistory is an item's history as the storage contract's ItemHistory returns it:
// the events of the checkpoints that added, changed, resolved, retracted or
// superseded it (and the rows that mention it), oldest first.
type ItemHistory []ItemEvent

// WithRejections is the history with, before each merge row that
// settled a conflict on it, one event per version the merge turned down
// (see ItemEvent.Rejected), so the history says what each merge rejected
// while its latest entry stays the version the merge kept.
func (evs ItemHistory) WithRejections() ItemHistory {
	out := make(ItemHistory, 0, len(evs))
	for _, ev := range evs {
		if ch := ev.Item.Change; ch != nil && ch.Merge != nil {
			for _, v := range ch.Merge.Rejected {
				r := ev
				r.Rejected = true
				r.Item.Text = ""
				if v.Text != nil {
					r.Item.Text = *v.Text
				}
				r.Item.Change = &ItemChange{Op: OpUpdate, Source: v.Source,
					Merge: &ItemMerge{Choice: ch.Merge.Choice, Rejected: []RejectedVersion{v}}}
				out = append(out, r)
			}
		}
		out = append(out, ev)
	}
	return out
}

// Item history events, as ItemEvent.KindFor names them.
const (
	EventIntroduced   = "introduced"
	EventChanged      = "changed"
	EventResolved     = "resolved"
	EventRetracted    = "retracted"
	EventSuperseded   = "superseded"
	EventSupersededBy = "superseded_by"
	EventRejected     = "rejected"
)

// KindFor names what ev did to the item itemID: an add (or the
// supersede that created it) introduced it; an update changed it; resolve,
// retract and supersede ended it (superseded_by when ev is the row of the
// item that replaced it); rejected is a version a merge turned down.
func (ev *ItemEvent) KindFor(itemID string) string {
	it := &ev.Item
	if ev.Rejected {
		return EventRejected
	}
	if it.ID != itemID {
		return EventSupersededBy
	}
	op := ""
	if it.Change != nil {
		op = it.Change.Op
	}
	switch op {
	case OpAdd:
		return EventIntroduced
	case OpResolve:
		return EventResolved
	case OpRetract:
		return EventRetracted
	case OpSupersede:
		if it.Status == ItemSuperseded {
			return EventSuperseded
		}
		return EventIntroduced
	}
	return EventChanged
}
