package wire

import (
	"time"

	"smriti"
)

// ForkRequest starts a session on a new branch from a checkpoint.
type ForkRequest struct {
	// ClientRequestID is the body form of the Idempotency-Key header.
	ClientRequestID string  `json:"client_request_id" required:"false" doc:"Idempotency key, when the Idempotency-Key header is not sent: a retry with the same key and request returns the first answer without writing again"`
	SpaceID         *string `json:"space_id" required:"true" doc:"The space (UUID)"`
	CheckpointID    *string `json:"checkpoint_id" required:"true" doc:"The checkpoint of the space to fork from (UUID)"`
	// BranchName "" picks a free default name.
	BranchName string `json:"branch_name" required:"false" doc:"The new branch's name (default: fork-<hash7>, made unique); not main"`
	Provider   string `json:"provider" required:"false" doc:"The fork session's provider (default: the chat default)"`
	Model      string `json:"model" required:"false" doc:"Its model (default: the provider's)"`
}

// ForkResponse is the forked session.
type ForkResponse struct {
	SessionID              smriti.ID `json:"session_id" doc:"The new fork session"`
	BranchName             string    `json:"branch_name" doc:"Its branch"`
	ForkedFromCheckpointID smriti.ID `json:"forked_from_checkpoint_id" doc:"The checkpoint forked from"`
	// HistoryBaseSeq is -1, not the first implementation's 0. It is the
	// sequence number after which a session's turns enter the model's
	// context. The first implementation answered 0 and so dropped the
	// fork's first message (sequence 0) when a client sent it back; a fork
	// in FORKED mode sees all of its own turns, its first message included,
	// and -1 says exactly that to clients that echo it.
	HistoryBaseSeq int64      `json:"history_base_seq" doc:"Always -1: every turn of the fork reaches the model (the first implementation answered 0)"`
	Session        SessionOut `json:"session" doc:"The new session"`
}

// CheckpointNode is a checkpoint in the branch tree.
type CheckpointNode struct {
	ID                 smriti.ID  `json:"id" doc:"The checkpoint"`
	CommitHash         string     `json:"commit_hash" doc:"The checkpoint's hash: 64 hex digits of SHA-256 over its content and its parents' hashes"`
	Message            string     `json:"message" doc:"The checkpoint's title"`
	BranchName         string     `json:"branch_name" doc:"The branch (main, or a fork's branch)"`
	ParentCheckpointID *smriti.ID `json:"parent_checkpoint_id" doc:"Its parent (null for a root)"`
	MergeParentID      *smriti.ID `json:"merge_parent_id" doc:"The second parent of a merge checkpoint (null otherwise)"`
	CreatedAt          time.Time  `json:"created_at" doc:"When it was written (RFC 3339, UTC)"`
	Summary            string     `json:"summary" doc:"Where things stand, in a few sentences (\"\" when none)"`
	Objective          string     `json:"objective" doc:"What the work is for, in one sentence (\"\" when none)"`
	AuthorAgent        *string    `json:"author_agent" doc:"Who wrote it: an agent tag such as claude-code, a model, or a person (null when unknown)"`
	NoteCount          int        `json:"note_count" doc:"How many notes it has"`
	NoteKinds          []string   `json:"note_kinds" doc:"The kinds of its notes, each once: note, milestone, noise"`
}

// SessionNode is a session in the branch tree, with its real disposition.
type SessionNode struct {
	ID                     smriti.ID  `json:"id" doc:"The session"`
	Title                  string     `json:"title" doc:"Its title"`
	BranchName             string     `json:"branch_name" doc:"Its branch"`
	ForkedFromCheckpointID *smriti.ID `json:"forked_from_checkpoint_id" doc:"The checkpoint the session was forked from (null when not a fork)"`
	SeededCommitID         *smriti.ID `json:"seeded_commit_id" doc:"The checkpoint the session was seeded from at creation (null when none)"`
	BranchDisposition      string     `json:"branch_disposition" doc:"What became of the branch: active, integrated or abandoned"`
	CreatedAt              time.Time  `json:"created_at" doc:"When it was created (RFC 3339, UTC)"`
}

// MergeEdge is the second parent edge of a merge checkpoint.
type MergeEdge struct {
	CheckpointID       smriti.ID `json:"checkpoint_id" doc:"The merge checkpoint"`
	SourceCheckpointID smriti.ID `json:"source_checkpoint_id" doc:"The checkpoint merged into it (its second parent)"`
}

// LineageTree is a space's branch tree, oldest first.
type LineageTree struct {
	SpaceID     smriti.ID        `json:"space_id" doc:"The space"`
	Checkpoints []CheckpointNode `json:"checkpoints" doc:"Every checkpoint, oldest first"`
	Sessions    []SessionNode    `json:"sessions" doc:"Every session, oldest first"`
	Merges      []MergeEdge      `json:"merges" doc:"The second-parent edges of merge checkpoints"`
}

// CheckpointDetail is one side of a comparison.
type CheckpointDetail struct {
	ID         smriti.ID `json:"id" doc:"The checkpoint"`
	CommitHash string    `json:"commit_hash" doc:"The checkpoint's hash: 64 hex digits of SHA-256 over its content and its parents' hashes"`
	Message    string    `json:"message" doc:"The checkpoint's title"`
	BranchName string    `json:"branch_name" doc:"The branch (main, or a fork's branch)"`
	Summary    string    `json:"summary" doc:"Where things stand, in a few sentences (\"\" when none)"`
	Objective  string    `json:"objective" doc:"What the work is for, in one sentence (\"\" when none)"`
	StateLists
}

// CompareDiff is the flat diff the first implementation's clients read,
// with open questions and entities added.
type CompareDiff struct {
	SummaryA                 string     `json:"summary_a" doc:"A's summary (\"\" when none)"`
	SummaryB                 string     `json:"summary_b" doc:"B's summary (\"\" when none)"`
	ObjectiveA               string     `json:"objective_a" doc:"A's objective (\"\" when none)"`
	ObjectiveB               string     `json:"objective_b" doc:"B's objective (\"\" when none)"`
	DecisionsOnlyA           []string   `json:"decisions_only_a" doc:"Decisions only A has (matched case- and punctuation-insensitively), sorted"`
	DecisionsOnlyB           []string   `json:"decisions_only_b" doc:"Decisions only B has, sorted"`
	DecisionsShared          []string   `json:"decisions_shared" doc:"Decisions both have, in A's wording, sorted"`
	AssumptionsOnlyA         []string   `json:"assumptions_only_a" doc:"Assumptions only A has, sorted"`
	AssumptionsOnlyB         []string   `json:"assumptions_only_b" doc:"Assumptions only B has, sorted"`
	AssumptionsShared        []string   `json:"assumptions_shared" doc:"Assumptions both have, in A's wording, sorted"`
	TasksOnlyA               []string   `json:"tasks_only_a" doc:"Task texts only A has (annotations ignored), sorted"`
	TasksOnlyB               []string   `json:"tasks_only_b" doc:"Task texts only B has, sorted"`
	TasksShared              []string   `json:"tasks_shared" doc:"Task texts both have, in A's wording, sorted"`
	OpenQuestionsOnlyA       []string   `json:"open_questions_only_a" doc:"Open questions only A has, sorted"`
	OpenQuestionsOnlyB       []string   `json:"open_questions_only_b" doc:"Open questions only B has, sorted"`
	OpenQuestionsShared      []string   `json:"open_questions_shared" doc:"Open questions both have, in A's wording, sorted"`
	EntitiesOnlyA            []string   `json:"entities_only_a" doc:"Entities only A has, sorted"`
	EntitiesOnlyB            []string   `json:"entities_only_b" doc:"Entities only B has, sorted"`
	EntitiesShared           []string   `json:"entities_shared" doc:"Entities both have, in A's wording, sorted"`
	CommonAncestorCommitID   *smriti.ID `json:"common_ancestor_commit_id" doc:"Their lowest common ancestor along both parent edges; null when their histories are unrelated, always for checkpoints of two spaces"`
	CommonAncestorCommitHash *string    `json:"common_ancestor_commit_hash" doc:"The common ancestor's hash (null when there is none); its first 7 characters are how Smriti names it"`
}

// CompareResponse compares two checkpoints (of one space, or of two: then
// common_ancestor is null).
type CompareResponse struct {
	CheckpointA CheckpointDetail `json:"checkpoint_a" doc:"The first checkpoint of the path"`
	CheckpointB CheckpointDetail `json:"checkpoint_b" doc:"The second checkpoint of the path"`
	Diff        CompareDiff      `json:"diff" doc:"What differs and what is shared"`
}

// DispositionRequest sets the disposition of every session of a branch.
// The branch is named in the body because branch names contain "/".
type DispositionRequest struct {
	SpaceID     *string `json:"space_id" required:"true" doc:"The space (UUID)"`
	BranchName  *string `json:"branch_name" required:"true" doc:"The branch whose sessions change (in the body because branch names contain /)"`
	Disposition *string `json:"disposition" required:"true" doc:"active, integrated or abandoned"`
}

// DispositionResponse says how many sessions changed.
type DispositionResponse struct {
	SpaceID         smriti.ID `json:"space_id" doc:"The space (UUID)"`
	BranchName      string    `json:"branch_name" doc:"The branch"`
	Disposition     string    `json:"disposition" doc:"The disposition set"`
	SessionsUpdated int       `json:"sessions_updated" doc:"How many sessions of the branch changed"`
}

// MergeRequest merges a source checkpoint into a target (main's head by
// default). dry_run previews without writing.
type MergeRequest struct {
	// ClientRequestID is the body form of the Idempotency-Key header.
	ClientRequestID    string                   `json:"client_request_id" required:"false" doc:"Idempotency key, when the Idempotency-Key header is not sent: a retry with the same key and request returns the first answer without writing again"`
	SpaceID            *string                  `json:"space_id" required:"true" doc:"The space (UUID)"`
	SourceCheckpointID *string                  `json:"source_checkpoint_id" required:"true" doc:"The checkpoint to merge in (UUID)"`
	TargetCheckpointID *string                  `json:"target_checkpoint_id" doc:"The checkpoint to merge into (UUID; default main's head)"`
	Resolutions        []smriti.MergeResolution `json:"resolutions" required:"false" doc:"How to settle conflicts, each matched by field and key; unsettled ones answer 409 with the conflicts"`
	DryRun             bool                     `json:"dry_run" required:"false" doc:"Compute and return the merge without writing it (default false)"`
	Message            *string                  `json:"message" doc:"The merge checkpoint's title (default: Merge <source branch> into <target branch>)"`
}

// MergedContent is the content a merge produces.
type MergedContent struct {
	Message   string `json:"message" doc:"The merge checkpoint's title"`
	Summary   string `json:"summary" doc:"The merged summary"`
	Objective string `json:"objective" doc:"The merged objective"`
	StateLists
}

// MergePreview is a dry run's answer: the merged content and the conflicts
// still to resolve.
type MergePreview struct {
	BaseCheckpointID   *smriti.ID             `json:"base_checkpoint_id" doc:"The common ancestor the merge is computed from (null when unrelated)"`
	SourceCheckpointID smriti.ID              `json:"source_checkpoint_id" doc:"The checkpoint merged in"`
	TargetCheckpointID smriti.ID              `json:"target_checkpoint_id" doc:"The checkpoint merged into"`
	BaseCommitHash     *string                `json:"base_commit_hash" doc:"The common ancestor's hash (null when unrelated)"`
	SourceCommitHash   string                 `json:"source_commit_hash" doc:"The source checkpoint's hash"`
	TargetCommitHash   string                 `json:"target_commit_hash" doc:"The target checkpoint's hash"`
	Merged             MergedContent          `json:"merged" doc:"The content the merge would write"`
	Conflicts          []smriti.MergeConflict `json:"conflicts" doc:"The conflicts the request's resolutions leave unsettled ([] when none: the merge can be committed)"`
	Removes            []smriti.MergeRemoval  `json:"removes" doc:"Every item of the common ancestor the merged state no longer has, and which side removed it ([] when none): a merge never deletes silently"`
	Items              []ItemOut              `json:"items" doc:"The merged items with their ids"`
}

// MergeCommitted is a committed merge: the checkpoint with two parents.
type MergeCommitted struct {
	Checkpoint        Commit     `json:"checkpoint" doc:"The merge checkpoint written on the target's branch"`
	BaseCheckpointID  *smriti.ID `json:"base_checkpoint_id" doc:"The common ancestor the merge was computed from (null when unrelated)"`
	ConflictsResolved int        `json:"conflicts_resolved" doc:"Conflicts settled by the request's resolutions"`
}
