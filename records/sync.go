package records

// A sync stream carries part of a space from one copy to another (a fetch
// answer or a push body): gzip'd JSON Lines of bundle records — a header
// (format "smriti-sync"), the space, then checkpoints (parents first, each
// with its items and notes), sessions and turns interleaved in the sending
// server's log order, then a sync_end record. Every record is one a space
// bundle has, so a clone and a fetch speak the same language.
const (
	SyncFormat  = "smriti-sync"
	SyncVersion = 1
	// RecordSyncEnd closes a sync stream.
	RecordSyncEnd = "sync_end"
)

// SyncEnd closes a sync stream: what it held, the sender's log position up
// to which its turns are included (the next fetch asks for turns after it),
// and the sender's branch heads when the stream was read.
type SyncEnd struct {
	Counts BundleCounts `json:"counts"`
	Cursor int64        `json:"cursor"`
	Heads  []SyncHead   `json:"heads"`
}

// SyncHead is a branch head of the sending server.
type SyncHead struct {
	Branch       string `json:"branch"`
	CheckpointID string `json:"checkpoint_id"`
	CommitHash   string `json:"commit_hash"`
}
