package records

import (
	"time"

	"smriti"
	"smriti/internal/nonnil"
)

// Bundle record types.
const (
	RecordHeader     = "header"
	RecordSpace      = "space"
	RecordCheckpoint = "checkpoint"
	RecordSession    = "session"
	RecordTurn       = "turn"
	RecordClaim      = "claim"
	RecordProposal   = "proposal"
	RecordEnd        = "end"
)

// BundleRecord is one line of a bundle: its type and the one field that
// type fills.
type BundleRecord struct {
	Type       string            `json:"type"`
	Header     *BundleHeader     `json:"header,omitempty"`
	Space      *BundleSpace      `json:"space,omitempty"`
	Checkpoint *BundleCheckpoint `json:"checkpoint,omitempty"`
	Session    *BundleSession    `json:"session,omitempty"`
	Turn       *BundleTurn       `json:"turn,omitempty"`
	Claim      *BundleClaim      `json:"claim,omitempty"`
	Receipt    *BundleReceipt    `json:"receipt,omitempty"`
	Proposal   *BundleProposal   `json:"proposal,omitempty"`
	End        *BundleCounts     `json:"end,omitempty"`
	SyncEnd    *SyncEnd          `json:"sync_end,omitempty"`
}

// BundleHeader names the format and its version.
type BundleHeader struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
}

// BundleCounts closes a bundle, so a cut-off one is recognised.
type BundleCounts struct {
	Checkpoints int `json:"checkpoints" doc:"Checkpoints in the bundle"`
	Notes       int `json:"notes" doc:"Checkpoint notes in the bundle"`
	Sessions    int `json:"sessions" doc:"Sessions in the bundle"`
	Turns       int `json:"turns" doc:"Turns in the bundle"`
	Claims      int `json:"claims" doc:"Claims in the bundle"`
	Receipts    int `json:"receipts,omitempty" doc:"Compaction receipts in the bundle (left out when none)"`
	// Proposals is absent from bundles that hold none (and from bundles
	// written before proposals existed).
	Proposals int `json:"proposals,omitempty" doc:"Proposals in the bundle"`
}

// BundleSpace is the space record.
type BundleSpace struct {
	ID          smriti.ID      `json:"id"`
	Slug        *string        `json:"slug"`
	Name        string         `json:"name"`
	Description string         `json:"description"`
	ProjectRoot *string        `json:"project_root"`
	Metadata    map[string]any `json:"metadata"`
	CreatedAt   time.Time      `json:"created_at"`
	UpdatedAt   time.Time      `json:"updated_at"`
	// AllowedSecrets are the values the space keeps although they look
	// like secrets (its allowlist): they pass the import as they passed
	// the export.
	AllowedSecrets []BundleAllow `json:"allowed_secrets,omitempty"`
}

// BundleAllow is a value on a space's allowlist: its rule and fingerprint.
type BundleAllow struct {
	Rule        string `json:"rule"`
	Fingerprint string `json:"fingerprint"`
}

// BundleCheckpoint is a checkpoint record with its notes.
type BundleCheckpoint struct {
	ID            smriti.ID         `json:"id"`
	CommitHash    string            `json:"commit_hash"`
	ParentID      *smriti.ID        `json:"parent_id"`
	MergeParentID *smriti.ID        `json:"merge_parent_id"`
	BranchName    string            `json:"branch_name"`
	AuthorAgent   *string           `json:"author_agent"`
	AuthorType    string            `json:"author_type"`
	ProjectRoot   *string           `json:"project_root"`
	Message       string            `json:"message"`
	Objective     string            `json:"objective"`
	Summary       string            `json:"summary"`
	Decisions     []string          `json:"decisions"`
	Assumptions   []string          `json:"assumptions"`
	Tasks         []smriti.Task     `json:"tasks"`
	OpenQuestions []string          `json:"open_questions"`
	Entities      []string          `json:"entities"`
	Artifacts     []smriti.Artifact `json:"artifacts"`
	ContextBlob   map[string]any    `json:"context_blob"`
	RawSourceText *string           `json:"raw_source_text"`
	Metadata      map[string]any    `json:"metadata"`
	CreatedAt     time.Time         `json:"created_at"`
	Notes         []BundleNote      `json:"notes"`
	// HashVersion 2 checkpoints carry their items (their hash covers them);
	// a version 1 checkpoint has none and gets them derived on import.
	HashVersion int          `json:"hash_version,omitempty"`
	Items       []BundleItem `json:"items,omitempty"`
	// Purged are the fields a secret purge replaced, with the digests a
	// version 3 hash covers in their place.
	Purged []smriti.PurgedField `json:"purged,omitempty"`
	// LogOrder is the checkpoint's place among its space's checkpoints and
	// turns in log order (0 first; see BundleTurn.LogOrder).
	LogOrder *int64 `json:"log_order,omitempty"`
}

// BundleItem is an item of a checkpoint, as stored.
type BundleItem struct {
	ID         string             `json:"id"`
	Kind       smriti.ItemKind    `json:"kind"`
	Text       string             `json:"text"`
	Status     string             `json:"status"`
	Supersedes []string           `json:"supersedes"`
	Origin     smriti.ItemOrigin  `json:"origin"`
	Change     *smriti.ItemChange `json:"change"`
	Refs       []smriti.ItemRef   `json:"refs,omitempty"`
}

// BundleNote is a note of a checkpoint.
type BundleNote struct {
	ID        smriti.ID `json:"id"`
	Author    string    `json:"author"`
	Text      string    `json:"text"`
	Kind      string    `json:"kind"`
	CreatedAt time.Time `json:"created_at"`
}

// BundleSession is a session record; its turns follow it.
type BundleSession struct {
	ID                     smriti.ID      `json:"id"`
	Title                  string         `json:"title"`
	ActiveProvider         string         `json:"active_provider"`
	ActiveModel            string         `json:"active_model"`
	SeededCheckpointID     *smriti.ID     `json:"seeded_checkpoint_id"`
	ForkedFromCheckpointID *smriti.ID     `json:"forked_from_checkpoint_id"`
	BranchName             string         `json:"branch_name"`
	BranchDisposition      string         `json:"branch_disposition"`
	Metadata               map[string]any `json:"metadata"`
	CreatedAt              time.Time      `json:"created_at"`
	UpdatedAt              time.Time      `json:"updated_at"`
	// MountedCheckpointID and MountBaseSeq are the session's mount
	// (smriti.Mount); absent when it has none.
	MountedCheckpointID *smriti.ID `json:"mounted_checkpoint_id,omitempty"`
	MountBaseSeq        *int64     `json:"mount_base_seq,omitempty"`
	// Agent names the coding-agent transcript the session was imported
	// from, so importing that transcript again adds only its new entries.
	Agent *BundleAgentSource `json:"agent,omitempty"`
}

// BundleAgentSource is the coding-agent transcript a session holds: its
// format, the agent's own session key, and the keys of the entries already
// written as turns.
type BundleAgentSource struct {
	Source     string    `json:"source"`
	SessionKey string    `json:"session_key"`
	CreatedAt  time.Time `json:"created_at"`
	EntryKeys  []string  `json:"entry_keys"`
}

// BundleTurn is a turn record.
type BundleTurn struct {
	ID        smriti.ID      `json:"id"`
	SessionID smriti.ID      `json:"session_id"`
	Seq       int64          `json:"sequence_number"`
	Role      string         `json:"role"`
	Content   string         `json:"content"`
	Provider  string         `json:"provider"`
	Model     string         `json:"model"`
	Tokens    int            `json:"tokens"`
	Metadata  map[string]any `json:"metadata"`
	CreatedAt time.Time      `json:"created_at"`
	// LogOrder is the turn's place among its space's checkpoints and turns
	// in log order (0 first). Records come checkpoints first, so without it
	// an import would log every turn after every checkpoint, and "turns
	// after this checkpoint" would take in turns from before it. Absent in
	// bundles written before it existed: records are then logged in order.
	LogOrder *int64 `json:"log_order,omitempty"`
}

// BundleClaim is a claim record. The worktree a claim was made from is a
// path on one machine and is not carried.
type BundleClaim struct {
	ID               smriti.ID  `json:"id"`
	SessionID        *smriti.ID `json:"session_id"`
	Agent            string     `json:"agent"`
	BranchName       string     `json:"branch_name"`
	BaseCheckpointID *smriti.ID `json:"base_checkpoint_id"`
	Scope            string     `json:"scope"`
	TaskID           *string    `json:"task_id"`
	Intent           string     `json:"intent"`
	Status           string     `json:"status"`
	ClaimedAt        time.Time  `json:"claimed_at"`
	ExpiresAt        time.Time  `json:"expires_at"`
	// FinishedAt is when a finished claim ended; LeaseSeconds the lease a
	// heartbeat renews it by. Absent when unset.
	FinishedAt   *time.Time `json:"finished_at,omitempty"`
	LeaseSeconds *int64     `json:"lease_seconds,omitempty"`
}

// CheckpointOf turns a checkpoint record into the domain's checkpoint.
func (b *BundleCheckpoint) CheckpointOf(spaceID smriti.ID) *smriti.Checkpoint {
	return &smriti.Checkpoint{
		ID: b.ID, SpaceID: spaceID, Hash: b.CommitHash, ParentID: b.ParentID, MergeParentID: b.MergeParentID,
		BranchName: b.BranchName, AuthorAgent: b.AuthorAgent, AuthorType: b.AuthorType, ProjectRoot: b.ProjectRoot,
		Content: smriti.Content{Message: b.Message, Objective: b.Objective, Summary: b.Summary, Decisions: nonnil.Slice(b.Decisions),
			Assumptions: nonnil.Slice(b.Assumptions), Tasks: nonnil.Slice(b.Tasks), OpenQuestions: nonnil.Slice(b.OpenQuestions),
			Entities: nonnil.Slice(b.Entities), Artifacts: nonnil.Slice(b.Artifacts)},
		ContextBlob: nonnil.Map(b.ContextBlob), RawSourceText: b.RawSourceText, Metadata: nonnil.Map(b.Metadata),
		CreatedAt: b.CreatedAt.UTC(), HashVersion: b.HashVersion, Items: itemsOfBundle(b), Purged: b.Purged,
	}
}

// itemsOfBundle is the checkpoint's items; nil for a version 1 record.
func itemsOfBundle(b *BundleCheckpoint) []smriti.Item {
	if b.HashVersion < 2 {
		return nil
	}
	out := make([]smriti.Item, 0, len(b.Items))
	for _, it := range b.Items {
		item := smriti.Item{ID: it.ID, Kind: it.Kind, Text: it.Text, Status: it.Status, Supersedes: it.Supersedes, Origin: it.Origin, Change: it.Change, Refs: it.Refs}
		out = append(out, item)
	}
	return out
}

// BundleCheckpointOf turns a checkpoint (with its notes) into its record.
func BundleCheckpointOf(c *smriti.Checkpoint) *BundleCheckpoint {
	b := &BundleCheckpoint{
		ID: c.ID, CommitHash: c.Hash, ParentID: c.ParentID, MergeParentID: c.MergeParentID, BranchName: c.BranchName,
		AuthorAgent: c.AuthorAgent, AuthorType: c.AuthorType, ProjectRoot: c.ProjectRoot, Message: c.Message,
		Objective: c.Objective, Summary: c.Summary, Decisions: nonnil.Slice(c.Decisions), Assumptions: nonnil.Slice(c.Assumptions),
		Tasks: nonnil.Slice(c.Tasks), OpenQuestions: nonnil.Slice(c.OpenQuestions), Entities: nonnil.Slice(c.Entities),
		Artifacts: nonnil.Slice(c.Artifacts), ContextBlob: nonnil.Map(c.ContextBlob), RawSourceText: c.RawSourceText,
		Metadata: nonnil.Map(c.Metadata), CreatedAt: c.CreatedAt.UTC(), Notes: []BundleNote{}, Purged: c.Purged,
	}
	if c.HashVersion >= 2 {
		b.HashVersion = c.HashVersion
		b.Items = make([]BundleItem, 0, len(c.Items))
		for _, it := range c.Items {
			b.Items = append(b.Items, BundleItem{ID: it.ID, Kind: it.Kind, Text: it.Text, Status: it.StatusOrOpen(),
				Supersedes: nonnil.Slice(it.Supersedes), Origin: it.Origin, Change: it.Change, Refs: it.Refs})
		}
	}
	for _, n := range c.Notes {
		b.Notes = append(b.Notes, BundleNote{ID: n.ID, Author: n.Author, Text: n.Text, Kind: n.Kind, CreatedAt: n.CreatedAt.UTC()})
	}
	return b
}
