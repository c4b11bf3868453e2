package wire

import (
	"encoding/json"
	"smriti/intelligence"

	"smriti"
)

// SendRequest is the body of a send, a streamed send and a context preview.
// The mount fields are omitted when nil, so the Go client never sends the
// explicit null that ends a mount unless asked to.
type SendRequest struct {
	SessionID           *string `json:"session_id" required:"true" doc:"The session to send in"`
	RepoID              *string `json:"repo_id" doc:"Ignored: the session's own space is authoritative (accepted for compatibility)"`
	Provider            string  `json:"provider" required:"false" doc:"Provider for this send; default: the session's provider"`
	Model               string  `json:"model" required:"false" doc:"Model for this send; default: the session's model (the provider's default model when the provider changes)"`
	Message             *string `json:"message" required:"true" doc:"The user message (at most 100,000 characters)"`
	UseMock             bool    `json:"use_mock" required:"false" default:"false" doc:"Answer this one send with the offline mock; the session keeps its provider"`
	MemoryScope         string  `json:"memory_scope" required:"false" enum:"latest_1,latest_3" default:"latest_1" doc:"How many checkpoints enter the context"`
	MountedCheckpointID *string `json:"mounted_checkpoint_id,omitempty" doc:"Mount this checkpoint; a new one is recorded on the session and used by later sends. null (sent explicitly) ends the session's mount; left out, the mount stays"`
	HistoryBaseSeq      *int64  `json:"history_base_seq,omitempty" doc:"With a mount: the last sequence number to leave out (-1: every turn). Wins over the session's stored base for this send"`
	// ClientRequestID is the body form of the Idempotency-Key header.
	ClientRequestID    string `json:"client_request_id" required:"false" doc:"Idempotency key, when the Idempotency-Key header is not sent"`
	HistoryTokenBudget int    `json:"history_token_budget" required:"false" doc:"Token budget for history turns; default: the model's window minus the reply reserve and the fixed messages"`

	// Unmount is set by decoding when the body names
	// "mounted_checkpoint_id": null (see smriti.ContextRequest.Unmount).
	Unmount bool `json:"-"`
}

// UnmarshalJSON decodes a send body and notes an explicit
// "mounted_checkpoint_id": null, which a pointer cannot tell from absence.
func (r *SendRequest) UnmarshalJSON(b []byte) error {
	type plain SendRequest
	if err := json.Unmarshal(b, (*plain)(r)); err != nil {
		return err
	}
	var named struct {
		Mounted json.RawMessage `json:"mounted_checkpoint_id"`
	}
	if err := json.Unmarshal(b, &named); err != nil {
		return err
	}
	r.Unmount = string(named.Mounted) == "null"
	return nil
}

// ContextInfo says what a reply was built from.
type ContextInfo struct {
	Mode          string      `json:"mode" enum:"FRESH,HEAD,MOUNTED,FORKED" doc:"The context mode the reply was built in"`
	CheckpointIDs []smriti.ID `json:"checkpoint_ids" doc:"Checkpoints given to the model, oldest first"`
	CommitHashes  []string    `json:"commit_hashes" doc:"Their hashes, in the same order"`
	FromSeq       *int64      `json:"from_seq" doc:"First history turn sent (null when none)"`
	ToSeq         *int64      `json:"to_seq" doc:"Last history turn sent (null when none)"`
	DroppedTurns  int         `json:"dropped_turns" doc:"Allowed turns left out to fit the budget"`
}

// SendResponse answers a send (the first implementation's fields first).
type SendResponse struct {
	Reply           string             `json:"reply" doc:"The assistant's reply"`
	SessionID       smriti.ID          `json:"session_id" doc:"The session"`
	TurnCount       int64              `json:"turn_count" doc:"Turns in the session after this send"`
	Provider        string             `json:"provider" doc:"The provider recorded for the reply (with use_mock: the one asked for, though the mock answered)"`
	Model           string             `json:"model" doc:"The model recorded for the reply"`
	UserTurnID      smriti.ID          `json:"user_turn_id" doc:"The stored user turn"`
	AssistantTurnID smriti.ID          `json:"assistant_turn_id" doc:"The stored assistant turn"`
	UserSeq         int64              `json:"user_seq" doc:"The user turn's sequence number"`
	AssistantSeq    int64              `json:"assistant_seq" doc:"The assistant turn's sequence number (user_seq + 1)"`
	Usage           intelligence.Usage `json:"usage" doc:"Tokens the provider reported (estimates for the mock)"`
	Context         ContextInfo        `json:"context" doc:"What the reply was built from"`
	Replayed        bool               `json:"replayed" doc:"True when this answers a repeated idempotency key: the first send's response, the provider not called again"`
	// Redactions is present only when a secret was replaced, so that the
	// first implementation's clients see the classic shape.
	Redactions []smriti.Redaction `json:"redactions,omitempty" doc:"Present only when secrets were replaced before storing: each one's field (message: the user's, replaced before the provider saw it; reply) and rule. The stored text holds [redacted: rule] in its place"`
}

// ContextPreview is exactly what a send with the same body would give the
// model, without calling it.
type ContextPreview struct {
	Mode          string                 `json:"mode" enum:"FRESH,HEAD,MOUNTED,FORKED" doc:"The context mode: FRESH, HEAD, MOUNTED or FORKED"`
	Provider      string                 `json:"provider" doc:"The provider the send would call"`
	Model         string                 `json:"model" doc:"The model it would ask"`
	CheckpointIDs []smriti.ID            `json:"checkpoint_ids" doc:"Checkpoints given to the model, oldest first"`
	Checkpoints   []PreviewCommit        `json:"checkpoints" doc:"The same checkpoints, named"`
	TurnRange     *SeqRange              `json:"turn_range" doc:"Sequence numbers of the history turns sent (null when none)"`
	TurnCount     int                    `json:"turn_count" doc:"How many history turns are sent"`
	DroppedTurns  int                    `json:"dropped_turns" doc:"Allowed turns left out to fit the budget, oldest first"`
	HistoryBudget int                    `json:"history_budget" doc:"Token budget the history turns were fitted to"`
	TokenEstimate int                    `json:"token_estimate" doc:"Tokens of the whole prompt: exact for OpenAI models, else an estimate with a 15% margin"`
	ExactTokens   bool                   `json:"exact_tokens" doc:"True when token_estimate comes from the model's own tokenizer"`
	ReplyTokens   int                    `json:"reply_tokens" doc:"Reply reserve: the max_tokens the provider is asked for, kept free in the window"`
	Mount         *SessionMount          `json:"mount" doc:"The session's mount (null when none); a send with this body records a new one when it names another checkpoint"`
	LastUsage     *intelligence.Usage    `json:"last_usage" doc:"Prompt and completion tokens the provider reported for the session's newest reply (null before the first)"`
	Messages      []intelligence.Message `json:"messages" doc:"Exactly the messages the provider would get: system, the history turns, the new message"`
	// Where the model's context starts in the thread, and why earlier turns
	// are left out.
	AllowedFromSeq int64   `json:"allowed_from_seq" doc:"The first turn the context mode allows: earlier turns are before the mounted, fork or head checkpoint; turns from here up to turn_range.from_seq were dropped to fit the budget (the session's next sequence number when none is allowed)"`
	StoppedTurns   []int64 `json:"stopped_turns" doc:"Sequence numbers of stopped replies among the turns sent: a reply the user stopped is given to the model as far as it got"`
}

// PreviewCommit names a checkpoint in a preview.
type PreviewCommit struct {
	ID         smriti.ID `json:"id" doc:"The checkpoint"`
	CommitHash string    `json:"commit_hash" doc:"The checkpoint's hash: 64 hex digits of SHA-256 over its content and its parents' hashes"`
	Message    string    `json:"message" doc:"Its title"`
	BranchName string    `json:"branch_name" doc:"The branch (main, or a fork's branch)"`
}

// SeqRange is an inclusive range of turn sequence numbers.
type SeqRange struct {
	FromSeq int64 `json:"from_seq" doc:"First sequence number, inclusive"`
	ToSeq   int64 `json:"to_seq" doc:"Last sequence number, inclusive"`
}
