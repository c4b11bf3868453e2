package coord

import (
	"context"
	"smriti"
	"time"
)

// Worktree statuses.
const (
	WorktreeActive = "active"
	WorktreeClosed = "closed"
)

// Worktree is a git worktree opened for an agent beside a space's project, on
// its own git branch, so several agents can edit the same project at once.
type Worktree struct {
	ID            smriti.ID
	SpaceID       smriti.ID
	Agent         string
	Path          string
	BranchName    string
	BaseCommitSHA *string
	Status        string
	CreatedAt     time.Time
	ClosedAt      *time.Time
}

// WorktreeProbe is how far a worktree has drifted: uncommitted files, commits
// ahead of and behind main, and its last commit.
type WorktreeProbe struct {
	DirtyFiles int `json:"dirty_files" doc:"Files git status lists"`
	// DirtyPaths are the first few dirty paths (at most MaxProbePaths).
	DirtyPaths         []string `json:"dirty_paths" doc:"The first of them, at most 3"`
	Ahead              int      `json:"ahead" doc:"Commits on HEAD not on origin/main"`
	Behind             int      `json:"behind" doc:"Commits on origin/main not on HEAD"`
	LastCommitSHA      string   `json:"last_commit_sha" doc:"The last commit's short sha"`
	LastCommitRelative string   `json:"last_commit_relative" doc:"How long ago it was made, such as 3 hours ago"`
	// LastCommitAt is when the last commit was made (relative text is
	// computed from it when rendering, so a cached probe does not go stale).
	LastCommitAt time.Time `json:"last_commit_at" doc:"When it was made (RFC 3339)"`
}

// CachedProbe is a probe result kept in the store so every server replica
// sees the same answer for ProbeTTL. Probe is nil when probing failed (the
// failure is cached too, so a broken worktree is not probed on every read).
type CachedProbe struct {
	WorktreeID smriti.ID
	Probe      *WorktreeProbe
	Error      string
	ProbedAt   time.Time
}

// WorktreeOpen is what a caller may set when opening a worktree.
type WorktreeOpen struct {
	SpaceID smriti.ID
	Agent   string
	// BranchName is the git branch to create; empty picks
	// smriti/<agent>/<suffix>.
	BranchName string
	// BaseCommitSHA is where the branch starts; empty is the project's HEAD.
	BaseCommitSHA string
	// BasePath is the directory to create; empty picks one under the
	// manager's root.
	BasePath string
}

// WorktreeService opens, lists and closes worktrees. Every method is scoped
// to the caller in ctx.
type WorktreeService interface {
	// OpenWorktree creates the git branch and worktree and records it.
	// ENOTFOUND for an unknown space; EINVALID for a blank agent, a relative
	// base path or a space without a usable project root; ECONFLICT when the
	// branch exists; EUPSTREAM with git's message when git fails.
	OpenWorktree(ctx context.Context, in WorktreeOpen) (*Worktree, error)
	// Worktrees lists a space's worktrees newest first (closed ones only
	// when includeClosed), each active one with its probe (nil when probing
	// failed). ENOTFOUND for an unknown space.
	Worktrees(ctx context.Context, spaceID smriti.ID, includeClosed bool) ([]*Worktree, map[smriti.ID]*WorktreeProbe, error)
	// Worktree resolves a full id or an id prefix of at least
	// minWorktreePrefix characters. EINVALID for a shorter prefix;
	// ENOTFOUND when nothing matches; EUNPROCESSABLE, listing the matches,
	// when a prefix is ambiguous.
	Worktree(ctx context.Context, idOrPrefix string) (*Worktree, error)
	// CloseWorktree removes the git worktree (the branch stays) and marks
	// the row closed. Resolution as Worktree; ECONFLICT when it is already
	// closed or has uncommitted changes and force is false; EUPSTREAM with
	// git's message when git fails.
	CloseWorktree(ctx context.Context, idOrPrefix string, force bool) (*Worktree, error)
}

// WorktreeStore keeps worktree rows and the shared probe cache.
type WorktreeStore interface {
	// InsertWorktree records an opened worktree; ENOTFOUND for an unknown
	// space.
	InsertWorktree(ctx context.Context, w *Worktree) error
	// ListWorktrees lists a space's worktrees newest first; ENOTFOUND for
	// an unknown space.
	ListWorktrees(ctx context.Context, spaceID smriti.ID, includeClosed bool) ([]*Worktree, error)
	// WorktreesByPrefix returns the caller's worktrees whose id starts with
	// prefix (lower-case hex and hyphens), at most limit of them.
	WorktreesByPrefix(ctx context.Context, prefix string, limit int) ([]*Worktree, error)
	// MarkWorktreeClosed sets status closed and closed_at; ECONFLICT when it
	// was closed meanwhile, ENOTFOUND when missing.
	MarkWorktreeClosed(ctx context.Context, id smriti.ID, at time.Time) (*Worktree, error)
	// ProbesSince returns the cached probes of the given worktrees taken at
	// or after since.
	ProbesSince(ctx context.Context, ids []smriti.ID, since time.Time) (map[smriti.ID]*CachedProbe, error)
	// SaveProbe replaces the cached probe of a worktree.
	SaveProbe(ctx context.Context, p *CachedProbe) error
	// ResolveProjectRoot returns the space's project root, or the newest
	// non-empty checkpoint project root when the space has none (""
	// when neither exists); ENOTFOUND for an unknown space.
	ResolveProjectRoot(ctx context.Context, spaceID smriti.ID) (root string, fromSpace bool, err error)
	// Space and SetProjectRoot as in contract.SpaceService (the root is back-filled
	// from a checkpoint's when the space had none).
	Space(ctx context.Context, id smriti.ID) (*smriti.Space, error)
	SetProjectRoot(ctx context.Context, id smriti.ID, root string) (*smriti.Space, error)
}

// Git is what worktrees need from the git binary. Every call is bounded in
// time; a failure is an *Error with EUPSTREAM (or ECONFLICT) carrying git's
// own message.
type Git interface {
	// ResolveDir returns dir absolute with symlinks resolved; EINVALID
	// ("project_root does not exist on disk: …") when it is not a
	// directory.
	ResolveDir(ctx context.Context, dir string) (string, error)
	// BranchExists reports whether refs/heads/<branch> exists in repo.
	BranchExists(ctx context.Context, repo, branch string) (bool, error)
	// HeadSHA returns the commit repo's HEAD points at.
	HeadSHA(ctx context.Context, repo string) (string, error)
	// AddWorktree creates branch at base and checks it out at path.
	AddWorktree(ctx context.Context, repo, path, branch, base string) error
	// Dirty returns the porcelain status lines of the worktree at dir.
	Dirty(ctx context.Context, dir string) ([]string, error)
	// RemoveWorktree removes the worktree at path (force drops changes).
	RemoveWorktree(ctx context.Context, repo, path string, force bool) error
	// Probe measures the worktree at dir against the main branch.
	Probe(ctx context.Context, dir string) (*WorktreeProbe, error)
}
