package contract

import "smriti"

// Exchange is a user turn and the assistant reply to it, written together in
// one transaction after the provider has answered.
type Exchange struct {
	SessionID smriti.ID
	User      TurnWrite
	Assistant TurnWrite
	// IdempotencyKey, when set, makes a repeated write with the same key
	// return the stored exchange instead of writing twice.
	IdempotencyKey string
	// RequestHash is stored with the key (requestDigest of the send), so a
	// reuse of the key for another request can be told apart.
	RequestHash string
	// Mount, when set, is recorded as the session's mount in the same
	// transaction (a send naming a new mounted checkpoint).
	Mount *smriti.Mount
	// Unmount, when set, ends the session's mount in the same transaction
	// (a send naming "mounted_checkpoint_id": null).
	Unmount bool
	// KeepSessionModel leaves the session's provider and model as they are
	// (a one-off use_mock send); otherwise the exchange's become the
	// session's.
	KeepSessionModel bool
}

// ExchangeResult is what AppendExchange stored (or had stored before, for a
// repeated idempotency key).
type ExchangeResult struct {
	User      *smriti.Turn
	Assistant *smriti.Turn
	Replayed  bool
	// RequestHash is the digest stored with the idempotency key ("" for
	// keys stored before digests were kept).
	RequestHash string
}

// TurnWrite is the content of a turn to be written.
type TurnWrite struct {
	Content  string
	Provider string
	Model    string
	Tokens   int
	Metadata map[string]any
}

// HistoryQuery selects the history of a send: the session's non-system
// turns after AfterSeq and after log position AfterLogPos (no bound when
// nil) up to the session's LastSeq, newest first, read back only until their
// token counts (Turn.TokenCount) add up to more than Budget.
type HistoryQuery struct {
	AfterSeq    *int64
	AfterLogPos *int64
	Budget      int
}

// HistoryWindow is the answer to a HistoryQuery.
type HistoryWindow struct {
	// Turns are newest first. When the budget was exceeded, the last of
	// them is the first turn that took the running total past it.
	Turns []*smriti.Turn
	// Unread counts the allowed turns older than the last one returned,
	// which were not read.
	Unread int
}

// TurnQuery selects turns of one session. All bounds are exclusive.
type TurnQuery struct {
	AfterSeq    *int64 // sequence_number > AfterSeq
	AfterLogPos *int64 // log position > AfterLogPos
	BeforeSeq   *int64 // sequence_number < BeforeSeq (paging backwards)
	// Newest returns the most recent turns first; otherwise oldest first.
	Newest bool
	Limit  int
	// ExcludeSystem drops system-role turns.
	ExcludeSystem bool
	// PromptOnly fills only what a prompt needs — Seq, LogPos, Role,
	// Content and Tokens — so a send reading hundreds of history turns
	// does not pay for ids, metadata and timestamps it never uses.
	PromptOnly bool
}

// CheckpointQuery selects checkpoints of one space, newest first.
type CheckpointQuery struct {
	Branch *string
	smriti.Page
}
