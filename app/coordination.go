package app

import (
	"context"
	"path/filepath"
	"smriti"
	"smriti/coord"
	"smriti/internal/clock"
	"smriti/internal/textutil"
	"smriti/proposal"
	"smriti/receipt"
	"smriti/remote"
	"strings"
	"time"

	"github.com/google/uuid"
)

// DefaultProbeTTL is how long a worktree probe is reused. It is short, so a
// brief is never far behind the disk, and kept in the store, so every
// server replica answers the same.
const DefaultProbeTTL = 30 * time.Second

// Coordinator is the coordination service: the state brief with the drift
// of bound worktrees, and opening, listing and closing worktrees with git.
// It composes the store and the git adapter; it does no I/O of its own.
type Coordinator struct {
	Briefs coord.StateService
	Store  coord.WorktreeStore
	// Receipts, when set, gives the brief its newest compaction receipt.
	Receipts receipt.Service
	// Proposals, when set, puts the space's waiting proposals in the brief.
	Proposals proposal.Service
	// Remotes, when set, says in the brief how the space stands against
	// its other copies.
	Remotes func(ctx context.Context, space smriti.ID) ([]remote.Divergence, error)
	// Git runs the git binary; nil makes worktree operations EUNAVAILABLE
	// (the brief still works, without probes).
	Git coord.Git
	Now clock.Clock
	// ProbeTTL is how long a cached probe is reused (DefaultProbeTTL when 0).
	ProbeTTL time.Duration
	// Root is where worktrees go when the caller names no path:
	// <Root>/<space>/<agent>-<suffix>.
	Root string
}

var _ coord.WorktreeService = (*Coordinator)(nil)

func (c *Coordinator) now() time.Time {
	if c.Now == nil {
		return clock.Now()
	}
	return c.Now()
}

func (c *Coordinator) git() (coord.Git, error) {
	if c.Git == nil || c.Store == nil {
		return nil, smriti.Errorf(smriti.EUNAVAILABLE, "worktrees are not available: this server has no git binary configured")
	}
	return c.Git, nil
}

// SpaceState returns the state brief with a fresh-enough probe for every
// claim bound to an active worktree. Errors as StateService.SpaceState.
func (c *Coordinator) SpaceState(ctx context.Context, spaceID smriti.ID, q coord.StateQuery) (*coord.StateBrief, error) {
	b, err := c.Briefs.SpaceState(ctx, spaceID, q)
	if err != nil {
		return nil, err
	}
	if err := c.lastCompaction(ctx, b); err != nil {
		return nil, err
	}
	if err := c.attachProposals(ctx, b); err != nil {
		return nil, err
	}
	if c.Remotes != nil && b.Space != nil {
		if b.Remotes, err = c.Remotes(ctx, b.Space.ID); err != nil {
			return nil, err
		}
	}
	var wts []*coord.Worktree
	for _, cl := range b.Claims {
		if cl.Worktree != nil && cl.Worktree.Status == coord.WorktreeActive {
			wts = append(wts, cl.Worktree)
		}
	}
	if len(wts) == 0 || c.Store == nil {
		return b, nil
	}
	probes, err := c.probes(ctx, wts)
	if err != nil {
		return nil, err
	}
	for i := range b.Claims {
		if w := b.Claims[i].Worktree; w != nil {
			b.Claims[i].Probe = probes[w.ID]
		}
	}
	return b, nil
}

// probes returns the drift of each worktree: from the shared cache when it
// is younger than the TTL, else measured with git and cached (failures
// too, as nil).
func (c *Coordinator) probes(ctx context.Context, wts []*coord.Worktree) (map[smriti.ID]*coord.WorktreeProbe, error) {
	ttl := c.ProbeTTL
	if ttl <= 0 {
		ttl = DefaultProbeTTL
	}
	now := c.now()
	ids := make([]smriti.ID, len(wts))
	for i, w := range wts {
		ids[i] = w.ID
	}
	cached, err := c.Store.ProbesSince(ctx, ids, now.Add(-ttl))
	if err != nil {
		return nil, err
	}
	out := make(map[smriti.ID]*coord.WorktreeProbe, len(wts))
	for _, w := range wts {
		if p, ok := cached[w.ID]; ok {
			out[w.ID] = p.Probe
			continue
		}
		if c.Git == nil {
			continue
		}
		cp := &coord.CachedProbe{WorktreeID: w.ID, ProbedAt: now}
		if p, err := c.Git.Probe(ctx, w.Path); err != nil {
			cp.Error = smriti.ErrorMessage(err)
		} else {
			cp.Probe = p
		}
		if err := c.Store.SaveProbe(ctx, cp); err != nil {
			return nil, err
		}
		out[w.ID] = cp.Probe
	}
	return out, nil
}

// slug turns a name into a path- and branch-safe word (lower-case letters,
// digits and single hyphens), or fallback when nothing is left: every run of
// other characters becomes one hyphen, and none leads or trails.
func slug(s, fallback string) string {
	var b strings.Builder
	gap := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if gap && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			gap = false
		} else {
			gap = true
		}
	}
	if b.Len() == 0 {
		return fallback
	}
	return b.String()
}

// OpenWorktree implements WorktreeService.
func (c *Coordinator) OpenWorktree(ctx context.Context, in coord.WorktreeOpen) (*coord.Worktree, error) {
	git, err := c.git()
	if err != nil {
		return nil, err
	}
	agent := strings.TrimSpace(in.Agent)
	if agent == "" {
		return nil, smriti.Errorf(smriti.EINVALID, "agent must be non-empty")
	}
	if len(agent) > coord.MaxClaimAgent {
		return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "agent must be at most %d characters", coord.MaxClaimAgent)
	}
	sp, root, err := c.projectRoot(ctx, in.SpaceID)
	if err != nil {
		return nil, err
	}
	suffix := smriti.NewID().String()[:8]
	branch := strings.TrimSpace(in.BranchName)
	if branch == "" {
		branch = "smriti/" + slug(agent, "agent") + "/" + suffix
	}
	path := strings.TrimSpace(in.BasePath)
	if path == "" {
		if c.Root == "" {
			return nil, smriti.Errorf(smriti.EINVALID, "base_path is required: this server has no default worktree directory")
		}
		path = filepath.Join(c.Root, slug(sp.Name, "space"), slug(agent, "agent")+"-"+suffix)
	} else {
		if !filepath.IsAbs(path) {
			return nil, smriti.Errorf(smriti.EINVALID, "base_path must be absolute")
		}
		path = filepath.Clean(path)
	}
	exists, err := git.BranchExists(ctx, root, branch)
	if err != nil {
		return nil, err
	}
	if exists {
		return nil, smriti.Errorf(smriti.ECONFLICT, "Branch already exists: %s", branch)
	}
	base := strings.TrimSpace(in.BaseCommitSHA)
	if base == "" {
		if base, err = git.HeadSHA(ctx, root); err != nil {
			return nil, err
		}
	}
	if err := git.AddWorktree(ctx, root, path, branch, base); err != nil {
		return nil, err
	}
	w := &coord.Worktree{ID: smriti.NewID(), SpaceID: sp.ID, Agent: agent, Path: path, BranchName: branch,
		BaseCommitSHA: &base, Status: coord.WorktreeActive, CreatedAt: c.now()}
	if err := c.Store.InsertWorktree(ctx, w); err != nil {
		// Leave no orphan on disk for a row that was never written.
		_ = git.RemoveWorktree(context.WithoutCancel(ctx), root, path, true)
		return nil, err
	}
	return w, nil
}

// projectRoot finds the space's project root, back-filling the space from
// its newest checkpoint's root when the space has none.
func (c *Coordinator) projectRoot(ctx context.Context, spaceID smriti.ID) (*smriti.Space, string, error) {
	root, fromSpace, err := c.Store.ResolveProjectRoot(ctx, spaceID)
	if err != nil {
		return nil, "", err
	}
	if root == "" {
		return nil, "", smriti.Errorf(smriti.EINVALID, "No project_root configured for this space. Set it via `smriti space set-project-root <space> <path>` or create a checkpoint with project_root set.")
	}
	resolved, err := c.Git.ResolveDir(ctx, root)
	if err != nil {
		return nil, "", err
	}
	var sp *smriti.Space
	if !fromSpace {
		sp, err = c.Store.SetProjectRoot(ctx, spaceID, resolved)
	} else {
		sp, err = c.Store.Space(ctx, spaceID)
	}
	if err != nil {
		return nil, "", err
	}
	return sp, resolved, nil
}

// Worktrees implements WorktreeService.
func (c *Coordinator) Worktrees(ctx context.Context, spaceID smriti.ID, includeClosed bool) ([]*coord.Worktree, map[smriti.ID]*coord.WorktreeProbe, error) {
	if c.Store == nil {
		return nil, nil, smriti.Errorf(smriti.EUNAVAILABLE, "worktrees are not available on this server")
	}
	ws, err := c.Store.ListWorktrees(ctx, spaceID, includeClosed)
	if err != nil {
		return nil, nil, err
	}
	var active []*coord.Worktree
	for _, w := range ws {
		if w.Status == coord.WorktreeActive {
			active = append(active, w)
		}
	}
	probes := map[smriti.ID]*coord.WorktreeProbe{}
	if len(active) > 0 {
		if probes, err = c.probes(ctx, active); err != nil {
			return nil, nil, err
		}
	}
	return ws, probes, nil
}

// Worktree implements WorktreeService.
func (c *Coordinator) Worktree(ctx context.Context, idOrPrefix string) (*coord.Worktree, error) {
	if c.Store == nil {
		return nil, smriti.Errorf(smriti.EUNAVAILABLE, "worktrees are not available on this server")
	}
	s := strings.ToLower(strings.TrimSpace(idOrPrefix))
	if len(s) < coord.MinWorktreePrefix {
		return nil, smriti.Errorf(smriti.EINVALID, "Worktree id must be at least %d characters", coord.MinWorktreePrefix)
	}
	if id, err := uuid.Parse(s); err == nil && len(s) == 36 {
		ws, err := c.Store.WorktreesByPrefix(ctx, id.String(), 1)
		if err != nil {
			return nil, err
		}
		if len(ws) == 0 {
			return nil, smriti.Errorf(smriti.ENOTFOUND, "Worktree not found")
		}
		return ws[0], nil
	}
	if len(s) > 36 || strings.Trim(s, "0123456789abcdef-") != "" {
		return nil, smriti.Errorf(smriti.EINVALID, "%q is not a worktree id or id prefix (hex digits and hyphens)", textutil.Truncate(s, 40))
	}
	ws, err := c.Store.WorktreesByPrefix(ctx, s, 4)
	if err != nil {
		return nil, err
	}
	switch len(ws) {
	case 0:
		return nil, smriti.Errorf(smriti.ENOTFOUND, "No worktree matches prefix '%s'", s)
	case 1:
		return ws[0], nil
	}
	names := []string{}
	for i, w := range ws {
		if i == 3 {
			break
		}
		names = append(names, w.ID.String()[:8]+"...")
	}
	return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "Worktree prefix '%s' is ambiguous (matches %s)", s, strings.Join(names, ", "))
}

// CloseWorktree implements WorktreeService.
func (c *Coordinator) CloseWorktree(ctx context.Context, idOrPrefix string, force bool) (*coord.Worktree, error) {
	w, err := c.Worktree(ctx, idOrPrefix)
	if err != nil {
		return nil, err
	}
	git, err := c.git()
	if err != nil {
		return nil, err
	}
	if w.Status == coord.WorktreeClosed {
		return nil, smriti.Errorf(smriti.ECONFLICT, "Worktree is already closed")
	}
	_, root, err := c.projectRoot(ctx, w.SpaceID)
	if err != nil {
		return nil, err
	}
	if !force {
		dirty, err := git.Dirty(ctx, w.Path)
		if err != nil {
			return nil, err
		}
		if len(dirty) > 0 {
			return nil, smriti.Errorf(smriti.ECONFLICT, "Worktree has uncommitted changes; pass force=true to remove it.")
		}
	}
	if err := git.RemoveWorktree(ctx, root, w.Path, force); err != nil {
		return nil, err
	}
	return c.Store.MarkWorktreeClosed(ctx, w.ID, c.now())
}
