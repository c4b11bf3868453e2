package wire

import (
	"smriti"
	"smriti/intelligence"
)

// DraftRequest drafts a checkpoint from a session's recent turns
// (POST /api/v5/checkpoint/draft).
type DraftRequest struct {
	SessionID *string `json:"session_id" required:"true" doc:"The session to draft from (UUID)"`
	// NumTurns is how many recent turns to read (1–100, default 15).
	NumTurns            *int    `json:"num_turns" doc:"How many of the newest allowed turns to read: 1 to 100, default 15"`
	MountedCheckpointID *string `json:"mounted_checkpoint_id" doc:"Draft as if this checkpoint were mounted (default: the session's mount)"`
	HistoryBaseSeq      *int64  `json:"history_base_seq" doc:"With a mount: the last sequence number to leave out (-1: every turn)"`
}

// DraftFields are the proposed checkpoint content of a draft or extract.
type DraftFields struct {
	Title         string        `json:"title" doc:"A 3-5 word title for the checkpoint"`
	Objective     string        `json:"objective" doc:"One sentence, or \"\""`
	Summary       string        `json:"summary" doc:"Two to four sentences"`
	Decisions     []string      `json:"decisions" doc:"Decisions made explicitly in the turns"`
	Assumptions   []string      `json:"assumptions" doc:"Things taken for granted in the turns"`
	Tasks         []smriti.Task `json:"tasks" doc:"Tasks, normalised to {text, id?, intent_hint?, blocked_by?, status?}"`
	OpenQuestions []string      `json:"open_questions" doc:"Questions left open"`
	Entities      []string      `json:"entities" doc:"Proper nouns and key terms"`
}

// DraftOut is a drafted checkpoint, the turns it came from (null when the
// session had none to read) and warnings about what was dropped or looks
// like an instruction to a model. The classic fields are the proposed FULL
// state — the base with the changes applied — so a client that saves them
// as they are saves the whole state.
type DraftOut struct {
	DraftFields
	SourceTurns *smriti.SourceTurns `json:"source_turns" doc:"The turns drafted from (null when there were none: then nothing was asked of a model)"`
	Warnings    []string            `json:"warnings" doc:"What was dropped or repaired while parsing the model's answer, and any turns of the session left out of the draft ([] when nothing)"`
	Chunks      int                 `json:"chunks" doc:"How many model calls the draft took: the unconsumed turns are read in chunks that fit the background model's budget, each chunk's changes applied onto the previous result (0 when no model was asked)"`
	ChangeView
}

// ChangeView is a draft as a change list over its base (v5).
type ChangeView struct {
	BaseCheckpointID *smriti.ID  `json:"base_checkpoint_id" doc:"The checkpoint the draft changes (the one the session's context stands on); null for a first checkpoint"`
	Proposed         ContentOut  `json:"proposed" doc:"The proposed full content: the base with the changes applied"`
	Items            []ItemOut   `json:"items" doc:"The proposed items with their ids (tombstones last); send them back as items when saving to keep each item's identity"`
	Changes          []ChangeOut `json:"changes" doc:"What the draft changes, in order; [] when it carries the base unchanged"`
	Model            *string     `json:"model" doc:"The model that drafted it; null when none was asked"`
}

// ContentOut is checkpoint content.
type ContentOut struct {
	Message       string            `json:"message" doc:"The title"`
	Objective     string            `json:"objective" doc:"The goal"`
	Summary       string            `json:"summary" doc:"What was discussed and concluded"`
	Decisions     []string          `json:"decisions" doc:"Decisions made"`
	Assumptions   []string          `json:"assumptions" doc:"Things taken for granted"`
	Tasks         []smriti.Task     `json:"tasks" doc:"Tasks: strings, or objects with annotations"`
	OpenQuestions []string          `json:"open_questions" doc:"Questions not yet answered"`
	Entities      []string          `json:"entities" doc:"Proper nouns and key terms"`
	Artifacts     []smriti.Artifact `json:"artifacts" doc:"Attached content (carried from the base, plus a document's code blocks)"`
}

// ChangeOut is one change of a draft.
type ChangeOut struct {
	Op     string  `json:"op" enum:"add,update,resolve,retract,supersede" doc:"What the change does"`
	Kind   string  `json:"kind" enum:"decision,assumption,task,open_question,entity" doc:"The item's kind"`
	ID     string  `json:"id" doc:"The item's id (for supersede, the new item's)"`
	Before *string `json:"before" doc:"The text before (null for an add)"`
	After  *string `json:"after" doc:"The text after (null for resolve and retract)"`
	// The keys are what the server matches before and after by (ItemOut.Key).
	BeforeKey *string           `json:"before_key" doc:"The key of before, as items' key: what the server matches it by (null with before)"`
	AfterKey  *string           `json:"after_key" doc:"The key of after, as items' key (null with after)"`
	By        *string           `json:"by" doc:"How a task was done or a question answered; null otherwise"`
	Reason    *string           `json:"reason" doc:"Why an item was retracted; null otherwise"`
	Source    smriti.ItemSource `json:"source" doc:"The turns (session, seq range, quote) the change came from"`
}

// ExtractRequest extracts a checkpoint from freeform markdown
// (POST /api/v5/checkpoint/extract).
type ExtractRequest struct {
	Content *string `json:"content" required:"true" doc:"The markdown to extract from: not blank, at most 200,000 characters"`
	UseMock bool    `json:"use_mock" required:"false" doc:"Extract with the offline mock instead of the background provider (default false)"`
	// Onto is the checkpoint the document changes.
	Onto *string `json:"onto_checkpoint_id" required:"false" doc:"The checkpoint the document changes (usually the space's head): the proposal is that checkpoint plus the document's changes. Absent: every item is new, unless space_id is given"`
	// SpaceID and SessionID name the save the extraction is for.
	SpaceID   *string `json:"space_id" required:"false" doc:"The space the checkpoint will be saved in: without onto_checkpoint_id the document is extracted onto the checkpoint a save builds on now (base_checkpoint_id in the answer), and an untitled extraction gets the save's default title"`
	SessionID *string `json:"session_id" required:"false" doc:"With space_id: the session the checkpoint will be saved from (a fork's puts it on its branch); absent: main, with no session"`
}

// ExtractOut is an extracted checkpoint, with the document's code blocks
// and structured content as artifacts.
type ExtractOut struct {
	DraftFields
	Artifacts []smriti.Artifact `json:"artifacts" doc:"Code blocks and structured content of the document, verbatim"`
	Warnings  []string          `json:"warnings" doc:"What was dropped or repaired while parsing the model's answer ([] when nothing)"`
	ChangeView
}

// ReviewOut is a checkpoint's consistency review: at most 5 issues and 5
// suggestions.
type ReviewOut struct {
	CheckpointID smriti.ID                  `json:"checkpoint_id" doc:"The reviewed checkpoint"`
	Issues       []intelligence.ReviewIssue `json:"issues" doc:"At most 5 issues"`
	Suggestions  []string                   `json:"suggestions" doc:"At most 5 suggestions"`
}
