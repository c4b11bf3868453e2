package app

import (
	"context"

	"smriti"
	"smriti/coord"
)

// SpaceState is the space's state brief.
func (a *App) SpaceState(ctx context.Context, space smriti.ID, q coord.StateQuery) (*coord.StateBrief, error) {
	return a.coordinator.SpaceState(ctx, space, q)
}

// OpenWorktree makes a git worktree for an agent's line of work.
func (a *App) OpenWorktree(ctx context.Context, in coord.WorktreeOpen) (*coord.Worktree, error) {
	return a.coordinator.OpenWorktree(ctx, in)
}

// Worktrees lists a space's worktrees with their probes.
func (a *App) Worktrees(ctx context.Context, space smriti.ID, includeClosed bool) ([]*coord.Worktree, map[smriti.ID]*coord.WorktreeProbe, error) {
	return a.coordinator.Worktrees(ctx, space, includeClosed)
}

// Worktree resolves a full id or a prefix of 4+ characters.
func (a *App) Worktree(ctx context.Context, idOrPrefix string) (*coord.Worktree, error) {
	return a.coordinator.Worktree(ctx, idOrPrefix)
}

// CloseWorktree removes a worktree (refusing unsaved work unless force).
func (a *App) CloseWorktree(ctx context.Context, idOrPrefix string, force bool) (*coord.Worktree, error) {
	return a.coordinator.CloseWorktree(ctx, idOrPrefix, force)
}
