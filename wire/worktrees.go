package wire

import (
	"smriti/coord"
	"time"

	"smriti"
)

// WorktreeRequest opens a git worktree for an agent.
type WorktreeRequest struct {
	SpaceID *string `json:"space_id" required:"true" doc:"The space (UUID)"`
	Agent   *string `json:"agent" required:"true" doc:"The agent to open it for: not blank"`
	// BranchName is the git branch to create (default smriti/<agent>/<suffix>).
	BranchName *string `json:"branch_name" doc:"The git branch to create (default: smriti/<agent>/<8 hex digits>); 409 when it exists"`
	// BaseCommitSHA is where the branch starts (default the project's HEAD).
	BaseCommitSHA *string `json:"base_commit_sha" doc:"The git commit to start from (default: HEAD of the space's project)"`
	// BasePath is the absolute directory to create (default under the
	// server's worktree root).
	BasePath *string `json:"base_path" doc:"Absolute directory to put it in (default: under the server's worktree directory; 400 when it has none)"`
}

// WorktreeOut is a worktree on the wire.
type WorktreeOut struct {
	ID            smriti.ID  `json:"id" doc:"The worktree"`
	RepoID        smriti.ID  `json:"repo_id" doc:"Its space"`
	Agent         string     `json:"agent" doc:"The agent it was opened for"`
	Path          string     `json:"path" doc:"Its directory"`
	BranchName    string     `json:"branch_name" doc:"Its git branch"`
	BaseCommitSHA *string    `json:"base_commit_sha" doc:"The git commit it was opened at (null when unknown)"`
	Status        string     `json:"status" doc:"active or closed"`
	CreatedAt     time.Time  `json:"created_at" doc:"When it was opened (RFC 3339, UTC)"`
	ClosedAt      *time.Time `json:"closed_at" doc:"When it was closed (null while active)"`
}

// WorktreeListItem is a worktree with its drift (probe null when closed or
// when probing failed).
type WorktreeListItem struct {
	WorktreeOut
	Probe *coord.WorktreeProbe `json:"probe" doc:"Its git state, cached for a minute (null when closed or probing failed)"`
}
